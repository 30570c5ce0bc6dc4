"""The pipeline's side of ``audit.ports``: re-submitting a quarantined message marked a false positive."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from audit.ports import ResubmitOutcome
from audit.sanitizer import analyze, mask
from audit.services import sensitive_words_active
from profiles.models import MemorySettings

from . import extraction_rules
from .journal import journal_append
from .models import Message
from .tasks import enqueue_consolidation


class QuarantineResubmitter:
    """Implements :class:`audit.ports.QuarantineResubmitter` with the extraction rules and the journal."""

    def resubmit(
        self, *, user_id: int, session_id: int | None, message_ids: list[int], original: str,
        keep: Callable[[str], bool], recorded_at: dt.datetime, now: dt.datetime,
    ) -> ResubmitOutcome:
        """See :meth:`audit.ports.QuarantineResubmitter.resubmit`. Candidates come from
        ``extraction_rules.extract_candidates`` at the time of the earliest of ``message_ids``
        (else ``recorded_at``); the journal entries carry ``message_ids`` as their sources."""
        out = ResubmitOutcome()
        if extraction_rules.detect_injection(original):
            out.reason = "injection"
            return out
        enabled = MemorySettings.objects.filter(user_id=user_id).values_list("memory_enabled", flat=True).first()
        if enabled is False:
            out.reason = "memory_off"
            return out
        first = Message.objects.filter(pk__in=message_ids, session__user_id=user_id).order_by("created_at")
        observed_at = first.values_list("created_at", flat=True).first() or recorded_at
        candidates = extraction_rules.extract_candidates(original, at=observed_at)
        survivors = [c for c in candidates if keep(c.text) and keep(c.value)]
        out.candidates, out.dropped = len(candidates), len(candidates) - len(survivors)
        if survivors:
            entries = journal_append(
                user_id=user_id, session_id=session_id, candidates=survivors,
                source_message_ids=list(message_ids), observed_at=observed_at, now=now,
            )
            out.journal_entry_ids = [e.pk for e in entries]
            if entries:
                enqueue_consolidation(user_id=user_id)
        return out

    def messages_redact(self, *, user_id: int, message_ids: list[int]) -> int:
        """See :meth:`audit.ports.QuarantineResubmitter.messages_redact` (the sensitive words in
        force now are masked too)."""
        words = sensitive_words_active()
        changed = 0
        for message in Message.objects.filter(session__user_id=user_id, pk__in=list(message_ids)).only("id", "content"):
            hits = analyze(message.content, sensitive_words=words)
            if hits:
                Message.objects.filter(pk=message.pk).update(content=mask(message.content, hits))
                changed += 1
        return changed
