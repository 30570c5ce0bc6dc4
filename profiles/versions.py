"""Versions of a user's memory: the CAS version number, MEMORY.md, snapshots and restore.

* ``memory_version_read`` / ``memory_version_bump`` — the per-user compare-and-set
  token (``profiles.models.MemoryVersion``). Every writer of a user's memory
  items bumps it inside its transaction; consolidation applies a plan only when the
  version it planned on is still current.
* ``memory_document_refresh`` — re-render MEMORY.md from the current items.
* ``snapshot_create`` — save the current items + MEMORY.md as the next version,
  keeping the newest ``BIZMEMORY['SNAPSHOTS_KEEP']``.
* ``memory_document_set`` — store an exact MEMORY.md text (a restore).
* ``snapshots_rectify`` — when an item leaves memory because the user superseded,
  retracted or deleted it, retained snapshots stop carrying it: a superseded value is
  replaced by the value that superseded it, a retracted or deleted one is dropped, and the
  snapshot's MEMORY.md is re-rendered. So a restore rolls back a bad consolidation but never
  brings back a value the user has since corrected or deleted (GDPR Art. 5(1)(d),
  accuracy: inaccurate personal data are erased or rectified without delay). The
  superseded item rows themselves stay as history (confirm/reject of a change needs them)
  until ``ARCHIVE_RETENTION_DAYS`` (``consolidation.retention.superseded_item_purge``).

These are the primitives of the one write path: only :mod:`profiles.changeset` (and the
restore service built on it, ``profiles.services.snapshot_restore``) calls the writers here.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from audit.services import audit_record
from bizmemory.tokens import count_tokens

from .models import MemoryDocument, MemoryItem, MemoryVersion, Snapshot, SnapshotReason
from .rendering import render_memory_markdown


class SnapshotNotFound(LookupError):
    """No snapshot with that version is retained for the user."""


def memory_version_read(*, user_id: int) -> int:
    """The user's current memory version (0 when none was ever written; no row is created)."""
    return MemoryVersion.objects.filter(user_id=user_id).values_list("version", flat=True).first() or 0


def memory_version_bump(*, user_id: int, expected: int | None = None, now: dt.datetime | None = None) -> bool:
    """Advance the user's memory version by one; returns True when this call did it.

    With ``expected`` it is a compare-and-set: only succeeds when the stored version
    still equals ``expected`` (one conditional UPDATE, row-count checked — the same on
    SQLite, PostgreSQL and MariaDB). Without it, it always bumps. Call it inside the
    transaction that writes the user's memory items.
    """
    now = now or timezone.now()
    qs = MemoryVersion.objects.filter(user_id=user_id)
    if expected is not None:
        qs = qs.filter(version=expected)
    if qs.update(version=F("version") + 1, updated_at=now) == 1:
        return True
    if expected not in (None, 0):
        return False
    try:  # first write for this user: the row does not exist yet (a concurrent first writer wins)
        with transaction.atomic():
            MemoryVersion.objects.create(user_id=user_id, version=1, updated_at=now)
    except IntegrityError:
        return False
    return True


def memory_document_refresh(*, user_id: int) -> MemoryDocument:
    """Re-render a user's MEMORY.md from the current items (token cap from settings) and store it."""
    items = list(MemoryItem.objects.current().filter(user_id=user_id))
    md, _ = render_memory_markdown(items, max_tokens=settings.BIZMEMORY["MEMORY_DOCUMENT_TOKENS"])
    doc, _ = MemoryDocument.objects.get_or_create(user_id=user_id)
    if doc.markdown != md:
        doc.markdown = md
        doc.tokens = count_tokens(md)
        doc.version += 1
        doc.save(update_fields=["markdown", "tokens", "version", "updated_at"])
    return doc


def memory_document_set(*, user_id: int, markdown: str) -> MemoryDocument:
    """Store ``markdown`` byte for byte as the user's MEMORY.md (a restore puts back the text a
    snapshot kept); the document's own version is bumped. Returns the document."""
    doc, _ = MemoryDocument.objects.get_or_create(user_id=user_id)
    doc.markdown = markdown
    doc.tokens = count_tokens(markdown)
    doc.version += 1
    doc.save(update_fields=["markdown", "tokens", "version", "updated_at"])
    return doc


def snapshot_item_dict(item: MemoryItem) -> dict:
    """An item as a snapshot stores it: ``MemoryItem.as_dict()`` plus ``confirmed_at``
    (ISO 8601), so a restore also restores which items the token cap keeps."""
    d = item.as_dict()
    d["confirmed_at"] = item.confirmed_at.isoformat()
    return d


def current_item_dicts(*, user_id: int) -> list[dict]:
    """The user's current items as snapshot dicts, in id order."""
    return [snapshot_item_dict(i) for i in MemoryItem.objects.current().filter(user_id=user_id).order_by("id")]


@transaction.atomic
def snapshot_create(*, user_id: int, reason: str, now: dt.datetime | None = None, actor=None) -> Snapshot:
    """Save the user's current items and MEMORY.md as the next version; keep the newest K.

    ``reason`` is a :class:`SnapshotReason` value. K is ``BIZMEMORY['SNAPSHOTS_KEEP']``
    (≥ 2, system check E005); older versions are deleted. A ``manual`` snapshot is audited.
    Returns the new :class:`Snapshot`.
    """
    now = now or timezone.now()
    doc = MemoryDocument.objects.filter(user_id=user_id).first()
    last = Snapshot.objects.filter(user_id=user_id).aggregate(v=Max("version"))["v"] or 0
    snap = Snapshot.objects.create(
        user_id=user_id, version=last + 1, reason=reason, items=current_item_dicts(user_id=user_id),
        memory_md=doc.markdown if doc else "", created_at=now,
    )
    keep = settings.BIZMEMORY["SNAPSHOTS_KEEP"]
    old = list(Snapshot.objects.filter(user_id=user_id).order_by("-version").values_list("pk", flat=True)[keep:])
    if old:
        Snapshot.objects.filter(pk__in=old).delete()
    if reason == SnapshotReason.MANUAL:
        audit_record(
            action="memory.snapshot_created", actor=actor, subject_user_id=user_id, target_type="snapshot",
            target_id=str(snap.pk), details={"version": snap.version, "items": len(snap.items)},
        )
    return snap


def _snapshot_markdown(item_dicts: list[dict]) -> str:
    """MEMORY.md for a list of snapshot item dicts, rendered as for current items."""
    items = []
    for d in item_dicts:
        item = MemoryItem(**item_fields(d))
        item.pk = d.get("id")
        items.append(item)
    md, _ = render_memory_markdown(items, max_tokens=settings.BIZMEMORY["MEMORY_DOCUMENT_TOKENS"])
    return md


def snapshots_rectify(*, user_id: int, replacements: dict[int, dict | None], exclude_pk: int | None = None) -> int:
    """Rewrite the user's retained snapshots so that items that left memory are not kept there.

    ``replacements`` maps the id of an item that left current memory to the snapshot dict
    (:func:`snapshot_item_dict`) of the item that superseded it, or to ``None`` when it was
    retracted or deleted. In each snapshot holding such an item, the item is replaced by its
    successor (unless the snapshot already holds the successor, then it is dropped) or
    dropped; the snapshot's MEMORY.md is re-rendered from the rectified items. Snapshots
    without such items are not touched (their MEMORY.md stays byte-identical).
    ``exclude_pk`` skips one snapshot (e.g. the one just taken). Call inside the
    transaction that made the change. Returns the number of snapshots rewritten.
    """
    if not replacements:
        return 0
    rewritten = 0
    snaps = Snapshot.objects.filter(user_id=user_id).order_by("version")
    if exclude_pk is not None:
        snaps = snaps.exclude(pk=exclude_pk)
    for snap in snaps:
        ids = {d.get("id") for d in snap.items}
        if not ids & set(replacements):
            continue
        items = []
        for d in snap.items:
            if d.get("id") not in replacements:
                items.append(d)
                continue
            successor, seen = replacements[d["id"]], {d["id"]}
            while successor is not None and successor.get("id") in replacements and successor["id"] not in seen:
                seen.add(successor["id"])  # superseded twice since: follow to the last value
                successor = replacements[successor["id"]]
            if successor is not None and successor.get("id") not in ids:
                items.append(successor)
                ids.add(successor["id"])
        snap.items = sorted(items, key=lambda d: d.get("id") or 0)  # id order, as snapshot_create stores them
        snap.memory_md = _snapshot_markdown(items)
        snap.save(update_fields=["items", "memory_md"])
        rewritten += 1
    return rewritten


def item_fields(d: dict) -> dict:
    """The MemoryItem field values a snapshot dict stores (for a restore or a re-render)."""
    valid_from = parse_datetime(d["valid_from"])
    return {
        "kind": d["kind"],
        "key": d["key"],
        "value": d["value"],
        "text": d.get("text", ""),
        "fact_date": parse_date(d["fact_date"]) if d.get("fact_date") else None,
        "valid_from": valid_from,
        "confirmed_at": parse_datetime(d["confirmed_at"]) if d.get("confirmed_at") else valid_from,
        "source_message_ids": list(d.get("source_message_ids") or []),
        "valid_until": None,
    }
