"""The session index: the user's past turns as search chunks for ``memory_search(scope="sessions")``.

Owned by the pipeline, which knows which turns may be a search source (``Message.memory_source``,
set by extraction): it writes the chunks after an extraction commits (:func:`session_index_after_commit`)
and deletes them with their messages (:func:`session_chunks_delete`). The memory store only
reads them (``profiles.search``). Rule: issue 15, "derived state after commit"; issue 14,
"assistant and tool turns are not indexed for search at all": only the user's own turns are
chunks, and their text passes the detector's mask and the masking floor (``audit.floor``) before
it is stored, so neither the served text nor the lexical postings hold a 7+ digit run or an
address. Migration ``consolidation.0012`` brought older chunks to the same rule.
"""

from __future__ import annotations

import functools
import logging

from django.db import transaction
from django.db.models import Max

from audit.floor import mask_floor
from audit.sanitizer import analyze, mask
from profiles import derived
from profiles.models import MemoryVector, VectorSource
from profiles.search import chunks_embed, index_chunks_create

from .models import Message, MessageRole

log = logging.getLogger("bizmemory.session_index")

MESSAGE_CHUNK_CHARS = 2000
INDEX_BATCH = 256


def chunk_text(text: str) -> str:
    """What a user turn becomes as a search chunk: its first :data:`MESSAGE_CHUNK_CHARS`
    characters with the sanitizer's hits masked, then the masking floor (every 7+ digit run,
    every e-mail or handle shape: ``audit.floor.mask_floor``)."""
    text = text[:MESSAGE_CHUNK_CHARS]
    hits = analyze(text)
    return mask_floor(mask(text, hits) if hits else text)


def session_index_refresh(*, user_id: int, batch: int = INDEX_BATCH) -> int:
    """Embed ``user_id``'s messages not yet indexed, oldest first; returns how many were added.

    Indexes the user's own messages only (never assistant or tool turns, never the platform's
    system / developer prompts) that extraction marked as a memory source
    (``Message.memory_source``: not memory-off, temporary, scheduled, excluded-expert,
    quarantined or cleared turns), one chunk per message (:func:`chunk_text`: PII masked, then
    the masking floor). Each batch of ``batch`` messages is one
    transaction, so an interrupted run resumes where it stopped. Raises
    ``profiles.embeddings.EmbedderError`` when the embedder fails.
    """
    last = (
        MemoryVector.objects.filter(user_id=user_id, source=VectorSource.MESSAGE).aggregate(m=Max("message_id"))["m"] or 0
    )
    added = 0
    while True:
        msgs = list(
            Message.objects.filter(
                session__user_id=user_id,
                session__temporary=False,
                memory_source=True,
                role=MessageRole.USER,
                pk__gt=last,
            )
            .order_by("pk")
            .values("pk", "role", "content", "created_at")[:batch]
        )
        if not msgs:
            return added
        # Defence in depth: PII is masked before it is indexed, so a query cannot confirm a
        # guessed number (quarantined turns are not a source at all).
        rows = [
            {"user_id": user_id, "source": VectorSource.MESSAGE, "message_id": m["pk"], "kind": m["role"],
             "text": chunk_text(m["content"]), "date": m["created_at"]}
            for m in msgs
        ]
        embedded = chunks_embed([r["text"] for r in rows])  # before the write transaction
        with transaction.atomic():
            added += index_chunks_create(rows=rows, embedded=embedded)
        last = msgs[-1]["pk"]


def _refresh_quietly(user_id: int) -> None:
    try:
        session_index_refresh(user_id=user_id)
    except Exception:  # noqa: BLE001 — the next extraction or rebuild_embeddings catches up
        log.warning("session index refresh failed for user %s", user_id, exc_info=True)


def session_index_after_commit(*, user_id: int) -> None:
    """Queue :func:`session_index_refresh` for ``user_id`` when the current transaction commits
    (at once when none is open); a failure is logged, never raised."""
    derived.after_commit(functools.partial(_refresh_quietly, user_id))


def session_chunks_delete(*, user_id: int, message_ids: list[int] | None = None) -> int:
    """Delete the user's session chunks — of ``message_ids``, or all of them when None — inside
    the caller's transaction (their postings cascade). Returns the chunks deleted."""
    qs = MemoryVector.objects.filter(user_id=user_id, source=VectorSource.MESSAGE)
    if message_ids is not None:
        qs = qs.filter(message_id__in=list(message_ids))
    return qs.delete()[1].get(MemoryVector._meta.label, 0)
