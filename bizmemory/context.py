"""The context an agent injects: memory and the current session's turns, composed.

The memory store (``profiles``) builds the context from what it holds; the turns of a session
are the pipeline's (``consolidation``). Neither app imports the one above it (issue 15), so the
read that needs both is composed here, in the top layer: the pipeline's window of the session
is fetched first and handed to :func:`profiles.selectors.memory_context`.
"""

from __future__ import annotations

import datetime as dt

from consolidation.selectors import session_window
from profiles.readers import nobody_context
from profiles.selectors import RECENT_TURNS_MAX, SUMMARY_SOURCE_MAX, MemoryContext, SessionNotFound, memory_context


def agent_context(
    *, user, agent_slug: str, budget: int, query: str = "", session_id: str | None = None,
    temporary: bool = False, now: dt.datetime | None = None,
) -> MemoryContext:
    """The context of ``GET /api/v1/context`` for ``user`` as seen by agent ``agent_slug``.

    Inputs: the user, or None for an id no platform user has (answered as a user with no memory:
    ``profiles.readers.nobody_context``); the calling agent or expert slug; the token ``budget``
    (≥ 1, tiktoken tokens); an optional ``query`` (ranks the facts); an optional ``session_id``
    (platform id of one of the user's sessions: its recent turns and a summary of its older user
    turns join the memory, ``consolidation.selectors.session_window``, within the same budget; a
    temporary session reads nothing); ``temporary``; ``now`` (the time the query's ranking
    decays from, default now).

    Output: :class:`profiles.selectors.MemoryContext`, exactly as ``memory_context`` builds it
    (text ≤ ``budget`` tokens, item and message ids, sections, ``reason``).

    Errors: :class:`profiles.selectors.SessionNotFound` when ``session_id`` is not one of the
    user's sessions (unknown, another user's, or any for nobody); ``ValueError`` when ``budget``
    < 1 (checked before the session is looked up, as the selector checks it).
    """
    if user is None:
        return nobody_context(budget=budget, session_id=session_id, temporary=temporary)
    if budget < 1:
        raise ValueError("budget must be >= 1 token")
    window = None
    if session_id:
        window = session_window(
            user_id=user.pk, session_id=session_id, recent_max=RECENT_TURNS_MAX, older_max=SUMMARY_SOURCE_MAX,
        )
        if window is None:
            raise SessionNotFound(session_id)
    return memory_context(
        user=user, agent_slug=agent_slug, budget=budget, query=query, window=window, temporary=temporary, now=now,
    )
