"""Ingest service: the platform's conversation messages enter here.

Shared by the ingest API, the ``replay`` command and tests.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from profiles.services import agent_ensure, user_ensure

from .due import extraction_due_mark
from .models import Message, MessageRole, Session, SessionKind


MESSAGE_ID_MAX = 128
_BAD_SESSION_CHARS = re.compile(r"[/\s\x00-\x1f\x7f]")
STORED = "stored"
DUPLICATE = "duplicate"


class IngestError(ValueError):
    """Bad ingest input; ``field`` names the offending field (for a 400 body or a CLI message)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class IngestConflict(IngestError):
    """A ``message_id`` already names a different message in the session (the API's 409).

    ``field`` is ``messages[i].message_id`` of the first offending message; nothing of the
    batch is stored.
    """


@dataclass(frozen=True)
class IncomingMessage:
    """One message as the platform sends it. ``created_at`` defaults to the ingest time.

    ``message_id`` is the platform's optional id of the message (1-128 characters,
    compared exactly): a message whose id the session already holds is not stored again.
    """

    role: str
    content: str
    expert: str | None = None
    created_at: dt.datetime | None = None
    message_id: str | None = None


@dataclass(frozen=True)
class IngestOutcome:
    """What one ingest did, per incoming message in order.

    ``messages[i]`` is the row for ``incoming[i]``: the new row when ``statuses[i]`` is
    ``"stored"``, the row stored earlier under the same ``message_id`` when it is
    ``"duplicate"``.
    """

    session: Session
    messages: list[Message]
    statuses: list[str]

    @property
    def stored(self) -> list[Message]:
        """The rows this ingest created, in order."""
        return [m for m, st in zip(self.messages, self.statuses) if st == STORED]


def _validate(messages: list[IncomingMessage]) -> None:
    if not messages:
        raise IngestError("messages", "at least one message is required")
    for i, m in enumerate(messages):
        # system / developer turns (the platform's prompts) are stored but never read for
        # memory, indexed or shown to the user (consolidation.models.INSTRUCTION_ROLES).
        if m.role not in MessageRole.values:
            raise IngestError(f"messages[{i}].role", f"must be one of {MessageRole.values}")
        if not isinstance(m.content, str) or not m.content.strip():
            raise IngestError(f"messages[{i}].content", "must be a non-empty string")
        if m.role == MessageRole.USER and m.expert:
            raise IngestError(f"messages[{i}].expert", "user messages carry no expert")
        if m.message_id is not None and (
            not isinstance(m.message_id, str) or not 1 <= len(m.message_id) <= MESSAGE_ID_MAX or "\x00" in m.message_id
        ):
            raise IngestError(f"messages[{i}].message_id", f"must be a string of 1-{MESSAGE_ID_MAX} characters")


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
    kind (``chat``/``scheduled``) and whether it is ``temporary``. Ids are taken exactly,
    never trimmed (issue 14): a user id with surrounding whitespace or a session id with
    whitespace, ``/`` or control characters is an ``IngestError``. Session ids are scoped to
    the user: the same ``session_id`` under another user is that user's own session. A message's role is
    ``user``, ``assistant``, ``tool``, ``system`` or ``developer``; system and developer
    turns are stored but are never a memory source (extraction skips them). Returns the
    session and the messages this call stored, in order (a message whose
    ``message_id`` the session already holds is skipped: see
    :func:`messages_ingest_outcome` for the per-message result). When ``enqueue``
    is true an extraction job is queued after commit (the job applies the throttle).
    Raises ``IngestError`` (with the field) on bad input and ``IngestConflict`` when a
    ``message_id`` names a different message; nothing is stored then.
    """
    outcome = messages_ingest_outcome(
        user_id=user_id, session_id=session_id, messages=messages, agent=agent,
        session_kind=session_kind, temporary=temporary, now=now, enqueue=enqueue,
    )
    return outcome.session, outcome.stored


# A concurrent ingest can win a unique index first (the session, the user or a message id);
# the losing transaction is rolled back and run again, and then sees the winner's rows.
_ATTEMPTS = 3


def messages_ingest_outcome(
    *,
    user_id: str,
    session_id: str,
    messages: list[IncomingMessage],
    agent: str = "main",
    session_kind: str = SessionKind.CHAT,
    temporary: bool = False,
    now: dt.datetime | None = None,
    enqueue: bool = True,
) -> IngestOutcome:
    """:func:`messages_ingest` with the result per incoming message (an ``IngestOutcome``).

    Idempotent per ``message_id``: re-posting a message whose id the session holds stores
    nothing and reports ``"duplicate"`` with the earlier row; the new messages of a
    partly-retried batch are stored in order, all in one transaction. The same id with a
    different role, content or expert (earlier, or twice in the batch) raises
    ``IngestConflict`` naming ``messages[i].message_id`` and stores nothing of the batch.
    ``created_at`` is not compared (a retry may stamp a new time; the first one is kept).
    Concurrent posts of the same ids store one copy: the session row is locked while ids
    are checked, and a transaction that loses a unique index to another one is retried
    (up to 3 attempts, then the ``IntegrityError`` propagates).
    """
    now = now or timezone.now()
    _validate(messages)
    for attempt in range(_ATTEMPTS):
        try:
            with transaction.atomic():
                return _ingest_once(
                    user_id=user_id, session_id=session_id, messages=messages, agent=agent,
                    session_kind=session_kind, temporary=temporary, now=now, enqueue=enqueue,
                )
        except IntegrityError:
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _ingest_once(*, user_id, session_id, messages, agent, session_kind, temporary, now, enqueue) -> IngestOutcome:
    if session_kind not in SessionKind.values:
        raise IngestError("session_kind", f"must be one of {SessionKind.values}")
    if not session_id or len(session_id) > 128:
        raise IngestError("session", "must be 1-128 characters")
    if _BAD_SESSION_CHARS.search(session_id):
        # The id is a path segment of /api/v1/sessions/<session>/end: no "/" or whitespace.
        raise IngestError("session", "must not contain '/', whitespace or control characters")
    try:
        user = user_ensure(external_id=user_id)
    except ValueError as exc:
        raise IngestError("user", str(exc)) from exc
    if user.is_staff or user.is_superuser:
        # Platform ids are their own namespace (a staff login of the same name is another
        # account), so only an operator who made a platform user's own account staff reaches
        # this: still never file a conversation, and so memory, under a staff account.
        raise IngestError("user", "this platform user's account was made a staff account; memory is kept for platform end users only")
    owner = agent_ensure(slug=agent, is_entry=(agent == "main"))
    # Session ids are the user's own namespace: another user's "s1" is another session, and
    # nothing here tells the caller that it exists.
    session, created = Session.objects.get_or_create(
        user=user, external_id=session_id,
        defaults={"agent": owner, "kind": session_kind, "temporary": temporary, "started_at": now},
    )
    # Name the attribute that differs, as the client sent it (issue 15: a temporary mismatch
    # used to name session_kind, a field the client never sent).
    if not created and session.kind != session_kind:
        raise IngestError("session_kind", f"differs from the session's kind ({session.kind!r}) when it was created")
    if not created and session.temporary != temporary:
        raise IngestError(
            "temporary", f"differs from the session as created (temporary: {str(session.temporary).lower()})"
        )
    ids = sorted({m.message_id for m in messages if m.message_id is not None})
    # message id -> the row holding it (earlier ingests, then this batch as it is stored).
    held: dict[str, Message] = {}
    if ids:
        # Serialise ingests of this session that carry ids (SQLite already holds the write
        # lock: BEGIN IMMEDIATE). Locking reads also see rows committed after this
        # transaction's snapshot on MariaDB's REPEATABLE READ.
        Session.objects.select_for_update().filter(pk=session.pk).values_list("pk").get()
        rows = Message.objects.select_for_update().filter(session=session, external_id__in=ids)
        held = {m.external_id: m for m in rows if m.external_id in ids}
    experts = {}
    out: list[Message] = []
    statuses: list[str] = []
    for i, m in enumerate(messages):
        expert = None
        if m.expert:
            expert = experts.get(m.expert) or agent_ensure(slug=m.expert)
            experts[m.expert] = expert
        earlier = held.get(m.message_id) if m.message_id is not None else None
        if earlier is not None:
            if (earlier.role, earlier.content, earlier.expert_id) != (m.role, m.content, expert.pk if expert else None):
                raise IngestConflict(
                    f"messages[{i}].message_id", "already names a different message in this session"
                )
            out.append(earlier)
            statuses.append(DUPLICATE)
            continue
        # Saved one by one so ids are known on every backend (MySQL returns none from bulk_create).
        msg = Message.objects.create(
            session=session, role=m.role, content=m.content, expert=expert,
            created_at=m.created_at or now, external_id=m.message_id,
        )
        if m.message_id is not None:
            held[m.message_id] = msg
        out.append(msg)
        statuses.append(STORED)
    stored = [msg for msg, status in zip(out, statuses) if status == STORED]
    if stored:
        # Due work is recorded with the turns, in this transaction (consolidation.due): the
        # fast path below may be lost with the broker; the sweep finds the session anyway.
        users = [msg.pk for msg in stored if msg.role == MessageRole.USER]
        useful = extraction_due_mark(session_id=session.pk, now=now, user_turn_id=max(users) if users else None)
        if enqueue and useful:
            from .tasks import enqueue_extraction

            enqueue_extraction(session_id=session.pk, trigger="ingest")
    return IngestOutcome(session=session, messages=out, statuses=statuses)


def session_find(*, user_id: str, session_id: str) -> Session | None:
    """The session the platform calls ``session_id`` for its user ``user_id``, or None.

    Inputs: the platform's user id and session id, both compared exactly. Session ids are
    unique per user only (issue 14), so the lookup always names the user: an unknown user,
    an unknown id and another user's id all give None, and the caller answers them alike.
    """
    return (
        Session.objects.select_related("agent")
        .filter(user__platform_identity__external_id=user_id, external_id=session_id)
        .first()
    )


@transaction.atomic
def session_end(*, session: Session, now: dt.datetime | None = None, enqueue: bool = True) -> Session:
    """Mark a session ended; its remaining messages are extracted regardless of the throttle."""
    now = now or timezone.now()
    Session.objects.filter(pk=session.pk, ended_at__isnull=True).update(ended_at=now)
    session.refresh_from_db(fields=["ended_at"])
    extraction_due_mark(session_id=session.pk, now=now, final=True)
    if enqueue:
        from .tasks import enqueue_extraction

        enqueue_extraction(session_id=session.pk, trigger="session_end")
    return session
