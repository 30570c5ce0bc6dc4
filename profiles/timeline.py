"""What happened to each entry of a user's memory, and when: the user's history page (issue 17).

Snapshots are rectified (what the user corrected or deleted leaves every retained version), so
versions cannot tell the user what changed; the diff of versions stays on the staff pages. This
timeline is built instead from the records that keep the dates:

* the item rows — current and superseded (``valid_until`` set: a value that was replaced, a
  rejected change, a value a restore closed); consolidation writes them from the journal, one
  row per value taken, with the time the user said it (``valid_from``);
* the audit log — ``memory.item_deleted`` (who deleted what kind of entry learned when),
  ``memory.confirmation_rejected`` / ``_confirmed``, ``memory.restored`` (the item ids it
  brought back), ``memory.item_removed`` (self-correction). Audit rows hold ids, kinds and
  dates, never a key or memory text, so a deleted entry that replaced no earlier value is
  shown by its kind only ("A fact"); one that did joins the entry of the value it replaced (that
  value's row was closed at the moment the deleted one was learned).

Old values never appear: a value that was replaced, rejected or deleted is "an earlier value";
only the current value of an entry is shown (the line of :func:`profiles.item_text.item_text`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.utils.dateparse import parse_datetime

from audit.models import AuditLog

from .item_text import item_label, item_text
from .models import MemoryItem
from .taxonomy import key_spec

# What each event says; the page words them (templates/profiles/history.html).
LEARNED, CHANGED, ENDED, DELETED, REJECTED, CONFIRMED, RESTORED, REMOVED = (
    "learned", "changed", "ended", "deleted", "rejected", "confirmed", "restored", "removed",
)
_AUDIT_ACTIONS = ("memory.item_deleted", "memory.confirmation_rejected", "memory.confirmation_confirmed",
                  "memory.restored", "memory.item_removed")


@dataclass
class _Entry:
    kind: str
    label: str
    rows: list = field(default_factory=list)
    events: list = field(default_factory=list)
    current: object = None
    deleted: bool = False


def _event(what: str, at: dt.datetime, *, value: str = "", by: str = "") -> dict:
    return {"what": what, "at": at, "value": value, "by": by}


def _who(log: AuditLog, user) -> str:
    if log.actor_id is None:
        return ""
    return "you" if log.actor_id == user.pk else "staff"


def _chains(items: list[MemoryItem], lang: str) -> dict[tuple, _Entry]:
    """Item rows grouped into entries: a one-value key (``latest``: city, role) is one entry
    across its values; a several-value key (``set`` / ``event``) one entry per stored key."""
    entries: dict[tuple, _Entry] = {}
    for item in sorted(items, key=lambda i: (i.valid_from, i.pk)):
        spec = key_spec(kind=item.kind, key=item.key)
        ident = (item.kind, spec.prefix if spec and spec.merge == "latest" else item.key.lower())
        entry = entries.setdefault(ident, _Entry(item.kind, item_label(kind=item.kind, key=item.key, lang=lang)))
        entry.rows.append(item)
    for entry in entries.values():
        for n, item in enumerate(entry.rows):
            is_current = item.valid_until is None
            shown = item_text(item, lang=lang) if is_current else ""
            entry.events.append(_event(CHANGED if n else LEARNED, item.valid_from, value=shown))
            if is_current:
                entry.current = item
            elif not any(r.valid_from >= item.valid_until for r in entry.rows[n + 1:]):
                entry.events.append(_event(ENDED, item.valid_until))  # closed with no successor
    return entries


def _by_item(entries: dict[tuple, _Entry]) -> dict[int, _Entry]:
    return {row.pk: e for e in entries.values() for row in e.rows}


def _place_audit(entries: dict[tuple, _Entry], logs: list[AuditLog], user) -> None:
    by_item = _by_item(entries)
    for log in logs:
        d, at = log.details or {}, log.created_at
        if log.action in ("memory.item_deleted", "memory.item_removed"):
            kind = d.get("kind", "")
            learned = parse_datetime(d["learned_at"]) if d.get("learned_at") else None
            entry = next((e for e in entries.values() if e.kind == kind and learned is not None
                          and any(r.valid_until == learned for r in e.rows)), None)
            if entry is None:
                entry = entries.setdefault(("deleted", log.pk), _Entry(kind, ""))
                if learned:
                    entry.events.append(_event(LEARNED, learned))
            else:
                entry.events = [ev for ev in entry.events if not (ev["what"] == ENDED and ev["at"] == learned)]
                entry.events.append(_event(CHANGED, learned))
            entry.events.append(_event(DELETED if log.action == "memory.item_deleted" else REMOVED, at,
                                       by=_who(log, user) if log.action == "memory.item_deleted" else ""))
            entry.deleted = entry.current is None
        elif log.action == "memory.confirmation_rejected" and d.get("restored_item") in by_item:
            entry = by_item[d["restored_item"]]
            closed = next((r.valid_until for r in entry.rows if r.pk == d.get("closed_item")), None)
            entry.events = [ev for ev in entry.events if not (ev["what"] == ENDED and ev["at"] == closed)]
            entry.events.append(_event(REJECTED, closed or at, by=_who(log, user)))  # the answer's own time
        elif log.action == "memory.confirmation_confirmed" and d.get("new_item") in by_item:
            by_item[d["new_item"]].events.append(_event(CONFIRMED, at, by=_who(log, user)))
        elif log.action == "memory.restored":
            for entry in {id(by_item[i]): by_item[i] for i in d.get("item_ids", []) if i in by_item}.values():
                entry.events.append(_event(RESTORED, at, by=_who(log, user)))


def memory_timeline(*, user, lang: str) -> list[dict]:
    """The user's history, one entry per remembered thing, the most recently touched first.

    Inputs: the user; ``lang`` (``zh…`` / ``en``) for labels and the current value's line.
    Returns ``[{"kind": "profile"|"preference"|"fact", "label": str ("" for a deleted entry that
    replaced nothing: its key is not kept), "current": str (the
    current value's line, "" when none), "deleted": bool, "last": datetime, "events": [{"what":
    "learned"|"changed"|"ended"|"deleted"|"rejected"|"confirmed"|"restored"|"removed", "at":
    aware datetime, "value": str (the current value's line on the event that set it, else ""),
    "by": "you"|"staff"|""}]}]`` with events oldest first. Reads only this user's rows (two
    queries). Rule: issue 17, "show a per-entry timeline … old values only as 'an earlier
    value'"."""
    lang = "zh" if (lang or "").startswith("zh") else "en"
    entries = _chains(list(MemoryItem.objects.filter(user=user)), lang)
    logs = list(AuditLog.objects.filter(subject_user=user, action__in=_AUDIT_ACTIONS).order_by("created_at", "pk"))
    _place_audit(entries, logs, user)
    out = []
    for e in entries.values():
        events = sorted(e.events, key=lambda ev: ev["at"])
        out.append({"kind": e.kind, "label": e.label, "current": item_text(e.current, lang=lang) if e.current else "",
                    "deleted": e.deleted, "last": events[-1]["at"] if events else None, "events": events})
    epoch = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return sorted(out, key=lambda e: e["last"] or epoch, reverse=True)
