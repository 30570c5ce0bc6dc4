"""Who an agent's read is for: the platform user it names, or nobody.

Platform user ids share Django's account table with staff logins, so a read that answered 404
for an unknown id (and 200 for a known one) told any read key which user ids exist, staff
logins included. Instead :func:`platform_user` gives None both for an id no account has and for
a staff or superuser login, and the reads answer None exactly as they answer a platform user
with nothing stored: the same status and the same body (``tests/test_api_unknown_users.py``
compares them endpoint by endpoint). Nothing is created on the way: a read never makes an
account, a settings row or a cache row for nobody.

The ``nobody_*`` functions are those empty answers; each mirrors the path a real user with no
memory takes through its selector (the switches' precedence comes from ``profiles.access``).
"""

from __future__ import annotations

from typing import NoReturn

from django.contrib.auth import get_user_model
from django.db.models import Q

from .access import _access_reason
from .models import MemoryItem
from .search import SearchResult, has_time_cue
from .selectors import MemoryContext, SessionNotFound


def platform_user(username: str):
    """The platform end user whose id is ``username`` (compared exactly), or None when no account
    has it or the account is a staff or superuser login (never a platform user: ingest refuses
    them, and reads must not answer for them)."""
    return (
        get_user_model().objects.filter(username=username)
        .exclude(Q(is_staff=True) | Q(is_superuser=True))
        .first()
    )


def nobody_access_reason(*, temporary: bool = False) -> str | None:
    """:func:`profiles.access.memory_access_reason` for a user with no switches stored: only a
    temporary session refuses."""
    return _access_reason(memory_enabled=None, temporary=temporary, expert_off=False)


def nobody_context(*, budget: int, session_id: str | None = None, temporary: bool = False) -> MemoryContext:
    """:func:`profiles.selectors.memory_context` for nobody: empty with ``temporary_session`` or
    ``no_memory``. Raises :class:`SessionNotFound` when a ``session_id`` is named (nobody has
    sessions) and ``ValueError`` when ``budget`` < 1, as the selector does."""
    if budget < 1:
        raise ValueError("budget must be >= 1 token")
    if session_id:
        raise SessionNotFound(session_id)
    return MemoryContext("", 0, budget, reason=nobody_access_reason(temporary=temporary) or "no_memory")


def nobody_search(*, query: str, temporary: bool = False) -> SearchResult:
    """:func:`profiles.search.memory_search` for nobody: no hits; the reason, or the query's
    time cue as a search over an empty index reports it."""
    reason = nobody_access_reason(temporary=temporary)
    if reason:
        return SearchResult(reason=reason)
    return SearchResult(hits=[], time_cue=has_time_cue(query))


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
