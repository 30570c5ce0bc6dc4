"""Journal service: clean candidate memories waiting for consolidation."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from bizmemory.tokens import count_tokens

from .due import consolidation_due_mark
from .models import JournalEntry


def journal_append(
    *, user_id: int, session_id: int | None, candidates: Iterable, source_message_ids: list[int],
    observed_at: dt.datetime, now: dt.datetime,
) -> list[JournalEntry]:
    """Write one pending journal entry per candidate; returns the saved entries.

    ``candidates`` are ``extraction_rules.Candidate`` objects that already passed
    the sanitizer; ``observed_at`` is when the user said it (the message time);
    each entry's ``tokens`` is the tiktoken count of its text (consolidation
    batches are budgeted by it). Call inside the caller's transaction: when it writes an
    entry, the user becomes due for consolidation in that transaction (``consolidation.due``).
    """
    entries = []
    for cand in candidates:
        entry = JournalEntry(
            user_id=user_id,
            session_id=session_id,
            kind=cand.kind,
            key=cand.key[:64],
            value=cand.value[:255],
            text=cand.text,
            operation=cand.operation,
            source_message_ids=list(source_message_ids),
            fact_date=cand.fact_date,
            stage=(getattr(cand, "stage", "") or "")[:64],
            observed_at=observed_at,
            tokens=count_tokens(cand.text),
            created_at=now,
        )
        entry.save()
        entries.append(entry)
    if entries:
        consolidation_due_mark(user_id=user_id, now=now)
    return entries
