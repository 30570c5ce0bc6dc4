"""Typed results of the BizMemory API v1 (one dataclass per response body).

Each ``from_json`` takes the decoded JSON body the server returned and keeps the fields this
version of the client knows; a field a newer server adds is ignored, never an error. Times are
timezone-aware ``datetime`` objects (the server sends ISO 8601 in UTC), a fact's date is a
``date``. The shapes are those of the server's OpenAPI schema (``GET /api/v1/schema/``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Optional, TypedDict

Role = Literal["user", "assistant", "tool", "system", "developer"]
Scope = Literal["memory", "sessions"]
Kind = Literal["profile", "preference", "fact"]


class Message(TypedDict):
    """One turn to ingest. ``role`` is ``user``, ``assistant``, ``tool``, ``system`` or
    ``developer`` (system and developer turns are stored but never read for memory);
    ``content`` a string; ``expert`` the expert slug on an assistant turn; ``created_at`` an ISO
    8601 string with a time zone (or an aware ``datetime``); ``message_id`` the platform's id,
    unique in the session, which makes a retried batch safe (a known id is not stored again)."""

    role: Role
    content: str
    expert: NotRequired[Optional[str]]
    created_at: NotRequired[Any]
    message_id: NotRequired[Optional[str]]


def parse_datetime(value: str | None) -> dt.datetime | None:
    """An ISO 8601 string (``Z`` or an offset) → aware ``datetime``; None stays None."""
    return None if value is None else dt.datetime.fromisoformat(value)


def _date(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


@dataclass(frozen=True)
class MessageResult:
    """What became of one posted message: the stored row ``id`` (the earlier row for a
    duplicate), the ``message_id`` posted and ``status`` ``stored`` or ``duplicate``."""

    id: int
    message_id: str | None
    status: str


@dataclass(frozen=True)
class IngestResult:
    """``POST /api/v1/messages`` → 201: the session id, one row id per posted message (in
    order), the session's extraction watermark and the per-message results."""

    session: str
    message_ids: list[int]
    watermark: int
    results: list[MessageResult]

    @classmethod
    def from_json(cls, body: dict) -> IngestResult:
        return cls(
            session=body["session"], message_ids=list(body["message_ids"]), watermark=body["watermark"],
            results=[MessageResult(id=r["id"], message_id=r.get("message_id"), status=r["status"])
                     for r in body.get("results", [])],
        )


@dataclass(frozen=True)
class SessionEnd:
    """``POST /api/v1/sessions/<session>/end`` → 202: the session and when it ended (the first
    end is kept when a session is ended again)."""

    session: str
    ended_at: dt.datetime | None

    @classmethod
    def from_json(cls, body: dict) -> SessionEnd:
        return cls(session=body["session"], ended_at=parse_datetime(body.get("ended_at")))


@dataclass(frozen=True)
class Context:
    """``GET /api/v1/context``: ``text`` to put into the prompt, ``tokens`` it counts (tiktoken,
    never over ``budget``), the memory ``item_ids`` and session ``message_ids`` used, tokens per
    section, and ``reason``: ``ok``, or why the text is empty (``memory_off``, ``expert_off``,
    ``temporary_session``, ``no_memory``, ``budget_too_small``)."""

    text: str
    tokens: int
    budget: int
    item_ids: list[int]
    message_ids: list[int]
    sections: dict[str, int]
    reason: str

    @classmethod
    def from_json(cls, body: dict) -> Context:
        return cls(
            text=body["text"], tokens=body["tokens"], budget=body["budget"], item_ids=list(body["item_ids"]),
            message_ids=list(body.get("message_ids", [])), sections=dict(body.get("sections", {})),
            reason=body["reason"],
        )


@dataclass(frozen=True)
class SearchHit:
    """One ``memory_search`` hit: a memory item id (scope ``memory``) or a message id (scope
    ``sessions``), its kind, text (PII masked for sessions), date, fused ``score`` and the
    vector ``similarity`` (None without a vector hit) and ``lexical`` parts."""

    id: int
    kind: str
    text: str
    date: dt.datetime | None
    score: float
    similarity: float | None
    lexical: float
    session: str | None

    @classmethod
    def from_json(cls, body: dict) -> SearchHit:
        return cls(
            id=body["id"], kind=body["kind"], text=body["text"], date=parse_datetime(body.get("date")),
            score=body["score"], similarity=body.get("similarity"), lexical=body.get("lexical", 0.0),
            session=body.get("session"),
        )


@dataclass(frozen=True)
class SearchResult:
    """``GET /api/v1/memory/search``: at most ``top_k`` hits, best first; ``reason`` is ``ok``
    (hits or none), ``no_memory`` (nothing stored in the scope, or an unknown user) or why nothing
    is read; ``time_cue`` True when the query named a time (no time decay then)."""

    scope: str
    reason: str
    time_cue: bool
    hits: list[SearchHit] = field(default_factory=list)

    @classmethod
    def from_json(cls, body: dict) -> SearchResult:
        return cls(scope=body.get("scope", "memory"), reason=body["reason"], time_cue=body.get("time_cue", False),
                   hits=[SearchHit.from_json(h) for h in body.get("hits", [])])


@dataclass(frozen=True)
class MemoryItem:
    """One current memory item: ``kind`` (profile / preference / fact), ``key`` (e.g. ``city``),
    ``value``, the rendered ``text``, the date a fact is about (None otherwise), since when it
    holds and when it was last confirmed."""

    id: int
    kind: str
    key: str
    value: str
    text: str
    fact_date: dt.date | None
    valid_from: dt.datetime | None
    confirmed_at: dt.datetime | None

    @classmethod
    def from_json(cls, body: dict) -> MemoryItem:
        return cls(
            id=body["id"], kind=body["kind"], key=body["key"], value=body["value"], text=body.get("text", ""),
            fact_date=_date(body.get("fact_date")), valid_from=parse_datetime(body.get("valid_from")),
            confirmed_at=parse_datetime(body.get("confirmed_at")),
        )


@dataclass(frozen=True)
class MemoryDocument:
    """``GET /api/v1/memory`` (``memory_get``): MEMORY.md or a line range of it (``text``, 1-based
    ``from_line``..``to_line`` of ``total_lines``, the memory ``version``), or one ``item`` (then
    ``text`` is the item's). ``reason`` is ``ok``, ``no_memory`` (an empty document: ``version``
    0) or why memory is not read."""

    reason: str
    text: str
    from_line: int
    to_line: int
    total_lines: int
    version: int
    item: MemoryItem | None

    @classmethod
    def from_json(cls, body: dict) -> MemoryDocument:
        item = body.get("item")
        return cls(
            reason=body["reason"], text=body.get("text", ""), from_line=body.get("from_line", 0),
            to_line=body.get("to_line", 0), total_lines=body.get("total_lines", 0), version=body.get("version", 0),
            item=None if item is None else MemoryItem.from_json(item),
        )


@dataclass(frozen=True)
class ItemsPage:
    """``GET /api/v1/memory/items``: one page of current items, newest first; pass
    ``next_cursor`` back as ``cursor`` for the next page (None on the last). ``reason`` is ``ok``
    (also for a page with no items), ``no_memory`` (no current item at all) or why memory is not read."""

    reason: str
    items: list[MemoryItem]
    next_cursor: str | None

    @classmethod
    def from_json(cls, body: dict) -> ItemsPage:
        return cls(reason=body["reason"], items=[MemoryItem.from_json(i) for i in body.get("items", [])],
                   next_cursor=body.get("next_cursor"))
