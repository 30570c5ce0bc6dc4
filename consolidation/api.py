"""Ingest API (ingest-scope keys only): the platform posts conversation messages."""

import datetime as dt
import json

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response

from bizmemory.api import (
    ApiView,
    AwareDateTimeField,
    ErrorOut,
    ExternalIdField,
    FieldNotFound,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictSlugField,
)
from profiles.permissions import HasIngestKey, require_agent_allowed

from .ingest import (
    DUPLICATE,
    MESSAGE_ID_MAX,
    STORED,
    IncomingMessage,
    IngestConflict,
    IngestError,
    messages_ingest_outcome,
    session_end,
    session_find,
)
from .models import MessageRole, SessionKind


# How far a message's created_at may run ahead of the server's clock (platform clock skew);
# later is refused: it would date memory in the future and push quiet-period jobs out of range.
CLOCK_SKEW = dt.timedelta(minutes=5)


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not declare (a typo must not be silently dropped)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                name = unknown[0]
                # Name odd keys ("" or with spaces) quoted, so the error still points at them.
                raise ValidationError({name if name.isidentifier() else json.dumps(name): ["unknown field"]})
        return super().to_internal_value(data)


class MessageIn(StrictSerializer):
    role = StrictChoiceField(
        choices=MessageRole.values,
        help_text="user, assistant or tool; system and developer (the platform's prompts) are stored "
        "with the session but never read for memory, never indexed for search, never quoted into a "
        "context and never shown to the user. Any other role is a 400 naming messages[i].role.",
    )
    content = StrictCharField(max_length=20000, trim_whitespace=False, help_text="The turn's text: a JSON string.")
    expert = StrictSlugField(max_length=64, required=False, allow_null=True)
    created_at = AwareDateTimeField(
        required=False, help_text="ISO 8601 with a time zone (Z or an offset); a naive date-time is a 400."
    )
    message_id = StrictCharField(
        max_length=MESSAGE_ID_MAX, required=False, allow_null=True, trim_whitespace=False,
        help_text="The platform's id of this message, unique within the session. A message whose id "
        "the session already holds is not stored again (a retried POST is safe); the same id with "
        "other role, content or expert is a 409.",
    )


USER_HELP = (
    "Platform user id, 1-150 characters, compared exactly: case and accents matter (\"alice\" and "
    "\"Alice\" are two users) and it is never trimmed (leading or trailing whitespace is a 400 naming "
    "user). Platform ids are their own namespace: an id equal to a staff login is another, separate user."
)
SESSION_HELP = (
    "The platform's session id, 1-128 characters without '/', whitespace or control characters, "
    "compared exactly. Scoped to the user: the same id under another user is that user's own session."
)


class MessagesIn(StrictSerializer):
    user = ExternalIdField(max_length=150, help_text=USER_HELP)
    session = ExternalIdField(max_length=128, help_text=SESSION_HELP)
    agent = StrictSlugField(max_length=64, default="main")
    session_kind = StrictChoiceField(
        choices=SessionKind.values, default=SessionKind.CHAT,
        help_text="chat or scheduled; fixed when the session is created (a later different one is a 400 naming it).",
    )
    temporary = StrictBooleanField(
        default=False,
        help_text="JSON true or false only; fixed when the session is created (a later different one is a 400 "
        "naming temporary).",
    )
    end_session = StrictBooleanField(default=False, help_text="JSON true or false only.")
    messages = MessageIn(many=True, allow_empty=False, max_length=500)


class MessageResultOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The stored row's id (the earlier row for a duplicate).")
    message_id = serializers.CharField(allow_null=True, help_text="The message_id posted, or null.")
    status = serializers.ChoiceField(
        choices=[STORED, DUPLICATE], help_text="stored: new row; duplicate: the session already held this message_id."
    )


class MessagesOut(serializers.Serializer):
    session = serializers.CharField()
    message_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="One row id per posted message, in order."
    )
    watermark = serializers.IntegerField()
    results = MessageResultOut(many=True, help_text="Per posted message, in order: whether it was stored now.")


class Conflict(APIException):
    """409 naming the request field that conflicts with what is stored (rendered as ``error.field``)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "conflicts with stored data"

    def __init__(self, detail: str, *, field: str):
        super().__init__(detail)
        self.field = field


class MessagesView(ApiView):
    """POST /api/v1/messages — store messages of one session (body: ``MessagesIn``).

    Returns 201 ``{"session", "message_ids", "watermark", "results"}``: one row id and one
    ``{"id", "message_id", "status": "stored" | "duplicate"}`` per posted message, in
    order. A message whose ``message_id`` the session already holds is not stored again
    (a retried POST stores only what is new). With ``end_session`` true the session is
    closed and its messages are extracted regardless of the throttle. Roles: ``user``,
    ``assistant``, ``tool``, ``system``, ``developer``; system and developer turns (the
    platform's prompts) are stored but never read for memory, indexed for search, quoted
    into a context or shown to the user. ``user`` and ``session`` are taken exactly, never
    trimmed (a user id with surrounding whitespace is a 400 naming ``user``), and a session
    id belongs to its user: another user's session with the same id is a separate session,
    never this one (issue 14). Errors: 400 naming
    the field; 409 naming ``messages[i].message_id`` when that id already names a different
    message; nothing of the batch is stored then.
    """

    permission_classes = [HasIngestKey]

    @extend_schema(
        operation_id="messages_create",
        request=MessagesIn,
        responses={201: MessagesOut, 400: ErrorOut, 403: ErrorOut, 409: ErrorOut},
    )
    def post(self, request):
        s = MessagesIn(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        require_agent_allowed(request, d["agent"])
        now = timezone.now()
        for i, m in enumerate(d["messages"]):
            if m.get("created_at") and m["created_at"] > now + CLOCK_SKEW:
                raise ValidationError({f"messages[{i}].created_at": [
                    f"is in the future (more than {int(CLOCK_SKEW.total_seconds())} s after the server's clock)"
                ]})
        try:
            outcome = messages_ingest_outcome(
                user_id=d["user"],
                session_id=d["session"],
                agent=d["agent"],
                session_kind=d["session_kind"],
                temporary=d["temporary"],
                messages=[IncomingMessage(**m) for m in d["messages"]],
                now=now,
            )
        except IngestConflict as exc:
            raise Conflict(exc.message, field=exc.field) from exc
        except IngestError as exc:
            raise ValidationError({exc.field: [exc.message]}) from exc
        session = outcome.session
        if d["end_session"]:
            session_end(session=session)
        return Response(
            {
                "session": session.external_id,
                "message_ids": [m.pk for m in outcome.messages],
                "watermark": session.watermark,
                "results": [
                    {"id": m.pk, "message_id": m.external_id, "status": st}
                    for m, st in zip(outcome.messages, outcome.statuses)
                ],
            },
            status=status.HTTP_201_CREATED,
        )


class SessionEndIn(StrictSerializer):
    user = ExternalIdField(
        max_length=150,
        help_text="The platform user id the session belongs to (required: session ids are unique per user "
        "only), compared exactly and never trimmed. The user's other sessions, and other users' sessions "
        "with the same id, are left alone; an unknown user is answered like an unknown session (404).",
    )


class SessionEndOut(serializers.Serializer):
    session = serializers.CharField()
    ended_at = serializers.DateTimeField(allow_null=True)


class SessionEndView(ApiView):
    """POST /api/v1/sessions/<session>/end — close one of a user's sessions (body: ``SessionEndIn``,
    ``{"user": <platform user id>}``, required).

    Session ids are unique per user (issue 14), so the request names the user and only that
    user's session is ended; its remaining messages are extracted regardless of the throttle.
    Returns 202 ``{"session", "ended_at"}`` (ending an ended session again keeps its first
    ``ended_at``). Errors: 400 naming ``user`` (missing, or with surrounding whitespace); 403
    (not an ingest key, or a key limited to other agents: field ``agent``); 404 naming
    ``session`` when the user has no session with this id — an unknown user and another
    user's session id are answered exactly alike.
    """

    permission_classes = [HasIngestKey]

    @extend_schema(
        operation_id="session_end",
        request=SessionEndIn,
        responses={202: SessionEndOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut},
    )
    def post(self, request, session_id: str):
        s = SessionEndIn(data=request.data)
        s.is_valid(raise_exception=True)
        session = session_find(user_id=s.validated_data["user"], session_id=session_id)
        if session is None:
            raise FieldNotFound("unknown session", field="session")
        require_agent_allowed(request, session.agent.slug)
        session_end(session=session)
        return Response({"session": session.external_id, "ended_at": session.ended_at}, status=status.HTTP_202_ACCEPTED)
