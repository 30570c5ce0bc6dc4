"""Agent read API (read-scope keys only). Agents never get a write endpoint.

Every request names the ``user`` (platform user id) and the calling ``agent`` (the
entry agent or an expert); a key limited to some agents is refused for the others
(403, field ``agent``). A user id no account has, and a staff or superuser login, are answered
exactly like a platform user with no memory (``profiles.readers``): the reads do not tell which
ids exist. One view per operation, GET only (other methods → 405),
explicit input and output serializers; the OpenAPI schema is at ``/api/v1/schema/``.
The context (``GET /api/v1/context``) needs the session's turns as well as memory: its view is
composed in the top layer (``bizmemory.context_api``) on :class:`ReadView`.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from bizmemory.api import ApiView, ErrorOut, ExternalIdField, FieldNotFound, QueryBooleanField

from .mcp_server import tool_manifest
from .models import MemoryItem, MemoryKind
from .permissions import ApiKeyRateThrottle, HasReadKey, require_agent_allowed
from .search import memory_search
from .ports import conversations
from .readers import (
    ITEMS_LIMIT_DEFAULT,
    ITEMS_LIMIT_MAX,
    READ_REASONS,
    cursor_decode,
    memory_get_answer,
    memory_items_answer,
    nobody_search,
    platform_user,
)


class ReadQuery(serializers.Serializer):
    """Query parameters every read names. Each parameter is given once (a repeated one is a 400
    naming it: ``bizmemory.api.ApiView``); ids are compared exactly and never trimmed."""

    user = ExternalIdField(max_length=150, help_text="Platform user id, compared exactly (case and accents "
                           "matter); never trimmed: leading or trailing whitespace is a 400 naming user. An id "
                           "no account has, or a staff login, reads as a user with no memory.")
    agent = serializers.SlugField(max_length=64, help_text="Calling agent or expert slug (case matters).")
    session = ExternalIdField(max_length=128, required=False,
                              help_text="Current session id, one of this user's (session ids are per user: "
                              "another user's id is unknown here, 404); a temporary session reads nothing.")
    temporary = QueryBooleanField(required=False, default=False,
                                  help_text="The caller is in a temporary session (nothing is read): exactly true "
                                  "or false, default false; anything else (1, yes, True) is a 400 naming temporary.")


def reason_field(reasons: dict[str, str], *, lead: str) -> serializers.ChoiceField:
    """The ``reason`` of a read's answer: an enum in the schema (``READ_REASONS`` /
    ``CONTEXT_REASONS`` of ``profiles.readers``, one vocabulary for HTTP and MCP), each word explained."""
    return serializers.ChoiceField(choices=list(reasons), help_text=lead + " " + "; ".join(
        f"{word}: {meaning}" for word, meaning in reasons.items()) + ".")


class SearchQuery(ReadQuery):
    query = serializers.CharField(max_length=2000, help_text=(
        "A value or a question about a key ('where does the user live', '住在哪'): memory items match the "
        "labels and question words of the keys it asks about (profiles/taxonomy.py) as well as their values. "
        "A hit with no word in common needs BIZMEMORY_SEARCH_VECTOR_ONLY_MIN_SIMILARITY, so an unrelated "
        "query returns no hits."))
    scope = serializers.ChoiceField(choices=["memory", "sessions"], default="memory")
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)
    min_similarity = serializers.FloatField(min_value=-1.0, max_value=1.0, required=False,
                                            help_text="Cosine threshold for vector hits; default per embedder.")


class SearchHitOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Memory item id (scope memory) or message id (scope sessions).")
    kind = serializers.CharField(help_text="profile / preference / fact, or user / assistant for messages.")
    text = serializers.CharField()
    date = serializers.DateTimeField()
    score = serializers.FloatField()
    similarity = serializers.FloatField(allow_null=True)
    lexical = serializers.FloatField()
    session = serializers.CharField(allow_null=True)


class SearchOut(serializers.Serializer):
    scope = serializers.CharField()
    reason = reason_field(READ_REASONS, lead="ok whether or not anything matched (no hits over stored memory is "
                          "ok with hits []); no_memory when nothing is stored in the scope.")
    time_cue = serializers.BooleanField()
    hits = SearchHitOut(many=True)


class MemoryGetQuery(ReadQuery):
    item_id = serializers.IntegerField(min_value=1, required=False)
    from_line = serializers.IntegerField(min_value=1, required=False)
    to_line = serializers.IntegerField(min_value=1, required=False)

    def validate(self, attrs):
        if attrs.get("from_line") and attrs.get("to_line") and attrs["from_line"] > attrs["to_line"]:
            raise ValidationError({"to_line": ["must be >= from_line"]})
        if attrs.get("item_id"):
            for name in ("from_line", "to_line"):
                if attrs.get(name):
                    raise ValidationError({name: ["give either item_id or a line range, not both"]})
        return attrs


class MemoryItemOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    key = serializers.CharField()
    value = serializers.CharField()
    text = serializers.CharField(allow_blank=True, help_text="The item as one line: label, value and, for a fact, "
                                 "its date at the precision it was stated (profiles.item_text).")
    fact_date = serializers.DateField(allow_null=True, help_text="A fact's date; the 1st of the month or 1 January "
                                      "when only the month or the year is known (see fact_precision).")
    fact_precision = serializers.ChoiceField(choices=["year", "month", "day"], allow_null=True,
                                             help_text="How precisely fact_date is known; null without a date.")
    valid_from = serializers.DateTimeField()
    confirmed_at = serializers.DateTimeField()


class MemoryGetOut(serializers.Serializer):
    reason = reason_field(READ_REASONS, lead="ok for an item or a document with lines (a range past its end: ok, "
                          "empty text); no_memory for an empty document, answered exactly as for an unknown user "
                          "(version 0).")
    text = serializers.CharField(allow_blank=True)
    from_line = serializers.IntegerField()
    to_line = serializers.IntegerField()
    total_lines = serializers.IntegerField()
    version = serializers.IntegerField()
    item = MemoryItemOut(allow_null=True)


class CursorField(serializers.CharField):
    """The opaque ``next_cursor`` of a previous page; decodes to the id the next page starts below
    (``profiles.readers.cursor_decode``, shared with the MCP ``memory_items`` tool)."""

    def to_internal_value(self, data):
        try:
            return cursor_decode(super().to_internal_value(data))
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc


class MemoryItemsQuery(ReadQuery):
    kind = serializers.ChoiceField(choices=MemoryKind.values, required=False, help_text="Only items of this kind.")
    key = serializers.CharField(max_length=64, required=False, trim_whitespace=False,
                                help_text="Only items of this key (e.g. city), compared exactly.")
    cursor = CursorField(required=False, help_text="next_cursor of the previous page.")
    limit = serializers.IntegerField(min_value=1, max_value=ITEMS_LIMIT_MAX, default=ITEMS_LIMIT_DEFAULT,
                                     help_text=f"Items per page (1-{ITEMS_LIMIT_MAX}).")


class MemoryItemsOut(serializers.Serializer):
    reason = reason_field(READ_REASONS, lead="ok when the user has current items, even if none is on this page "
                          "(a filter matching nothing); no_memory when the user has none at all.")
    items = MemoryItemOut(many=True)
    next_cursor = serializers.CharField(allow_null=True, help_text="Pass as cursor for the next page; null at the end.")


class ToolFunctionOut(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    parameters = serializers.JSONField()


class ToolOut(serializers.Serializer):
    type = serializers.CharField()
    function = ToolFunctionOut()


class ToolsOut(serializers.Serializer):
    tools = ToolOut(many=True)


class ReadView(ApiView):
    """Base of the agent read views (here and ``bizmemory.context_api``): a read-scope key, its
    rate limit, and :meth:`read_args`. A view that looks the ``session`` up itself sets
    ``check_session`` False."""

    permission_classes = [HasReadKey]
    throttle_classes = [ApiKeyRateThrottle]
    query_serializer: type[ReadQuery] = ReadQuery

    def read_args(self, request) -> tuple[dict, object, bool]:
        """Validate the query string; returns ``(data, user, temporary)``, ``user`` None for an id
        that is no platform user (unknown, or a staff login: ``profiles.readers.platform_user``),
        which the views answer like a user with no memory.

        Raises 400 (bad field; a parameter given twice is refused before, in ``initial``), 403
        (key limited to other agents, field ``agent``) or 404 (a session id this user does not
        have — unknown, another user's, or any for nobody: field ``session``).
        """
        q = self.query_serializer(data=request.query_params)
        q.is_valid(raise_exception=True)
        data = q.validated_data
        require_agent_allowed(request, data["agent"])
        user = platform_user(data["user"])
        temporary = data["temporary"]
        if data.get("session") and self.check_session:
            session_temporary = None if user is None else conversations().session_temporary(
                user_id=user.pk, session_id=data["session"])
            if session_temporary is None:
                raise FieldNotFound("unknown session", field="session")
            temporary = temporary or session_temporary
        return data, user, temporary

    check_session = True


# Error responses of the read endpoints, all ``{"error": {"code", "message", "field"}}``
# (bizmemory.api.exception_handler): bad parameter, key not allowed (scope, agent), unknown
# session / item, rate limit.
READ_ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut}


class MemorySearchView(ReadView):
    """GET /api/v1/memory/search — the ``memory_search`` tool: hybrid search of the user's memory.

    Query: ``SearchQuery``. Returns ``SearchOut`` (at most ``top_k`` hits, best first; session
    texts PII-masked). ``reason`` (``profiles.readers.READ_REASONS``, as the MCP tool says):
    ``ok`` with the hits or none, ``no_memory`` when nothing is stored in the scope (an unknown
    user or a staff login reads exactly the same), or why memory is not read (no hits then).
    """

    query_serializer = SearchQuery

    @extend_schema(operation_id="memory_search", parameters=[SearchQuery], responses={200: SearchOut, **READ_ERRORS})
    def get(self, request):
        data, user, temporary = self.read_args(request)
        if user is None:
            res = nobody_search(query=data["query"], temporary=temporary)
        else:
            res = memory_search(
                user=user, agent_slug=data["agent"], query=data["query"], scope=data["scope"], top_k=data["top_k"],
                min_similarity=data.get("min_similarity"), temporary=temporary,
            )
        return Response(SearchOut({"scope": data["scope"], "reason": res.reason, "time_cue": res.time_cue,
                                   "hits": res.hits}).data)


class MemoryGetView(ReadView):
    """GET /api/v1/memory — the ``memory_get`` tool: MEMORY.md, a line range of it, or one item.

    Query: ``MemoryGetQuery`` (``item_id`` or ``from_line``/``to_line``, 1-based inclusive).
    Returns ``MemoryGetOut``, the body ``profiles.readers.memory_get_answer`` computes (the MCP
    tool returns the same): ``reason`` ``ok``, ``no_memory`` for an empty document, or why memory
    is not read. An unknown, superseded or another user's ``item_id`` → 404 (field ``item_id``).
    """

    query_serializer = MemoryGetQuery

    @extend_schema(operation_id="memory_get", parameters=[MemoryGetQuery], responses={200: MemoryGetOut, **READ_ERRORS})
    def get(self, request):
        data, user, temporary = self.read_args(request)
        try:
            answer = memory_get_answer(
                user=user, agent_slug=data["agent"], temporary=temporary, item_id=data.get("item_id"),
                from_line=data.get("from_line"), to_line=data.get("to_line"),
            )
        except MemoryItem.DoesNotExist as exc:
            raise FieldNotFound("unknown memory item", field="item_id") from exc
        return Response(MemoryGetOut(answer).data)


class MemoryItemsView(ReadView):
    """GET /api/v1/memory/items — the user's current memory items, newest first, a page at a time.

    Query: ``MemoryItemsQuery`` (optional ``kind``, ``key``, ``cursor``, ``limit`` 1-100, default
    50). Returns ``MemoryItemsOut``: ``items`` (text masked as on the way out), ``next_cursor``
    (null on the last page) and ``reason`` — ``ok`` (a page with no items included, e.g. a
    filter matching nothing), ``no_memory`` when the user has no current item at all, or why
    memory is not read (``memory_off``, ``expert_off``, ``temporary_session``: no items then). An
    unknown user or a staff login reads exactly like a user with no memory. Errors: 400 naming the
    field (``cursor`` not from a previous page), 403 (field ``agent``), 404 (``session``), 429.
    """

    query_serializer = MemoryItemsQuery

    @extend_schema(operation_id="memory_items", parameters=[MemoryItemsQuery],
                   responses={200: MemoryItemsOut, **READ_ERRORS})
    def get(self, request):
        data, user, temporary = self.read_args(request)
        answer = memory_items_answer(
            user=user, agent_slug=data["agent"], temporary=temporary, kind=data.get("kind"), key=data.get("key"),
            before_id=data.get("cursor"), limit=data["limit"],
        )
        return Response(MemoryItemsOut(answer).data)


class ToolsView(ApiView):
    """GET /api/v1/tools — the agent tools in OpenAI function-calling format: exactly
    ``memory_search``, ``memory_get`` and ``memory_items`` (no write tool). Read key required."""

    permission_classes = [HasReadKey]
    throttle_classes = [ApiKeyRateThrottle]

    @extend_schema(operation_id="tools_manifest", responses={200: ToolsOut, 403: ErrorOut, 429: ErrorOut})
    def get(self, request):
        return Response(ToolsOut({"tools": tool_manifest()}).data)
