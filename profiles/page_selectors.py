"""Read-side selectors of the memory pages (``profiles/views.py``) and the staff versions
pages (``bizmemory/staff_views.py``).

Every selector takes the user and filters by it first: nothing here reads across users.
"""

from __future__ import annotations

import difflib
import json

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from audit.labels import hit_type_name
from audit.models import QuarantineRecord

from .confirmations import pending_confirmations, snapshot_list
from .item_text import item_text
from .models import Agent, ExpertSetting, MemoryItem, MemorySettings, Snapshot
from .ports import conversations
from .selectors import memory_document_get, user_export

SOURCE_SENTENCE_CHARS = 300

KIND_NAMES = {"profile": _("Profile"), "preference": _("Preferences"), "fact": _("Facts")}


def _source_sentences(user, items: list[MemoryItem]) -> dict[int, str]:
    """``{message_id: content}`` of the user's own messages named by the items' sources."""
    ids = sorted({mid for i in items for mid in (i.source_message_ids or []) if isinstance(mid, int)})
    if not ids:
        return {}
    rows = conversations().source_sentences(user_id=user.pk, message_ids=ids)
    return {pk: " ".join(content.split())[:SOURCE_SENTENCE_CHARS] for pk, content in rows.items()}


def memory_overview(*, user) -> dict:
    """Template context of the "My memory" page.

    Returns ``{"groups": [{"kind", "title", "items": [row]}], "pending": [dict],
    "memory_md": str, "memory_version": int, "memory_enabled": bool, "count": int}``
    where a row is ``{"id", "kind", "key", "value", "text", "fact_date", "learned_at",
    "session", "session_started_at", "sentences": [str]}`` — ``text`` is the line of
    ``profiles.item_text`` as agents get it (the item's language, a fact's date at its
    precision), ``sentences`` are the user's
    own messages the item came from (empty when retention already deleted them).
    ``pending`` is ``profiles.confirmations.pending_confirmations``; ``memory_md`` is MEMORY.md as agents receive it (masked on the way
    out by ``profiles.selectors.memory_document_get``). A fixed number of queries.
    """
    items = list(MemoryItem.objects.current().filter(user=user).order_by("kind", "key", "id"))
    sentences = _source_sentences(user, items)
    sessions = conversations().sessions_info(
        user_id=user.pk, session_ids=sorted({i.source_session_id for i in items if i.source_session_id}),
    )
    groups = []
    for kind in ("profile", "preference", "fact"):
        rows = []
        for i in (i for i in items if i.kind == kind):
            session = sessions.get(i.source_session_id)
            rows.append({
                "id": i.pk, "kind": i.kind, "key": i.key, "value": i.value, "text": item_text(i),
                "fact_date": i.fact_date, "learned_at": i.valid_from,
                "session": session.external_id if session else "", "session_started_at": session.started_at if session else None,
                "sentences": [sentences[m] for m in (i.source_message_ids or []) if m in sentences],
            })
        groups.append({"kind": kind, "title": KIND_NAMES[kind], "items": rows})
    pending = pending_confirmations(user=user)
    doc = memory_document_get(user=user)
    ms = MemorySettings.objects.filter(user=user).first()
    return {
        "groups": groups, "pending": pending, "memory_md": doc["text"], "memory_version": doc["version"],
        "memory_enabled": ms.memory_enabled if ms else True, "count": len(items),
    }


def switches_overview(*, user) -> dict:
    """The user's switches: ``{"memory_enabled": bool, "experts": [{"slug", "name",
    "enabled": bool, "excluded": bool}]}`` — every expert agent of the platform (agents
    that are not the entry agent) plus any agent the user has a setting for, by slug."""
    ms = MemorySettings.objects.filter(user=user).first()
    own = {es.agent_id: es for es in ExpertSetting.objects.filter(user=user)}
    agents = Agent.objects.filter(is_entry=False) | Agent.objects.filter(pk__in=list(own))
    experts = []
    for a in agents.distinct().order_by("slug"):
        es = own.get(a.pk)
        experts.append({
            "slug": a.slug, "name": a.name or a.slug,
            "enabled": es.memory_enabled if es else True, "excluded": es.excluded_from_extraction if es else False,
        })
    return {"memory_enabled": ms.memory_enabled if ms else True, "experts": experts}


def _item_line(d: dict) -> str:
    return f"[{d.get('kind')}] {item_text(d)}"


def snapshot_diff(*, user, old: int, new: int) -> dict | None:
    """A readable diff between two of ``user``'s retained snapshot versions.

    Returns ``{"old": Snapshot, "new": Snapshot, "added": [str], "removed": [str],
    "md_diff": [{"op": "+"|"-"|" "|"@", "text": str}]}`` — item lines (kind, text, fact
    date) only in ``new`` / only in ``old``, and a unified diff of MEMORY.md
    (``difflib.unified_diff``, 2 lines of context). None when either version is not
    retained for this user.
    """
    snaps = {s.version: s for s in Snapshot.objects.filter(user=user, version__in=[old, new])}
    if old not in snaps or new not in snaps:
        return None
    a, b = snaps[old], snaps[new]
    a_lines = sorted({_item_line(d) for d in a.items})
    b_lines = sorted({_item_line(d) for d in b.items})
    md = []
    for line in difflib.unified_diff(a.memory_md.splitlines(), b.memory_md.splitlines(), lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        md.append({"op": line[:1] if line[:1] in "+-@" else " ", "text": line[1:] if line[:1] in "+- " else line})
    return {
        "old": a, "new": b,
        "added": [x for x in b_lines if x not in set(a_lines)],
        "removed": [x for x in a_lines if x not in set(b_lines)],
        "md_diff": md,
    }


def kept_out_list(*, user) -> list[dict]:
    """What the sanitizer kept out of ``user``'s memory, newest first:
    ``[{"id", "created_at", "expires_at", "session", "types": [readable name], "preview"}]``.
    ``preview`` is the masked text stored at filing time; the encrypted original is never
    loaded."""
    rows = (
        QuarantineRecord.objects.filter(user=user).defer("original_encrypted")
        .order_by("-created_at", "-id")
    )
    return [
        {
            "id": r.pk, "created_at": r.created_at, "expires_at": r.expires_at,
            "session": r.session_external_id,
            "types": [hit_type_name(t) for t in r.hit_types.split(",") if t], "preview": r.preview,
        }
        for r in rows
    ]


def export_json(*, user) -> str:
    """The user's export (``profiles.selectors.user_export``) as pretty JSON text (UTF-8, not ASCII-escaped)."""
    return json.dumps({"user": user.get_username(), **user_export(user=user)}, ensure_ascii=False, indent=2, default=str)


def export_markdown(*, user) -> str:
    """The user's export as one Markdown document: MEMORY.md, every current item with its
    date and source ids, pending journal count, versions and the kept-out count."""
    data = user_export(user=user)
    out = [f"# BizMemory export: {user.get_username()}", "", "## MEMORY.md", "", data["memory_md"] or "(empty)", ""]
    out += ["## Items", ""]
    for d in data["items"]:
        src = ", ".join(str(m) for m in d.get("source_message_ids") or [])
        out.append(f"- {_item_line(d)} — since {d['valid_from'][:10]}" + (f" — messages {src}" if src else ""))
    if not data["items"]:
        out.append("(none)")
    out += ["", "## Versions", ""]
    for s in data["snapshots"]:
        out.append(f"- version {s['version']} ({s['reason']}): {len(s['items'])} items")
    if not data["snapshots"]:
        out.append("(none)")
    out += ["", f"Pending journal entries: {len(data['journal'])}",
            f"Search index chunks: {len(data['search_index'])}",
            f"Kept out by the sanitizer (quarantine records): {data['quarantine_count']}", ""]
    return "\n".join(out)


def versions_list(*, user) -> list[dict]:
    """``profiles.confirmations.snapshot_list`` with ``created_at`` parsed to an aware datetime
    (``{"version", "reason", "created_at", "items": count}``, newest first)."""
    return [{**v, "created_at": parse_datetime(v["created_at"])} for v in snapshot_list(user=user)]
