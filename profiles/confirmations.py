"""Confirmations of contradictions that matter, held proposals and the list of versions.

Reads only: :func:`pending_confirmations` ("earlier X, now Y — confirm?", for the agent context
and the memory page), :func:`pending_proposals`, :func:`snapshot_list`. The user's answer is a
write: ``profiles.services.confirmation_confirm`` / ``confirmation_reject``. Authorisation is the
caller's job: pass the signed-in / API-resolved user.
"""

from __future__ import annotations

from .models import ConfirmationRequest, ConfirmationStatus, ConsolidationProposal, MemoryDocument, ProposalStatus, Snapshot
from .rendering import detect_language
from .taxonomy import key_label




def confirmation_line(*, key: str, old_value: str, new_value: str, lang: str) -> str:
    """One ready-to-render line: ``城市：之前是北京，现在是深圳——请确认？`` (zh) or
    ``City: earlier Beijing, now Shenzhen — confirm?`` (en)."""
    label = key_label(kind="profile", key=key, lang=lang)
    if lang == "zh":
        return f"{label}：之前是{old_value}，现在是{new_value}——请确认？"
    return f"{label}: earlier {old_value}, now {new_value} — confirm?"


def _user_language(user, values: list[str]) -> str:
    doc = MemoryDocument.objects.filter(user=user).only("markdown").first()
    if doc and doc.markdown:
        return "zh" if doc.markdown.startswith("# 用户记忆") else "en"
    return detect_language(values)


def pending_confirmations(*, user) -> list[dict]:
    """The user's contradictions awaiting confirmation, oldest first.

    Returns ``[{"id": int, "key": str, "old_value": str, "new_value": str,
    "created_at": ISO 8601 str, "lang": "zh"|"en", "line": str, "lines": {"zh": str, "en": str}}]``
    where ``line`` is in the user's memory language. Two queries whatever the count.
    """
    reqs = list(
        ConfirmationRequest.objects.filter(user=user, status=ConfirmationStatus.PENDING)
        .select_related("old_item", "new_item")
        .order_by("created_at", "id")
    )
    if not reqs:
        return []
    lang = _user_language(user, [v for r in reqs for v in (r.old_item.value, r.new_item.value)])
    out = []
    for r in reqs:
        old, new = r.old_item.value, r.new_item.value
        lines = {code: confirmation_line(key=r.key, old_value=old, new_value=new, lang=code) for code in ("zh", "en")}
        out.append({
            "id": r.pk, "key": r.key, "old_value": old, "new_value": new, "created_at": r.created_at.isoformat(),
            "lang": lang, "line": lines[lang], "lines": lines,
        })
    return out


def pending_proposals(*, user=None) -> list[ConsolidationProposal]:
    """Held consolidations awaiting an admin, oldest first (all users when ``user`` is None)."""
    qs = ConsolidationProposal.objects.filter(status=ProposalStatus.PENDING).select_related("user").order_by("created_at")
    return list(qs if user is None else qs.filter(user=user))


def snapshot_list(*, user) -> list[dict]:
    """The user's retained versions, newest first: ``[{"version", "reason", "created_at", "items"}]``
    (``items`` is a count)."""
    return [
        {"version": s.version, "reason": s.reason, "created_at": s.created_at.isoformat(), "items": len(s.items)}
        for s in Snapshot.objects.filter(user=user).order_by("-version")
    ]
