"""Agent tools: the server's read tools, bound to one user and agent, for a model to call.

The definitions come from the server (``GET /api/v1/tools``, OpenAI function-calling format), so
descriptions and parameter schemas stay the server's. Only the read tools are ever handed out
(``memory_search``, ``memory_get``): a name outside :data:`READ_TOOLS` is dropped from the list
and refused by :meth:`MemoryTools.call` — agents never get a write tool.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from .client import BizMemory
from .errors import BadRequest, BizMemoryError, NotFound

READ_TOOLS = ("memory_search", "memory_get")


class ToolCallError(BizMemoryError):
    """A tool call the model got wrong: unknown tool, arguments that are not a JSON object, or an
    argument the tool does not take. ``field`` names the argument when one is at fault."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


def _plain(value: Any) -> Any:
    """Dataclasses, dates and times → JSON-ready values."""
    return json.loads(json.dumps(dataclasses.asdict(value), default=str, ensure_ascii=False))


def _arguments(raw: Mapping[str, Any] | str | None) -> dict[str, Any]:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise ToolCallError(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(raw, Mapping):
        raise ToolCallError("arguments must be a JSON object")
    return dict(raw)


def _call_parts(tool_call: Any) -> tuple[str | None, str, Any]:
    """``(id, name, arguments)`` of an OpenAI tool call: the SDK's object or its dict form."""
    if isinstance(tool_call, Mapping):
        fn = tool_call.get("function") or {}
        return tool_call.get("id"), fn.get("name", ""), fn.get("arguments")
    return tool_call.id, tool_call.function.name, tool_call.function.arguments


class MemoryTools:
    """The read tools of ``client`` (a read-key :class:`BizMemory`) bound to ``user`` as ``agent``
    (and the current ``session``, if any), so a model's call can never name another user.

    :meth:`openai_tools` gives the definitions for ``tools=`` of OpenAI's Chat Completions (and any
    framework that takes that format); :meth:`anthropic_tools` the same for Anthropic's Messages
    API; :meth:`dispatch` answers one OpenAI tool call with the ``role: tool`` message to append;
    :meth:`call` runs a tool by name and returns its JSON-ready result.
    """

    def __init__(self, client: BizMemory, *, user: str, agent: str = "main", session: str | None = None):
        self.client, self.user, self.agent, self.session = client, user, agent, session
        self._definitions: list[dict[str, Any]] | None = None

    def openai_tools(self) -> list[dict[str, Any]]:
        """``[{"type": "function", "function": {"name", "description", "parameters"}}]`` for the read
        tools the server offers (fetched once per instance)."""
        if self._definitions is None:
            self._definitions = [t for t in self.client.tools() if t.get("function", {}).get("name") in READ_TOOLS]
        return self._definitions

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The same tools as ``[{"name", "description", "input_schema"}]`` (Anthropic Messages API)."""
        return [{"name": t["function"]["name"], "description": t["function"]["description"],
                 "input_schema": t["function"]["parameters"]} for t in self.openai_tools()]

    def _parameters(self, name: str) -> dict[str, Any]:
        for tool in self.openai_tools():
            if tool["function"]["name"] == name:
                return tool["function"].get("parameters") or {}
        raise ToolCallError(f"unknown tool {name!r}; the tools are {', '.join(READ_TOOLS)}", field="name")

    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` (a dict, or the JSON string a model produced).

        Returns ``memory_search`` → ``{"reason", "time_cue", "hits": [{"id", "kind", "text", "date",
        "score", "similarity", "lexical", "session"}]}``; ``memory_get`` → ``{"reason", "text",
        "from_line", "to_line", "total_lines", "version"}`` or, with ``item_id``, ``{"reason",
        "item": {...}}``. Raises :class:`ToolCallError` (unknown tool or argument, arguments not a
        JSON object) and the client's :class:`~bizmemory_client.errors.ApiError` subclasses.
        """
        args = _arguments(arguments)
        allowed = set(self._parameters(name).get("properties", {}))
        unknown = sorted(set(args) - allowed)
        if unknown:
            raise ToolCallError(f"{name} takes no argument {unknown[0]!r}; it takes {sorted(allowed)}",
                                field=unknown[0])
        bound = {"user": self.user, "agent": self.agent, "session": self.session}
        if name == "memory_search":
            if not isinstance(args.get("query"), str):
                raise ToolCallError("memory_search needs a query string", field="query")
            res = self.client.memory_search(query=args.pop("query"), **bound, **args)
            return {"reason": res.reason, "time_cue": res.time_cue, "hits": [_plain(h) for h in res.hits]}
        doc = self.client.memory_get(**bound, **args)
        if doc.item is not None:
            return {"reason": doc.reason, "item": _plain(doc.item)}
        return {k: v for k, v in _plain(doc).items() if k != "item"}

    def dispatch(self, tool_call: Any) -> dict[str, Any]:
        """Answer one OpenAI tool call (``message.tool_calls[i]`` of the SDK, or its dict form).

        Returns ``{"role": "tool", "tool_call_id", "content"}`` with the result as JSON text. A
        mistake the model can correct — a :class:`ToolCallError`, a 400 or a 404 from the server —
        becomes ``{"error": {"code", "message", "field"}}`` content instead of an exception;
        refusals of the key (403), rate limits and server errors are raised to the caller.
        """
        call_id, name, raw = _call_parts(tool_call)
        try:
            result = self.call(name, raw)
        except ToolCallError as exc:
            result = {"error": {"code": "invalid_tool_call", "message": exc.message, "field": exc.field}}
        except (BadRequest, NotFound) as exc:
            result = {"error": {"code": exc.code, "message": exc.message, "field": exc.field}}
        return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result, ensure_ascii=False)}
