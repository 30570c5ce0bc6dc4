"""The pipeline's side of ``profiles.ports``: what the memory store may ask about conversations.

Registered in :meth:`consolidation.apps.ConsolidationConfig.ready`. Every method is scoped to
one user and runs in the caller's transaction.
"""

from __future__ import annotations

from django.db.models import F, Max
from django.utils import timezone

from profiles.ports import SessionInfo

from .due import extraction_wake
from .models import JournalEntry, JournalStatus, Message, MessageRole, Session
from .session_index import session_chunks_delete


class ConversationPort:
    """Implements :class:`profiles.ports.ConversationPort` over sessions, messages and the journal."""

    def erase(self, *, user_id: int, include_history: bool) -> dict[str, int]:
        """See :meth:`profiles.ports.ConversationPort.erase`."""
        journal = JournalEntry.objects.filter(user_id=user_id).delete()[1].get(JournalEntry._meta.label, 0)
        counts = {"journal": journal, "messages": 0, "sessions": 0}
        session_chunks_delete(user_id=user_id)
        if include_history:
            counts["messages"] = Message.objects.filter(session__user_id=user_id).delete()[1].get(Message._meta.label, 0)
            counts["sessions"] = Session.objects.filter(user_id=user_id).delete()[1].get(Session._meta.label, 0)
            return counts
        # Kept conversations are history only: never a memory or search source again, and no
        # turn said before the clear is extracted after it (every watermark moves past it).
        Message.objects.filter(session__user_id=user_id).exclude(memory_source=False).update(memory_source=False)
        newest = dict(
            Message.objects.filter(session__user_id=user_id).values("session_id").annotate(m=Max("id"))
            .values_list("session_id", "m")
        )
        for session_id, last in newest.items():
            Session.objects.filter(pk=session_id, watermark__lt=last).update(watermark=last)
        return counts

    def extraction_wake(self, *, user_id: int) -> int:
        """See :meth:`profiles.ports.ConversationPort.extraction_wake`."""
        return extraction_wake(user_id=user_id, now=timezone.now())

    def forget_value(self, *, user_id: int, kind: str, value: str, message_ids: list[int]) -> int:
        """See :meth:`profiles.ports.ConversationPort.forget_value`."""
        deleted = JournalEntry.objects.filter(user_id=user_id, kind=kind, value=value).delete()
        if message_ids:
            mine = Message.objects.filter(session__user_id=user_id, pk__in=message_ids)
            mine.exclude(memory_source=False).update(memory_source=False)
            session_chunks_delete(user_id=user_id, message_ids=list(mine.values_list("pk", flat=True)))
        return deleted[1].get(JournalEntry._meta.label, 0)

    def session_temporary(self, *, user_id: int, session_id: str) -> bool | None:
        """See :meth:`profiles.ports.ConversationPort.session_temporary`."""
        return Session.objects.filter(external_id=session_id, user_id=user_id).values_list("temporary", flat=True).first()

    def sessions_info(self, *, user_id: int, session_ids: list[int]) -> dict[int, SessionInfo]:
        """See :meth:`profiles.ports.ConversationPort.sessions_info`."""
        rows = Session.objects.filter(user_id=user_id, pk__in=session_ids).values_list("pk", "external_id", "started_at")
        return {pk: SessionInfo(external_id=ext, started_at=started) for pk, ext, started in rows}

    def source_sentences(self, *, user_id: int, message_ids: list[int]) -> dict[int, str]:
        """See :meth:`profiles.ports.ConversationPort.source_sentences`."""
        rows = Message.objects.filter(pk__in=message_ids, session__user_id=user_id, role=MessageRole.USER)
        return dict(rows.values_list("pk", "content"))

    def message_sessions(self, *, user_id: int, message_ids: list[int]) -> dict[int, str]:
        """See :meth:`profiles.ports.ConversationPort.message_sessions`."""
        rows = Message.objects.filter(pk__in=message_ids, session__user_id=user_id)
        return dict(rows.values_list("pk", F("session__external_id")))

    def pending_journal(self, *, user_id: int) -> list[dict]:
        """See :meth:`profiles.ports.ConversationPort.pending_journal`."""
        return list(
            JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING)
            .order_by("id").values("kind", "key", "value", "text", "status")
        )
