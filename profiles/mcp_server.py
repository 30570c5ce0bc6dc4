"""The agent tools — ``memory_search``, ``memory_get`` and ``memory_items``, all read-only.

One definition serves the tools manifest (``GET /api/v1/tools``, OpenAI
function-calling format) and the MCP server (the official ``mcp`` Python SDK,
``MCPServer``, stdio transport: ``manage.py mcp_server --user U --agent A``).
There is no write tool: agents read memory; only the platform's extraction and
consolidation write it (issue #6). ``memory_get`` and ``memory_items`` return exactly what
their HTTP endpoints (``GET /api/v1/memory``, ``GET /api/v1/memory/items``) answer for the same
state: both surfaces call ``profiles.readers.memory_get_answer`` / ``memory_items_answer``;
``memory_search`` gives the ``reason`` and hits its endpoint gives (both call
``profiles.search.memory_search`` or ``profiles.readers.nobody_search``). Every ``reason`` word is
one of ``profiles.readers.READ_REASONS``.

A server is bound to one user id, one calling agent and one read-scope API key when it
starts, so a tool call can never name another user. Like the HTTP API it needs the key, and
checks it again on every call (a key revoked or expired meanwhile ends the access); the user id
is looked up on every call too (``profiles.readers.platform_user``): an id no account has yet is
answered like a user with no memory, and a staff or superuser login never (the command refuses
one at start). Calls received before stdin closes are all answered before the server exits
(``profiles.mcp_stdio``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from .models import MemoryKind
from .readers import ITEMS_LIMIT_DEFAULT, ITEMS_LIMIT_MAX

SEARCH_DESCRIPTION = (
    "Search the user's long-term memory (scope 'memory': profile, preferences, dated facts) or their past "
    "conversation messages (scope 'sessions'). Hybrid lexical + semantic retrieval; works in Chinese and English. "
    "Returns ids, kinds, dates, scores and texts, best first. Older results rank lower unless the query "
    "mentions the past ('之前', '去年', 'last month'). Questions about a kind of memory work ('where does the "
    "user live', '住在哪', '做什么的'); a query that matches nothing stored returns no results. reason is 'ok' "
    "(with results or none), 'no_memory' (nothing stored to search) or why memory may not be read now."
)
GET_DESCRIPTION = (
    "Read the user's memory document (MEMORY.md): all of it, or a line range (from_line..to_line, 1-based, "
    "inclusive), or one memory item by its id (from memory_search results). reason is 'ok', 'no_memory' "
    "(nothing stored) or why memory may not be read now."
)
ITEMS_DESCRIPTION = (
    "List the user's current memory items as structured records (id, kind, key, value, text, dates), newest "
    "first, a page at a time; optionally only one kind (profile / preference / fact) or one key (e.g. 'city'). "
    "Pass next_cursor back as cursor for the next page; it is null on the last page. reason is 'ok' (even for a "
    "page with no items), 'no_memory' (nothing stored) or why memory may not be read now."
)

SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for: a value or a question, in Chinese or English."},
        "scope": {"type": "string", "enum": ["memory", "sessions"], "default": "memory",
                  "description": "'memory' = long-term items (default); 'sessions' = past messages (PII masked)."},
        "top_k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5, "description": "How many results."},
    },
    "required": ["query"],
    "additionalProperties": False,
}
GET_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "item_id": {"type": "integer", "minimum": 1, "description": "Return this memory item only."},
        "from_line": {"type": "integer", "minimum": 1, "description": "First line of MEMORY.md to return."},
        "to_line": {"type": "integer", "minimum": 1, "description": "Last line of MEMORY.md to return."},
    },
    "required": [],
    "additionalProperties": False,
}
ITEMS_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": list(MemoryKind.values), "description": "Only items of this kind."},
        "key": {"type": "string", "maxLength": 64, "description": "Only items of this key (e.g. 'city'), exact."},
        "cursor": {"type": "string", "description": "next_cursor of the previous page, unchanged."},
        "limit": {"type": "integer", "minimum": 1, "maximum": ITEMS_LIMIT_MAX, "default": ITEMS_LIMIT_DEFAULT,
                  "description": "Items per page."},
    },
    "required": [],
    "additionalProperties": False,
}
TOOLS = (
    ("memory_search", SEARCH_DESCRIPTION, SEARCH_PARAMETERS),
    ("memory_get", GET_DESCRIPTION, GET_PARAMETERS),
    ("memory_items", ITEMS_DESCRIPTION, ITEMS_PARAMETERS),
)
TOOL_NAMES = tuple(name for name, _, _ in TOOLS)


def tool_manifest() -> list[dict]:
    """The agent tools in OpenAI function-calling format:
    ``[{"type": "function", "function": {"name", "description", "parameters"}}]`` — exactly
    ``memory_search``, ``memory_get`` and ``memory_items``, all read-only."""
    return [{"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
            for name, description, parameters in TOOLS]


from mcp.server.mcpserver.exceptions import ToolError as SDKToolError  # noqa: E402

class ToolError(SDKToolError, ValueError):
    """A tool call with bad arguments or naming something that does not exist (message says which).

    It subclasses the SDK's ToolError so the MCP server hands the message to the agent as the
    tool's error result instead of a generic "Error executing tool"."""


def _arguments(name: str, arguments: dict | None, parameters: dict) -> dict:
    args = dict(arguments or {})
    unknown = set(args) - set(parameters["properties"])
    if unknown:
        raise ToolError(f"{name}: unknown argument(s): {sorted(unknown)}")
    return args


def _search(args: dict, *, user, agent_slug: str) -> dict:
    from .readers import nobody_search
    from .search import memory_search

    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolError("query: a non-empty string is required")
    scope = args.get("scope", "memory")
    top_k = args.get("top_k", 5)
    if scope not in ("memory", "sessions") or not isinstance(top_k, int) or not 1 <= top_k <= 50:
        raise ToolError("scope must be 'memory' or 'sessions' and top_k an integer 1-50")
    if user is None:
        res = nobody_search(query=query)
    else:
        res = memory_search(user=user, agent_slug=agent_slug, query=query, scope=scope, top_k=top_k)
    return {"reason": res.reason, "time_cue": res.time_cue, "hits": [
        {"id": h.id, "kind": h.kind, "text": h.text, "date": h.date.isoformat(), "score": round(h.score, 6),
         "similarity": None if h.similarity is None else round(h.similarity, 4), "lexical": round(h.lexical, 4),
         "session": h.session}
        for h in res.hits
    ]}


def _positive_int(args: dict, name: str, *, maximum: int | None = None) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (maximum and value > maximum):
        raise ToolError(f"{name}: an integer {'1-' + str(maximum) if maximum else '>= 1'} is required")
    return value


def _get(args: dict, *, user, agent_slug: str) -> dict:
    from .models import MemoryItem
    from .readers import memory_get_answer

    item_id, from_line, to_line = (_positive_int(args, n) for n in ("item_id", "from_line", "to_line"))
    if item_id and (from_line or to_line):
        raise ToolError("give either item_id or a line range, not both")
    try:
        return memory_get_answer(user=user, agent_slug=agent_slug, item_id=item_id,
                                 from_line=from_line, to_line=to_line)
    except MemoryItem.DoesNotExist as exc:
        raise ToolError(f"item_id: no memory item {item_id!r}") from exc
    except ValueError as exc:
        raise ToolError(f"to_line: {exc}") from exc


def _items(args: dict, *, user, agent_slug: str) -> dict:
    from .readers import cursor_decode, memory_items_answer

    kind, key, cursor = args.get("kind"), args.get("key"), args.get("cursor")
    if kind is not None and kind not in MemoryKind.values:
        raise ToolError(f"kind: one of {', '.join(MemoryKind.values)}")
    if key is not None and (not isinstance(key, str) or not key or len(key) > 64):
        raise ToolError("key: a string of 1-64 characters is required")
    limit = _positive_int(args, "limit", maximum=ITEMS_LIMIT_MAX) or ITEMS_LIMIT_DEFAULT
    try:
        before_id = None if cursor is None else cursor_decode(cursor)
    except ValueError as exc:
        raise ToolError(f"cursor: {exc}") from exc
    return memory_items_answer(user=user, agent_slug=agent_slug, kind=kind, key=key, before_id=before_id, limit=limit)


_RUN = {"memory_search": _search, "memory_get": _get, "memory_items": _items}


def tool_call(name: str, arguments: dict, *, user, agent_slug: str) -> dict:
    """Run agent tool ``name`` with ``arguments`` for ``user`` as ``agent_slug``; returns a JSON-ready dict.

    ``memory_search`` → ``{"reason", "time_cue", "hits": [{"id", "kind", "text", "date", "score",
    "similarity", "lexical", "session"}]}``; ``memory_get`` → ``{"reason", "text", "from_line",
    "to_line", "total_lines", "version", "item"}`` and ``memory_items`` → ``{"reason", "items",
    "next_cursor"}``, each exactly what its HTTP endpoint answers (``profiles.readers``).
    ``user`` None (no platform user has the id, or it is a staff login) is answered like a user
    with no memory. Raises :class:`ToolError` for an unknown tool, an unknown or bad argument
    (the message names it), an unknown item id or a cursor not from a previous page.
    """
    if name not in _RUN:
        raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    parameters = next(p for n, _, p in TOOLS if n == name)
    return _RUN[name](_arguments(name, arguments, parameters), user=user, agent_slug=agent_slug)


def bound_call(name: str, arguments: dict, *, username: str, agent_slug: str, api_key: str) -> dict:
    """One tool call of a server bound to ``username``, ``agent_slug`` and ``api_key`` (plain text):
    the key is checked again (:func:`profiles.permissions.read_key_refusal`; a refusal is a
    :class:`ToolError` naming it), the call counted against the key's read rate limit (shared with
    its HTTP requests; over it, a :class:`ToolError` saying when to retry) and the user looked up (:func:`profiles.readers.platform_user`),
    then :func:`tool_call`."""
    from django.conf import settings

    from .permissions import api_key_get, key_rate_limit_hit, read_key_refusal
    from .readers import platform_user

    key = api_key_get(api_key)
    refusal = read_key_refusal(key, agent_slug)
    if refusal:
        raise ToolError(f"{refusal[0]}: {refusal[1]}")
    rate = settings.BIZMEMORY["API_RATE_READ"]
    wait = key_rate_limit_hit(key, rate) if rate else None
    if wait is not None:
        raise ToolError(f"rate limit of this API key reached ({rate}); try again in {math.ceil(wait)} s")
    return tool_call(name, arguments, user=platform_user(username), agent_slug=agent_slug)


def build_server(*, username: str, agent_slug: str, api_key: str):
    """An MCP server (``profiles.mcp_stdio.DrainingMCPServer``, the SDK's ``MCPServer`` whose stdio
    transport answers every call received before stdin closes) exposing exactly the three read
    tools for the platform user ``username`` as ``agent_slug``, with the read-scope ``api_key``
    (:func:`bound_call`).

    Tool functions run the Django ORM in a worker thread (``asgiref.sync_to_async``), as the ORM
    must not run inside the event loop. A bad call returns an MCP tool error (``isError``).
    """
    from asgiref.sync import sync_to_async
    from mcp.types import ToolAnnotations

    from .mcp_stdio import DrainingMCPServer

    server = DrainingMCPServer(
        name="bizmemory",
        instructions="Read-only long-term memory of the current user. Ignore memory irrelevant to the question.",
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    def _call(name: str, arguments: dict) -> str:
        from django.db import close_old_connections

        close_old_connections()
        out = bound_call(name, arguments, username=username, agent_slug=agent_slug, api_key=api_key)
        return json.dumps(out, ensure_ascii=False)

    async def memory_search(query: str, scope: str = "memory", top_k: int = 5) -> str:
        return await sync_to_async(_call)("memory_search", {"query": query, "scope": scope, "top_k": top_k})

    async def memory_get(item_id: int | None = None, from_line: int | None = None, to_line: int | None = None) -> str:
        args = {k: v for k, v in {"item_id": item_id, "from_line": from_line, "to_line": to_line}.items() if v is not None}
        return await sync_to_async(_call)("memory_get", args)

    async def memory_items(kind: str | None = None, key: str | None = None, cursor: str | None = None,
                           limit: int = ITEMS_LIMIT_DEFAULT) -> str:
        args = {k: v for k, v in {"kind": kind, "key": key, "cursor": cursor, "limit": limit}.items() if v is not None}
        return await sync_to_async(_call)("memory_items", args)

    functions = {"memory_search": memory_search, "memory_get": memory_get, "memory_items": memory_items}
    for name, description, _ in TOOLS:
        server.add_tool(functions[name], name=name, description=description, annotations=read_only,
                        structured_output=False)
    return server
