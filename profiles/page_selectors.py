"""Read-side selectors of the memory pages (``profiles/views.py``) and the staff versions
pages (``consolidation/admin_views.py``).

Every selector takes the user and filters by it first: nothing here reads across users.
"""

from __future__ import annotations

import difflib
import json

from django.utils.translation import gettext_lazy as _

from .models import Agent, ExpertSetting, MemoryItem, MemorySettings

SOURCE_SENTENCE_CHARS = 300

# Readable names of the sanitizer's entity types (audit.sanitizer.ENTITY_TYPES).
HIT_TYPE_NAMES = {
    "CN_RESIDENT_ID": _("ID card number"),
    "BANK_CARD": _("bank card number"),
    "CREDIT_CARD": _("credit card number"),
    "CN_MOBILE": _("mobile phone number"),
    "CN_LANDLINE": _("landline phone number"),
    "PHONE_NUMBER": _("phone number"),
    "EMAIL_ADDRESS": _("email address"),
    "CN_PASSPORT": _("passport number"),
    "PASSPORT": _("passport number"),
    "US_SSN": _("social security number"),
    "IBAN_CODE": _("bank account (IBAN)"),
    "IP_ADDRESS": _("IP address"),
    "CN_ADDRESS": _("home address"),
    "EN_STREET_ADDRESS": _("street address"),
    "CREDENTIAL": _("password or secret key"),
    "SENSITIVE_WORD": _("sensitive word"),
}

KIND_NAMES = {"profile": _("Profile"), "preference": _("Preferences"), "fact": _("Facts")}


def hit_type_name(code: str):
    """Readable (translatable) name of a sanitizer entity type; unknown codes are returned as they are."""
    return HIT_TYPE_NAMES.get(code, code)


def _source_sentences(user, items: list[MemoryItem]) -> dict[int, str]:
    """``{message_id: content}`` of the user's own messages named by the items' sources."""
    from consolidation.models import Message

    ids = {mid for i in items for mid in (i.source_message_ids or []) if isinstance(mid, int)}
    if not ids:
        return {}
    rows = Message.objects.filter(pk__in=ids, session__user=user, role="user").values_list("pk", "content")
    return {pk: " ".join(content.split())[:SOURCE_SENTENCE_CHARS] for pk, content in rows}


def memory_overview(*, user) -> dict:
    """Template context of the "My memory" page.

    Returns ``{"groups": [{"kind", "title", "items": [row]}], "pending": [dict],
    "memory_md": str, "memory_version": int, "memory_enabled": bool, "count": int}``
    where a row is ``{"id", "kind", "key", "value", "text", "fact_date", "learned_at",
    "session", "session_started_at", "sentences": [str]}`` — ``sentences`` are the user's
    own messages the item came from (empty when retention already deleted them).
    ``pending`` is ``consolidation.selectors.pending_confirmations`` (empty when that
    module is missing); ``memory_md`` is MEMORY.md as agents receive it (masked on the way
    out by ``profiles.selectors.memory_document_get``). A fixed number of queries.
    """
    from .selectors import memory_document_get

    items = list(
        MemoryItem.objects.current().filter(user=user).select_related("source_session").order_by("kind", "key", "id")
    )
    sentences = _source_sentences(user, items)
    groups = []
    for kind in ("profile", "preference", "fact"):
        rows = []
        for i in (i for i in items if i.kind == kind):
            session = i.source_session if i.source_session and i.source_session.user_id == user.pk else None
            rows.append({
                "id": i.pk, "kind": i.kind, "key": i.key, "value": i.value, "text": i.text or f"{i.key}: {i.value}",
                "fact_date": i.fact_date, "learned_at": i.valid_from,
                "session": session.external_id if session else "", "session_started_at": session.started_at if session else None,
                "sentences": [sentences[m] for m in (i.source_message_ids or []) if m in sentences],
            })
        groups.append({"kind": kind, "title": KIND_NAMES[kind], "items": rows})
    try:
        from consolidation.selectors import pending_confirmations
    except ImportError:  # consolidation's confirmation queue not installed in this build
        pending = []
    else:
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
    text = " ".join((d.get("text") or f"{d.get('key')}: {d.get('value')}").split())
    return f"[{d.get('kind')}] {text}" + (f" ({d['fact_date']})" if d.get("fact_date") else "")


def snapshot_diff(*, user, old: int, new: int) -> dict | None:
    """A readable diff between two of ``user``'s retained snapshot versions.

    Returns ``{"old": Snapshot, "new": Snapshot, "added": [str], "removed": [str],
    "md_diff": [{"op": "+"|"-"|" "|"@", "text": str}]}`` — item lines (kind, text, fact
    date) only in ``new`` / only in ``old``, and a unified diff of MEMORY.md
    (``difflib.unified_diff``, 2 lines of context). None when either version is not
    retained for this user.
    """
    from consolidation.models import Snapshot

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
    from audit.models import QuarantineRecord

    rows = (
        QuarantineRecord.objects.filter(user=user).select_related("session").defer("original_encrypted")
        .order_by("-created_at", "-id")
    )
    return [
        {
            "id": r.pk, "created_at": r.created_at, "expires_at": r.expires_at,
            "session": r.session.external_id if r.session and r.session.user_id == user.pk else "",
            "types": [hit_type_name(t) for t in r.hit_types.split(",") if t], "preview": r.preview,
        }
        for r in rows
    ]


def export_json(*, user) -> str:
    """The user's export (``profiles.selectors.user_export``) as pretty JSON text (UTF-8, not ASCII-escaped)."""
    from .selectors import user_export

    return json.dumps({"user": user.get_username(), **user_export(user=user)}, ensure_ascii=False, indent=2, default=str)


def export_markdown(*, user) -> str:
    """The user's export as one Markdown document: MEMORY.md, every current item with its
    date and source ids, pending journal count, versions and the kept-out count."""
    from .selectors import user_export

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
    """``consolidation.selectors.snapshot_list`` with ``created_at`` parsed to an aware datetime
    (``{"version", "reason", "created_at", "items": count}``, newest first)."""
    from django.utils.dateparse import parse_datetime

    from consolidation.selectors import snapshot_list

    return [{**v, "created_at": parse_datetime(v["created_at"])} for v in snapshot_list(user=user)]
