"""Ingest service: the platform's conversation messages enter here.

Shared by the ingest API, the ``replay`` command and tests.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from profiles.services import agent_ensure, user_ensure

from .models import Message, MessageRole, Session, SessionKind


class IngestError(ValueError):
    """Bad ingest input; ``field`` names the offending field (for a 400 body or a CLI message)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class IncomingMessage:
    """One message as the platform sends it. ``created_at`` defaults to the ingest time."""

    role: str
    content: str
    expert: str | None = None
    created_at: dt.datetime | None = None


def _validate(messages: list[IncomingMessage]) -> None:
    if not messages:
        raise IngestError("messages", "at least one message is required")
    for i, m in enumerate(messages):
        if m.role not in MessageRole.values:
            raise IngestError(f"messages[{i}].role", f"must be one of {MessageRole.values}")
        if not isinstance(m.content, str) or not m.content.strip():
            raise IngestError(f"messages[{i}].content", "must be a non-empty string")
        if m.role == MessageRole.USER and m.expert:
            raise IngestError(f"messages[{i}].expert", "user messages carry no expert")


@transaction.atomic
def messages_ingest(
    *,
    user_id: str,
    session_id: str,
    messages: list[IncomingMessage],
    agent: str = "main",
    session_kind: str = SessionKind.CHAT,
    temporary: bool = False,
    now: dt.datetime | None = None,
    enqueue: bool = True,
) -> tuple[Session, list[Message]]:
    """Store ``messages`` for a session, creating user, agent and session on first sight.

    Inputs: platform ids (``user_id``, ``session_id``, ``agent`` slug), the session
    kind (``chat``/``scheduled``) and whether it is ``temporary``. Returns the
    session and the stored messages in order. When ``enqueue`` is true an
    extraction job is queued after commit (the job applies the throttle).
    Raises ``IngestError`` (with the field) on bad input; nothing is stored then.
    """
    now = now or timezone.now()
    _validate(messages)
    if session_kind not in SessionKind.values:
        raise IngestError("session_kind", f"must be one of {SessionKind.values}")
    if not session_id or len(session_id) > 128:
        raise IngestError("session", "must be 1-128 characters")
    try:
        user = user_ensure(external_id=user_id)
    except ValueError as exc:
        raise IngestError("user", str(exc)) from exc
    owner = agent_ensure(slug=agent, is_entry=(agent == "main"))
    session, created = Session.objects.get_or_create(
        external_id=session_id,
        defaults={"user": user, "agent": owner, "kind": session_kind, "temporary": temporary, "started_at": now},
    )
    if session.user_id != user.pk:
        raise IngestError("session", "belongs to another user")
    if not created and (session.kind != session_kind or session.temporary != temporary):
        raise IngestError("session_kind", "differs from the kind the session was created with")
    experts = {}
    stored = []
    for m in messages:
        expert = None
        if m.expert:
            expert = experts.get(m.expert) or agent_ensure(slug=m.expert)
            experts[m.expert] = expert
        stored.append(
            Message(session=session, role=m.role, content=m.content, expert=expert, created_at=m.created_at or now)
        )
    # Created one by one so ids are known on every backend (MySQL returns none from bulk_create).
    for msg in stored:
        msg.save()
    if enqueue:
        from .tasks import enqueue_extraction

        enqueue_extraction(session_id=session.pk, trigger="ingest")
    return session, stored


@transaction.atomic
def session_end(*, session: Session, now: dt.datetime | None = None, enqueue: bool = True) -> Session:
    """Mark a session ended; its remaining messages are extracted regardless of the throttle."""
    now = now or timezone.now()
    Session.objects.filter(pk=session.pk, ended_at__isnull=True).update(ended_at=now)
    session.refresh_from_db(fields=["ended_at"])
    if enqueue:
        from .tasks import enqueue_extraction

        enqueue_extraction(session_id=session.pk, trigger="session_end")
    return session
