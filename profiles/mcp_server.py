"""The agent tools — exactly ``memory_search`` and ``memory_get``, both read-only.

One definition serves the tools manifest (``GET /api/v1/tools``, OpenAI
function-calling format) and the MCP server (the official ``mcp`` Python SDK,
``MCPServer``, stdio transport: ``manage.py mcp_server --user U --agent A``).
There is no write tool: agents read memory; only the platform's extraction and
consolidation write it (issue #6).

A server is bound to one user id, one calling agent and one read-scope API key when it
starts, so a tool call can never name another user. Like the HTTP API it needs the key, and
checks it again on every call (a key revoked or expired meanwhile ends the access); the user id
is looked up on every call too (``profiles.readers.platform_user``): an id no account has yet is
answered like a user with no memory, and a staff or superuser login never (the command refuses
one at start).
"""

from __future__ import annotations

import json
import math
from typing import Any

SEARCH_DESCRIPTION = (
    "Search the user's long-term memory (scope 'memory': profile, preferences, dated facts) or their past "
    "conversation messages (scope 'sessions'). Hybrid lexical + semantic retrieval; works in Chinese and English. "
    "Returns ids, kinds, dates, scores and texts, best first. Older results rank lower unless the query "
    "mentions the past ('之前', '去年', 'last month')."
)
GET_DESCRIPTION = (
    "Read the user's memory document (MEMORY.md): all of it, or a line range (from_line..to_line, 1-based, "
    "inclusive), or one memory item by its id (from memory_search results)."
)

SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for, in the user's language."},
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
TOOL_NAMES = ("memory_search", "memory_get")


def tool_manifest() -> list[dict]:
    """The agent tools in OpenAI function-calling format:
    ``[{"type": "function", "function": {"name", "description", "parameters"}}]`` — exactly
    ``memory_search`` and ``memory_get``."""
    return [
        {"type": "function", "function": {"name": "memory_search", "description": SEARCH_DESCRIPTION,
                                          "parameters": SEARCH_PARAMETERS}},
        {"type": "function", "function": {"name": "memory_get", "description": GET_DESCRIPTION,
                                          "parameters": GET_PARAMETERS}},
    ]


from mcp.server.mcpserver.exceptions import ToolError as SDKToolError  # noqa: E402

class ToolError(SDKToolError, ValueError):
    """A tool call with bad arguments or naming something that does not exist (message says which).

    It subclasses the SDK's ToolError so the MCP server hands the message to the agent as the
    tool's error result instead of a generic "Error executing tool"."""


def tool_call(name: str, arguments: dict, *, user, agent_slug: str) -> dict:
    """Run agent tool ``name`` with ``arguments`` for ``user`` as ``agent_slug``; returns a JSON-ready dict.

    ``memory_search`` → ``{"reason", "time_cue", "hits": [{"id", "kind", "text", "date", "score",
    "similarity", "lexical", "session"}]}``; ``memory_get`` → the document slice
    (``{"text", "from_line", "to_line", "total_lines", "version", "reason"}``) or ``{"item": {...}}``.
    ``user`` None (no platform user has the id, or it is a staff login) is answered like a user
    with no memory (``profiles.readers``). Raises :class:`ToolError` for an unknown tool, bad
    arguments or an unknown item id.
    """
    from .models import MemoryItem
    from .readers import nobody_access_reason, nobody_document, nobody_item, nobody_search
    from .search import memory_search
    from .selectors import memory_access_reason, memory_document_get, memory_item_get

    args = dict(arguments or {})
    if name == "memory_search":
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
    if name == "memory_get":
        unknown = set(args) - {"item_id", "from_line", "to_line"}
        if unknown:
            raise ToolError(f"unknown argument(s): {sorted(unknown)}")
        reason = nobody_access_reason() if user is None else memory_access_reason(user=user, agent_slug=agent_slug)
        if reason:
            return {"text": "", "from_line": 0, "to_line": 0, "total_lines": 0, "version": 0, "reason": reason}
        if args.get("item_id") is not None:
            try:
                item_id = int(args["item_id"])
                item = nobody_item(item_id=item_id) if user is None else memory_item_get(user=user, item_id=item_id)
                return {"item": item, "reason": "ok"}
            except (MemoryItem.DoesNotExist, ValueError, TypeError) as exc:
                raise ToolError(f"item_id: no memory item {args['item_id']!r}") from exc
        lines = {"from_line": args.get("from_line"), "to_line": args.get("to_line")}
        try:
            doc = nobody_document(**lines) if user is None else memory_document_get(user=user, **lines)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        return {**doc, "reason": "ok"}
    raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")


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
    """An ``mcp.server.mcpserver.MCPServer`` exposing exactly the two read tools for the platform
    user ``username`` as ``agent_slug``, with the read-scope ``api_key`` (:func:`bound_call`).

    Tool functions run the Django ORM in a worker thread (``asgiref.sync_to_async``), as the ORM
    must not run inside the event loop. A bad call returns an MCP tool error (``isError``).
    """
    from asgiref.sync import sync_to_async
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(
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

    server.add_tool(memory_search, name="memory_search", description=SEARCH_DESCRIPTION, annotations=read_only,
                    structured_output=False)
    server.add_tool(memory_get, name="memory_get", description=GET_DESCRIPTION, annotations=read_only,
                    structured_output=False)
    return server
