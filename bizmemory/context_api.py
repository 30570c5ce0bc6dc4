"""``GET /api/v1/context``: the memory text an agent injects, with the current session's turns.

The view sits in the top layer because its answer needs both the memory store and the pipeline
(``bizmemory.context.agent_context``); its query, keys, rate limit and errors are those of every
agent read (``profiles.api.ReadView``).
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from bizmemory.api import FieldNotFound
from profiles.api import READ_ERRORS, ReadQuery, ReadView, reason_field
from profiles.readers import CONTEXT_REASONS
from profiles.selectors import SessionNotFound

from .context import agent_context


class ContextQuery(ReadQuery):
    budget = serializers.IntegerField(min_value=1, max_value=32000, required=False,
                                      help_text="Token budget (tiktoken); default BIZMEMORY_CONTEXT_DEFAULT_TOKENS.")
    query = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                  help_text="The user's current question: facts are ranked by relevance to it.")


class ContextOut(serializers.Serializer):
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    budget = serializers.IntegerField()
    item_ids = serializers.ListField(child=serializers.IntegerField())
    message_ids = serializers.ListField(child=serializers.IntegerField())
    sections = serializers.DictField(child=serializers.IntegerField())
    reason = reason_field(CONTEXT_REASONS, lead="ok when text holds memory, else why it is empty (no_memory: no "
                          "current item, pending confirmation or session turn).")


class ContextView(ReadView):
    """GET /api/v1/context — the memory text to inject into the agent's prompt.

    Query: ``ContextQuery`` (``user``, ``agent``, optional ``query``, ``budget`` in
    tiktoken tokens, ``session``, ``temporary``). Returns ``ContextOut``: ``text`` never
    over ``budget``, with the items and session turns used, or empty with ``reason``
    (``memory_off``, ``expert_off``, ``temporary_session``, ``no_memory``,
    ``budget_too_small``). Errors: 400 / 403 / 404 naming the field (``session``); an unknown
    user is a user with no memory (``no_memory``).
    """

    query_serializer = ContextQuery
    check_session = False  # agent_context checks ownership and temporariness with the window it reads

    @extend_schema(operation_id="context", parameters=[ContextQuery], responses={200: ContextOut, **READ_ERRORS})
    def get(self, request):
        data, user, temporary = self.read_args(request)
        budget = data.get("budget") or settings.BIZMEMORY["CONTEXT_DEFAULT_TOKENS"]
        try:
            ctx = agent_context(
                user=user, agent_slug=data["agent"], budget=budget, query=data.get("query") or "",
                session_id=data.get("session"), temporary=temporary,
            )
        except SessionNotFound as exc:
            raise FieldNotFound("unknown session", field="session") from exc
        return Response(ContextOut(ctx).data)
