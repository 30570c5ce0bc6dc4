"""What the memory store needs from the conversation pipeline, as an explicit registry.

``profiles`` (the memory store) sits below ``consolidation`` (the pipeline): it never imports
it (issue 15, "dependencies run one way"). The few places where the store's services need
conversation data — clear-all erasing the journal and the history, a user's delete reaching
the journal, the read views' check of a session, the memory page's source sentences — go
through the :class:`ConversationPort` defined here, which ``consolidation`` registers in
its ``AppConfig.ready()`` (``consolidation.ports``). With no port registered, the store's
services refuse to run (:func:`conversations` raises ``ImproperlyConfigured``): there is no
"not installed" build that silently skips erasure. Reads that need conversations and memory
together are composed in the top layer instead (the context of a session:
``bizmemory.context.agent_context``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class SessionInfo:
    """A session as the memory page names it: platform id and start time."""

    external_id: str
    started_at: dt.datetime


class ConversationPort(Protocol):
    """The pipeline's side of the registry; every method is keyword-only and scoped to one user."""

    def erase(self, *, user_id: int, include_history: bool) -> dict[str, int]:
        """Inside the caller's transaction: delete the user's journal; with ``include_history``
        also their sessions and messages, else mark every kept turn as history only (never a
        memory or search source again) and advance every watermark past it. Returns
        ``{"journal", "sessions", "messages"}`` → rows deleted."""

    def forget_value(self, *, user_id: int, kind: str, value: str, message_ids: list[int]) -> int:
        """Inside the caller's transaction: delete the user's journal entries (pending or
        archived) carrying ``kind`` and ``value``, so no later consolidation brings the value
        back, and take the user's messages ``message_ids`` (the item's sources) out of session
        search. Returns the journal entries deleted."""

    def session_temporary(self, *, user_id: int, session_id: str) -> bool | None:
        """Whether the user's session ``session_id`` (platform id) is temporary; None when the user
        has none by that id."""

    def sessions_info(self, *, user_id: int, session_ids: list[int]) -> dict[int, SessionInfo]:
        """``{session pk: SessionInfo}`` for those of ``session_ids`` that are the user's."""

    def source_sentences(self, *, user_id: int, message_ids: list[int]) -> dict[int, str]:
        """``{message id: content}`` of the user's own (role ``user``) messages among ``message_ids``."""

    def message_sessions(self, *, user_id: int, message_ids: list[int]) -> dict[int, str]:
        """``{message id: platform session id}`` for those of ``message_ids`` that are the user's."""

    def pending_journal(self, *, user_id: int) -> list[dict]:
        """The user's pending journal entries as export dicts, in id order."""

    def extraction_wake(self, *, user_id: int) -> int:
        """Inside the caller's transaction: make every session of the user with turns past its
        watermark due for extraction now (the extraction policy changed from ``never``, whose
        sessions are parked). Returns how many sessions became due."""


_port: ConversationPort | None = None


def conversations_register(port: ConversationPort) -> None:
    """Install the pipeline's port (called once from ``consolidation.apps.ConsolidationConfig.ready``)."""
    global _port
    _port = port


def conversations() -> ConversationPort:
    """The registered :class:`ConversationPort`. Raises ``ImproperlyConfigured`` when none is
    registered (the ``consolidation`` app is not in ``INSTALLED_APPS``)."""
    if _port is None:
        raise ImproperlyConfigured("no conversation port registered: add 'consolidation' to INSTALLED_APPS")
    return _port
