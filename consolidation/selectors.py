"""Read-side selectors of the pipeline: what the top layer asks about a user's conversations.

Every selector is scoped to one user: a session id is looked up among that user's sessions only.
"""

from __future__ import annotations

from profiles.selectors import SessionWindow

from .extraction_common import detect_injection
from .models import Message, MessageRole, Session

CONVERSATION_ROLES = (MessageRole.USER, MessageRole.ASSISTANT)


def session_window(*, user_id: int, session_id: str, recent_max: int, older_max: int) -> SessionWindow | None:
    """The turns of the user's session ``session_id`` that an agent's context may quote.

    Inputs: the user's pk; ``session_id`` the platform id (unique per user only); ``recent_max``
    and ``older_max`` the most turns read for the sliding window and for the summary.

    Output: a :class:`profiles.selectors.SessionWindow` — ``recent`` the session's last user and
    assistant turns (never tool, system or developer turns), newest first, at most ``recent_max``;
    ``older`` when ``recent`` is full, up to ``older_max`` user turns before them, newest first;
    ``flagged`` the user turns the injection detector flags; ``temporary`` the session's flag —
    or None when the user has no session by that id (another user's id is as unknown as a
    made-up one). Turns extraction marked as no source (cleared by the user, quarantined PII, an
    excluded expert's turns, a disabled expert's answers, a scheduled session's) are never read
    (issue 14). Two or three queries; raises nothing.
    """
    session = Session.objects.filter(external_id=session_id, user_id=user_id).only("id", "temporary").first()
    if session is None:
        return None
    turns = Message.objects.filter(session=session).exclude(memory_source=False)
    recent = list(
        turns.filter(role__in=CONVERSATION_ROLES).order_by("-id").values_list("id", "role", "content")[:recent_max]
    )
    older = []
    if recent and len(recent) == recent_max:
        older = list(
            turns.filter(role=MessageRole.USER, id__lt=recent[-1][0])
            .order_by("-id").values_list("id", "role", "content")[:older_max]
        )
    flagged = frozenset(mid for mid, role, content in recent + older if role == "user" and detect_injection(content))
    return SessionWindow(temporary=session.temporary, recent=recent, older=older, flagged=flagged)
