"""The HTTP client of BizMemory's API v1: one method per operation, typed results.

A client holds one API key, and a key has one scope: the platform ingests with an ``ingest`` key,
agents read with a ``read`` key, so a platform that does both makes two clients. Requests are
retried on 429 (rate limit) and 503 (database unavailable), waiting what the server's
``Retry-After`` says (else exponential backoff, full jitter), with tenacity; a write is retried on
503 only when retrying cannot store anything twice (see :meth:`BizMemory.ingest`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from ._version import __version__
from .errors import ConnectionFailed, RateLimited, ServiceUnavailable, api_error, retry_after_seconds
from .models import (
    Context,
    IngestResult,
    ItemsPage,
    MemoryDocument,
    MemoryItem,
    Message,
    SearchResult,
    SessionEnd,
)

API_PREFIX = "/api/v1"


def _query(**params: Any) -> dict[str, str]:
    """Query parameters without the ones left out (None); booleans as ``true`` / ``false``."""
    out = {}
    for name, value in params.items():
        if value is not None:
            out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def _message_json(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message as JSON: an aware ``datetime`` ``created_at`` becomes ISO 8601 (a naive one is
    sent as it is and the server refuses it, naming the field); everything else is sent as given,
    so the server's strict types apply (a number where a string belongs is a 400)."""
    out = dict(message)
    if isinstance(out.get("created_at"), dt.datetime):
        out["created_at"] = out["created_at"].isoformat()
    return out


class BizMemory:
    """Client of one BizMemory server with one API key.

    ``base_url`` is the server's root (``https://memory.example.com``; a trailing ``/api/v1`` is
    accepted too). ``timeout`` is seconds per request. ``max_attempts`` bounds the attempts of one
    call (1 = no retry); a retry waits the ``Retry-After`` the server sent, or exponential backoff
    from ``backoff`` seconds, and a ``Retry-After`` over ``max_retry_wait`` seconds is not waited
    for (the error is raised at once). ``http_client`` replaces the internal ``httpx.Client``
    (proxies, TLS settings, a test transport); the key is sent with every request either way.
    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 10.0, max_attempts: int = 4,
                 backoff: float = 0.5, max_retry_wait: float = 30.0, http_client: httpx.Client | None = None):
        root = base_url.rstrip("/")
        self.base_url = root[: -len(API_PREFIX)] if root.endswith(API_PREFIX) else root
        self._headers = {"X-Api-Key": api_key, "User-Agent": f"bizmemory-client/{__version__}",
                         "Accept": "application/json"}
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)
        self.max_attempts, self.backoff, self.max_retry_wait = max(1, max_attempts), backoff, max_retry_wait
        self._backoff = wait_random_exponential(multiplier=backoff, max=max_retry_wait)  # "full jitter"

    # ------------------------------------------------------------------ transport

    def close(self) -> None:
        """Close the connection pool (not an ``http_client`` passed in)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> BizMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, method: str, path: str, params: dict | None, body: dict | None) -> Any:
        try:
            resp = self._http.request(method, self.base_url + API_PREFIX + path, params=params, json=body,
                                      headers=self._headers)
        except httpx.TransportError as exc:
            raise ConnectionFailed(f"{method} {API_PREFIX}{path}: {exc!r}") from exc
        if resp.status_code >= 400:
            try:
                payload: Any = resp.json()
            except ValueError:
                payload = resp.text
            raise api_error(resp.status_code, payload, retry_after_seconds(resp.headers.get("Retry-After")))
        return resp.json()

    def _retryable(self, exc: BaseException, *, repeatable: bool) -> bool:
        """Retry a 429 (the server refused before doing anything), a 503 or a lost answer only when
        the call is ``repeatable``, and a connection never made; never a wait over the cap."""
        if isinstance(exc, (RateLimited, ServiceUnavailable)):
            if exc.retry_after is not None and exc.retry_after > self.max_retry_wait:
                return False
            return isinstance(exc, RateLimited) or repeatable
        if isinstance(exc, ConnectionFailed):
            return repeatable or isinstance(exc.__cause__, (httpx.ConnectError, httpx.ConnectTimeout))
        return False

    def _wait(self, state) -> float:
        exc = state.outcome.exception()
        after = getattr(exc, "retry_after", None)
        if after is not None:
            return after
        return self._backoff(state)

    def _call(self, method: str, path: str, *, params: dict | None = None, body: dict | None = None,
              repeatable: bool = True) -> Any:
        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts), wait=self._wait, reraise=True,
            retry=retry_if_exception(lambda exc: self._retryable(exc, repeatable=repeatable)),
        )
        return retrying(self._send, method, path, params, body)

    # ------------------------------------------------------------------ ingest scope

    def ingest(self, user: str, session: str, messages: Iterable[Message | Mapping[str, Any]], *,
               agent: str | None = None, session_kind: str | None = None, temporary: bool | None = None,
               end_session: bool | None = None) -> IngestResult:
        """``POST /api/v1/messages``: store a batch of turns of one session (ingest key).

        ``messages``: :class:`~bizmemory_client.models.Message` dicts (1-500). ``agent`` (the
        server's default ``main``), ``session_kind`` (``chat`` / ``scheduled``) and ``temporary``
        are sent only when given; ``end_session=True`` closes the session so its last turns are
        extracted at once. Returns :class:`IngestResult`. Raises :class:`BadRequest` naming the
        field (e.g. ``messages[1].role``), :class:`Conflict` (a ``message_id`` reused for another
        message), :class:`PermissionDenied`. Retried on 429 always (nothing was stored); on 503
        and a lost answer only when every message carries a ``message_id`` (the server then
        stores each at most once).
        """
        msgs = [_message_json(m) for m in messages]
        body: dict[str, Any] = {"user": user, "session": session, "messages": msgs}
        extra = {"agent": agent, "session_kind": session_kind, "temporary": temporary, "end_session": end_session}
        body.update({k: v for k, v in extra.items() if v is not None})
        repeatable = all(m.get("message_id") for m in msgs)
        return IngestResult.from_json(self._call("POST", "/messages", body=body, repeatable=repeatable))

    def end_session(self, user: str, session: str) -> SessionEnd:
        """``POST /api/v1/sessions/<session>/end``: close ``user``'s session (ingest key); its last
        turns are extracted regardless of the throttle. Raises :class:`NotFound` (field
        ``session``) when the user has no such session. Safe to retry (a second end keeps the
        first time)."""
        path = f"/sessions/{quote(session, safe='')}/end"
        return SessionEnd.from_json(self._call("POST", path, body={"user": user}))

    # ------------------------------------------------------------------ read scope

    def context(self, user: str, *, agent: str = "main", budget: int | None = None, query: str | None = None,
                session: str | None = None, temporary: bool | None = None) -> Context:
        """``GET /api/v1/context``: memory text for the prompt, at most ``budget`` tiktoken tokens
        (1-32000; the server's default otherwise), facts ranked by ``query`` when given, with the
        recent turns of ``session``. Returns :class:`Context` (empty ``text`` with the ``reason``
        when memory is off, the session temporary, or nothing is known)."""
        params = _query(user=user, agent=agent, budget=budget, query=query, session=session, temporary=temporary)
        return Context.from_json(self._call("GET", "/context", params=params))

    def memory_search(self, user: str, query: str, *, agent: str = "main", scope: str = "memory", top_k: int = 5,
                      min_similarity: float | None = None, session: str | None = None,
                      temporary: bool | None = None) -> SearchResult:
        """``GET /api/v1/memory/search``: hybrid search of ``scope`` ``memory`` (items) or
        ``sessions`` (the user's past turns, PII masked); ``top_k`` 1-50. Returns
        :class:`SearchResult`, best hit first."""
        params = _query(user=user, agent=agent, query=query, scope=scope, top_k=top_k,
                        min_similarity=min_similarity, session=session, temporary=temporary)
        return SearchResult.from_json(self._call("GET", "/memory/search", params=params))

    def memory_get(self, user: str, *, agent: str = "main", item_id: int | None = None, from_line: int | None = None,
                   to_line: int | None = None, session: str | None = None,
                   temporary: bool | None = None) -> MemoryDocument:
        """``GET /api/v1/memory``: the user's MEMORY.md, lines ``from_line``..``to_line`` (1-based,
        inclusive) of it, or one current item by ``item_id``. Returns :class:`MemoryDocument`.
        Raises :class:`NotFound` (field ``item_id``) for an item id this user has no current item
        under."""
        params = _query(user=user, agent=agent, item_id=item_id, from_line=from_line, to_line=to_line,
                        session=session, temporary=temporary)
        return MemoryDocument.from_json(self._call("GET", "/memory", params=params))

    def memory_items(self, user: str, *, agent: str = "main", kind: str | None = None, key: str | None = None,
                     cursor: str | None = None, limit: int | None = None, session: str | None = None) -> ItemsPage:
        """``GET /api/v1/memory/items``: one page (``limit`` 1-100, server default 50) of the user's
        current items, newest first, optionally of one ``kind`` and ``key``; ``cursor`` is the
        previous page's ``next_cursor``. Raises :class:`BadRequest` (field ``cursor``) for a
        cursor that did not come from a page."""
        params = _query(user=user, agent=agent, kind=kind, key=key, cursor=cursor, limit=limit, session=session)
        return ItemsPage.from_json(self._call("GET", "/memory/items", params=params))

    def iter_memory_items(self, user: str, *, agent: str = "main", kind: str | None = None, key: str | None = None,
                          page_size: int | None = None) -> Iterator[MemoryItem]:
        """Every current item of the user, newest first, fetching pages of ``page_size`` through
        ``next_cursor`` as the iteration goes (each page is one request)."""
        cursor = None
        while True:
            page = self.memory_items(user, agent=agent, kind=kind, key=key, cursor=cursor, limit=page_size)
            yield from page.items
            cursor = page.next_cursor
            if not cursor:
                return

    def tools(self) -> list[dict[str, Any]]:
        """``GET /api/v1/tools``: the agent tools in OpenAI function-calling format, as the server
        defines them (``memory_search`` and ``memory_get``; read key). For a model, use
        :class:`bizmemory_client.MemoryTools`, which binds them to a user and dispatches calls."""
        return list(self._call("GET", "/tools")["tools"])
