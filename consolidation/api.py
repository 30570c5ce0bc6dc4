"""Ingest API (ingest-scope keys only): the platform posts conversation messages."""

import json

from django.utils import timezone
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles.permissions import HasIngestKey

from .ingest import IncomingMessage, IngestError, messages_ingest, session_end
from .models import MessageRole, Session, SessionKind


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
    role = serializers.ChoiceField(choices=MessageRole.values)
    content = serializers.CharField(max_length=20000, trim_whitespace=False)
    expert = serializers.SlugField(max_length=64, required=False, allow_null=True)
    created_at = serializers.DateTimeField(required=False)


class MessagesIn(StrictSerializer):
    user = serializers.CharField(max_length=150)
    session = serializers.CharField(max_length=128)
    agent = serializers.SlugField(max_length=64, default="main")
    session_kind = serializers.ChoiceField(choices=SessionKind.values, default=SessionKind.CHAT)
    temporary = serializers.BooleanField(default=False)
    end_session = serializers.BooleanField(default=False)
    messages = MessageIn(many=True, allow_empty=False, max_length=500)


class MessagesView(APIView):
    """POST /api/v1/messages — store messages of one session (body: ``MessagesIn``).

    Returns 201 ``{"session", "message_ids", "watermark"}``. With ``end_session``
    true the session is closed and its messages are extracted regardless of the
    throttle. Errors: 400 naming the field; nothing is stored then.
    """

    permission_classes = [HasIngestKey]

    def post(self, request):
        s = MessagesIn(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        try:
            session, stored = messages_ingest(
                user_id=d["user"],
                session_id=d["session"],
                agent=d["agent"],
                session_kind=d["session_kind"],
                temporary=d["temporary"],
                messages=[IncomingMessage(**m) for m in d["messages"]],
                now=timezone.now(),
            )
        except IngestError as exc:
            raise ValidationError({exc.field: [exc.message]}) from exc
        if d["end_session"]:
            session_end(session=session)
        return Response(
            {"session": session.external_id, "message_ids": [m.pk for m in stored], "watermark": session.watermark},
            status=status.HTTP_201_CREATED,
        )


class SessionEndView(APIView):
    """POST /api/v1/sessions/<session>/end — close a session; remaining messages are extracted."""

    permission_classes = [HasIngestKey]

    def post(self, request, session_id: str):
        session = Session.objects.filter(external_id=session_id).first()
        if session is None:
            raise NotFound("unknown session")
        session_end(session=session)
        return Response({"session": session.external_id, "ended_at": session.ended_at}, status=status.HTTP_202_ACCEPTED)
