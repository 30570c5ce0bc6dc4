"""Who an agent's read is for: the platform user it names, or nobody.

A read that answered 404 for an unknown id (and 200 for a known one) told any read key which
user ids exist. Instead :func:`platform_user` gives None for an id no platform user has (a staff
login of the same name included: platform ids are their own namespace, ``PlatformIdentity``),
and the reads answer None exactly as they answer a platform user
with nothing stored: the same status and the same body (``tests/test_api_unknown_users.py``
compares them endpoint by endpoint). Nothing is created on the way: a read never makes an
account, a settings row or a cache row for nobody.

The ``nobody_*`` functions are those empty answers; each mirrors the path a real user with no
memory takes through its selector (the switches' precedence comes from ``profiles.access``).

:func:`memory_get_answer` and :func:`memory_items_answer` are the whole answer of the
``memory_get`` and ``memory_items`` reads, ``reason`` included, for a user or nobody: the HTTP
views (``profiles.api``) and the MCP tools (``profiles.mcp_server``) both return them, so the
two surfaces say the same thing for the same state (``tests/test_mcp_server.py`` compares them).
"""

from __future__ import annotations

import base64
import binascii
from typing import NoReturn

from django.contrib.auth import get_user_model
from django.db.models import Q

from .access import _access_reason, memory_access_reason
from .models import MemoryDocument, MemoryItem
from .search import SearchResult, has_time_cue
from .selectors import MemoryContext, SessionNotFound, memory_document_get, memory_item_get, memory_items_page


def platform_user(username: str):
    """The platform end user whose platform id is ``username`` (compared exactly, through
    ``PlatformIdentity``: platform ids are their own namespace, issue 14), or None when no
    platform user has it. A staff login of the same name is another account and is never
    found; an account linked to a platform id that an operator later made staff or superuser is
    refused too (ingest refuses it, and reads must not answer for staff)."""
    return (
        get_user_model().objects.filter(platform_identity__external_id=username)
        .exclude(Q(is_staff=True) | Q(is_superuser=True))
        .first()
    )


def nobody_access_reason(*, temporary: bool = False) -> str | None:
    """:func:`profiles.access.memory_access_reason` for a user with no switches stored: only a
    temporary session refuses."""
    return _access_reason(memory_enabled=None, temporary=temporary, expert_off=False)


def nobody_context(*, budget: int, session_id: str | None = None, temporary: bool = False) -> MemoryContext:
    """The context (``bizmemory.context.agent_context``) for nobody: empty with
    ``temporary_session`` or ``no_memory``. Raises :class:`SessionNotFound` when a ``session_id``
    is named (nobody has sessions) and ``ValueError`` when ``budget`` < 1, as it does for a user."""
    if budget < 1:
        raise ValueError("budget must be >= 1 token")
    if session_id:
        raise SessionNotFound(session_id)
    return MemoryContext("", 0, budget, reason=nobody_access_reason(temporary=temporary) or "no_memory")


def nobody_search(*, query: str, temporary: bool = False) -> SearchResult:
    """:func:`profiles.search.memory_search` for nobody: no hits; the reason, or ``no_memory``
    with the query's time cue, as a search of a user with nothing stored reports them."""
    reason = nobody_access_reason(temporary=temporary)
    if reason:
        return SearchResult(reason=reason)
    return SearchResult(hits=[], reason="no_memory", time_cue=has_time_cue(query))


def nobody_document(*, from_line: int | None = None, to_line: int | None = None) -> dict:
    """:func:`profiles.selectors.memory_document_get` for nobody: the empty document. Raises
    ``ValueError`` for ``from_line`` > ``to_line``, as the selector does."""
    if from_line and to_line and from_line > to_line:
        raise ValueError("from_line must be <= to_line")
    return {"text": "", "from_line": 0, "to_line": 0, "total_lines": 0, "version": 0}


def nobody_item(*, item_id: int) -> NoReturn:
    """:func:`profiles.selectors.memory_item_get` for nobody: every id is unknown
    (``MemoryItem.DoesNotExist``, the error another user's id gets)."""
    raise MemoryItem.DoesNotExist(f"no memory item {item_id!r}")


def nobody_items_page() -> tuple[list[dict], None]:
    """:func:`profiles.selectors.memory_items_page` for nobody: no items, no next page."""
    return [], None


# --------------------------------------------------------------------------
# The answers of memory_get and memory_items, shared by HTTP and MCP.
# --------------------------------------------------------------------------

# The one vocabulary of ``reason`` in every read (context, memory_search, memory_get, memory_items),
# over HTTP and MCP alike. The switches come first (profiles.access precedence); then
# ``no_memory`` when the user has nothing stored that the read reads — the answer an unknown id
# or a staff login gets too, so the two cannot be told apart; else ``ok``, whose result may be
# empty (a search with no hits, a filter or page with no items, a line range past the end).
READ_REASONS = {
    "ok": "read: the result, which may be empty (no hits, no item matching the filter, lines past the end)",
    "no_memory": "nothing stored that this read reads (no current item; for a session search no past "
                 "message); an unknown user id or a staff login gets the same answer",
    "memory_off": "the user switched memory off: nothing is read",
    "temporary_session": "a temporary session: nothing is read",
    "expert_off": "the user switched memory off for this agent: nothing is read",
}
CONTEXT_REASONS = {**READ_REASONS, "budget_too_small": "the budget cannot hold even the opening instruction"}

ITEM_FIELDS = ("id", "kind", "key", "value", "text", "fact_date", "fact_precision", "valid_from", "confirmed_at")
ITEMS_LIMIT_DEFAULT = 50
ITEMS_LIMIT_MAX = 100
BAD_CURSOR = "invalid cursor; pass next_cursor of the previous page unchanged"


def _public_item(item: dict) -> dict:
    return {name: item[name] for name in ITEM_FIELDS}


def _read_reason(*, user, agent_slug: str, temporary: bool) -> str | None:
    if user is None:
        return nobody_access_reason(temporary=temporary)
    return memory_access_reason(user=user, agent_slug=agent_slug, temporary=temporary)


def memory_get_answer(
    *, user, agent_slug: str, temporary: bool = False, item_id: int | None = None,
    from_line: int | None = None, to_line: int | None = None,
) -> dict:
    """The ``memory_get`` read: MEMORY.md, a line range of it (1-based, inclusive) or one item.

    ``user`` is a platform user or None (:func:`platform_user`). Returns ``{"reason", "text",
    "from_line", "to_line", "total_lines", "version", "item"}`` (``item`` a dict of
    :data:`ITEM_FIELDS`, dates as ISO strings, or None). ``reason``: why memory is not read
    (``memory_off``, ``temporary_session``, ``expert_off``: everything empty), else ``ok`` for an
    item or a document with lines (a range past its end: ``ok``, no text) and ``no_memory`` for an
    empty document, the word the context read uses (issue 17: MCP said ``ok`` where HTTP said
    ``no_memory``). An empty document is answered exactly as nobody's (``version`` 0 even after a
    clear), so a cleared user and an unknown id read alike. Raises
    ``MemoryItem.DoesNotExist`` for an item id this user has no current item under, and
    ``ValueError`` for ``from_line`` > ``to_line``.
    """
    empty = {"text": "", "from_line": 0, "to_line": 0, "total_lines": 0, "version": 0, "item": None}
    reason = _read_reason(user=user, agent_slug=agent_slug, temporary=temporary)
    if reason:
        return {**empty, "reason": reason}
    if item_id:
        item = _public_item(nobody_item(item_id=item_id) if user is None else memory_item_get(user=user, item_id=item_id))
        version = MemoryDocument.objects.filter(user=user).values_list("version", flat=True).first() or 0
        return {**empty, "reason": "ok", "text": item["text"], "item": item, "version": version}
    lines = {"from_line": from_line, "to_line": to_line}
    doc = nobody_document(**lines) if user is None else memory_document_get(user=user, **lines)
    if not doc["total_lines"]:
        return {**empty, "reason": "no_memory"}
    return {**doc, "reason": "ok", "item": None}


def cursor_encode(before_id: int) -> str:
    """The opaque ``next_cursor`` of a ``memory_items`` page whose next page starts below item ``before_id``."""
    return base64.urlsafe_b64encode(f"b{before_id}".encode()).decode().rstrip("=")


def cursor_decode(cursor: str) -> int:
    """The item id a ``cursor`` from :func:`cursor_encode` names. Raises ``ValueError`` (message
    :data:`BAD_CURSOR`) for anything :func:`cursor_encode` did not produce."""
    try:
        if isinstance(cursor, str) and len(cursor) <= 32:
            text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            if text.startswith("b") and text[1:].isdigit() and int(text[1:]) >= 1 and cursor == cursor_encode(int(text[1:])):
                return int(text[1:])
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise ValueError(BAD_CURSOR)


def memory_items_answer(
    *, user, agent_slug: str, temporary: bool = False, kind: str | None = None, key: str | None = None,
    before_id: int | None = None, limit: int = ITEMS_LIMIT_DEFAULT,
) -> dict:
    """The ``memory_items`` read: one page of the user's current items, newest first.

    ``user`` a platform user or None; ``kind`` / ``key`` filter (exact); ``before_id`` is what
    :func:`cursor_decode` read from the previous page's cursor; ``limit`` 1-100 items. Returns
    ``{"reason", "items", "next_cursor"}``: items as in :func:`memory_get_answer`, ``next_cursor``
    a string or None on the last page, ``reason`` ``ok`` (a filter or page with no items
    included), ``no_memory`` when the user has no current item at all (as for nobody), or why
    memory is not read (no items then). Selector: :func:`profiles.selectors.memory_items_page`.
    """
    reason = _read_reason(user=user, agent_slug=agent_slug, temporary=temporary)
    items, next_before = [], None
    if not reason:
        if user is None:
            items, next_before = nobody_items_page()
        else:
            items, next_before = memory_items_page(user=user, kind=kind, key=key, before_id=before_id, limit=limit)
        stored = bool(items) or (user is not None and MemoryItem.objects.current().filter(user=user).exists())
        reason = "ok" if stored else "no_memory"
    return {"reason": reason, "items": [_public_item(i) for i in items],
            "next_cursor": cursor_encode(next_before) if next_before else None}
