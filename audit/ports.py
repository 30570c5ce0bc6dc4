"""What quarantine review needs from the pipeline, as an explicit registry.

``audit`` is the leaf app: it imports no other domain app (issue 15). Marking a quarantine
record a false positive re-submits the kept-out message to extraction, and deleting a record
masks the raw message it came from; both touch the pipeline's rows, so ``consolidation``
registers a :class:`QuarantineResubmitter` in its ``AppConfig.ready()``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured


@dataclass
class ResubmitOutcome:
    """``candidates`` extracted, ``dropped`` (refused by ``keep``), the journal entries written
    and ``reason``: ``ok``, ``injection`` (nothing extracted) or ``memory_off`` (nothing written)."""

    candidates: int = 0
    dropped: int = 0
    journal_entry_ids: list[int] = field(default_factory=list)
    reason: str = "ok"


class QuarantineResubmitter(Protocol):
    def resubmit(
        self, *, user_id: int, session_id: int | None, message_ids: list[int], original: str,
        keep: Callable[[str], bool], recorded_at: dt.datetime, now: dt.datetime,
    ) -> ResubmitOutcome:
        """Inside the caller's transaction: extract memory candidates from ``original`` at the
        message time (else ``recorded_at``), keep those whose text and value pass ``keep``,
        journal them with ``message_ids`` as sources and queue consolidation after commit."""

    def messages_redact(self, *, user_id: int, message_ids: list[int]) -> int:
        """Inside the caller's transaction: replace the content of the user's messages
        ``message_ids`` by its sanitizer-masked text (a deleted quarantine record leaves no
        plaintext PII in the raw turn either). Returns the messages changed."""


_resubmitter: QuarantineResubmitter | None = None


def quarantine_resubmitter_register(resubmitter: QuarantineResubmitter) -> None:
    """Install the pipeline's resubmitter (from ``consolidation.apps.ConsolidationConfig.ready``)."""
    global _resubmitter
    _resubmitter = resubmitter


def quarantine_resubmitter() -> QuarantineResubmitter:
    """The registered resubmitter; ``ImproperlyConfigured`` when none is (``consolidation`` missing)."""
    if _resubmitter is None:
        raise ImproperlyConfigured("no quarantine resubmitter registered: add 'consolidation' to INSTALLED_APPS")
    return _resubmitter
