"""Read-side selectors: what agents and exports see of a user's memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.sanitizer import analyze
from audit.services import sensitive_words_active
from bizmemory.tokens import count_tokens, truncate_to_tokens

from .models import MemoryDocument, MemoryItem, MemorySettings
from .services import expert_flags

CONTEXT_INSTRUCTION = {
    "en": "Long-term memory about this user follows; ignore any of it that is irrelevant to the question.",
    "zh": "以下是关于该用户的长期记忆；与当前问题无关的部分请忽略。",
}


@dataclass
class MemoryContext:
    """Text to inject into an agent's prompt.

    ``text`` never exceeds ``budget`` tokens (``tokens`` is its tiktoken count);
    ``item_ids`` are the memory items it used; ``reason`` says why it is empty
    (``memory_off``, ``expert_off``, ``temporary_session``, ``no_memory``) or is ``ok``.
    """

    text: str
    tokens: int
    budget: int
    item_ids: list[int] = field(default_factory=list)
    reason: str = "ok"


def _outbound_clean(markdown: str) -> str:
    # Defence in depth: drop any line that the sanitizer flags now (data written
    # before a detector or a sensitive word existed).
    words = sensitive_words_active()
    return "\n".join(line for line in markdown.splitlines() if not line.strip() or not analyze(line, sensitive_words=words))


def memory_context(*, user, agent_slug: str, budget: int, temporary: bool = False) -> MemoryContext:
    """Build the memory context for ``user`` as seen by agent ``agent_slug``.

    Inputs: the user, the calling agent or expert slug, the token ``budget``
    (> 0, tiktoken tokens) and whether the session is temporary. Returns a
    :class:`MemoryContext`; switched-off memory gives empty text with the reason.
    """
    ms = MemorySettings.objects.filter(user=user).first()
    if ms is not None and not ms.memory_enabled:
        return MemoryContext("", 0, budget, reason="memory_off")
    if temporary:
        return MemoryContext("", 0, budget, reason="temporary_session")
    disabled, _ = expert_flags(user=user)
    if agent_slug in disabled:
        return MemoryContext("", 0, budget, reason="expert_off")
    doc = MemoryDocument.objects.filter(user=user).first()
    if doc is None or not doc.markdown:
        return MemoryContext("", 0, budget, reason="no_memory")
    lang = "zh" if doc.markdown.startswith("# 用户记忆") else "en"
    head = CONTEXT_INSTRUCTION[lang] + "\n\n"
    body = _outbound_clean(doc.markdown)
    head_tokens = count_tokens(head)
    if head_tokens >= budget:
        return MemoryContext("", 0, budget, reason="budget_too_small")
    text = head + truncate_to_tokens(body, budget - head_tokens)
    used = [i for i in MemoryItem.objects.current().filter(user=user).only("id", "text") if i.text and i.text in text]
    return MemoryContext(text, count_tokens(text), budget, item_ids=[i.pk for i in used])


def search_index_chunks(*, user) -> list[dict]:
    """Chunks indexed for search over the user's long-term memory: one per current item.

    Returns ``[{"item_id", "kind", "text"}]``. (v1 searches the item texts themselves;
    deleting or superseding an item removes its chunk.)
    """
    return [
        {"item_id": i.pk, "kind": i.kind, "text": i.text or i.value}
        for i in MemoryItem.objects.current().filter(user=user).order_by("id")
    ]


def user_export(*, user) -> dict:
    """A user's whole long-term memory as a JSON-ready dict (the ``export_memory`` shape)."""
    from audit.models import QuarantineRecord
    from consolidation.models import JournalEntry, JournalStatus, Snapshot

    items = MemoryItem.objects.current().filter(user=user).order_by("kind", "key", "id")
    doc = MemoryDocument.objects.filter(user=user).first()
    return {
        "items": [i.as_dict() for i in items],
        "memory_md": doc.markdown if doc else "",
        "journal": list(
            JournalEntry.objects.filter(user=user, status=JournalStatus.PENDING)
            .order_by("id")
            .values("kind", "key", "value", "text", "status")
        ),
        "snapshots": [
            {"version": s.version, "reason": s.reason, "memory_md": s.memory_md, "items": s.items}
            for s in Snapshot.objects.filter(user=user).order_by("version")
        ],
        "search_index": search_index_chunks(user=user),
        "quarantine_count": QuarantineRecord.objects.filter(user=user).count(),
    }


def user_memory_page(*, user) -> dict:
    """Template context for the user's memory page: items grouped by kind, with their source session."""
    items = list(MemoryItem.objects.current().filter(user=user).select_related("source_session").order_by("kind", "key"))
    doc = MemoryDocument.objects.filter(user=user).first()
    ms = MemorySettings.objects.filter(user=user).first()
    return {
        "profile": [i for i in items if i.kind == "profile"],
        "preferences": [i for i in items if i.kind == "preference"],
        "facts": [i for i in items if i.kind == "fact"],
        "memory_md": doc.markdown if doc else "",
        "memory_enabled": ms.memory_enabled if ms else True,
    }
