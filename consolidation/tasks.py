"""django-q2 tasks. They receive ids, call a service, and queue follow-up work.

Queue with the ``enqueue_*`` helpers: they defer to ``transaction.on_commit`` so
a job never sees a half-written transaction.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django_q.models import Schedule
from django_q.tasks import async_task

from .consolidate import consolidation_run
from .extraction import extraction_run

log = logging.getLogger("bizmemory.tasks")


def enqueue_extraction(*, session_id: int, trigger: str) -> None:
    """Queue :func:`extract_session` after the current transaction commits."""
    transaction.on_commit(lambda: async_task("consolidation.tasks.extract_session", session_id, trigger, group="extraction"))


def enqueue_consolidation(*, user_id: int) -> None:
    """Queue :func:`consolidate_user` after the current transaction commits."""
    transaction.on_commit(lambda: async_task("consolidation.tasks.consolidate_user", user_id, group="consolidation"))


def _schedule_once(name: str, func: str, args: tuple, when) -> None:
    # One pending deferred run per name: a throttled burst queues a single retry.
    if Schedule.objects.filter(name=name, next_run__gte=timezone.now()).exists():
        return
    Schedule.objects.filter(name=name).delete()
    Schedule.objects.create(
        name=name, func=func, args=repr(args), schedule_type=Schedule.ONCE, next_run=when, repeats=1
    )


def extract_session(session_id: int, trigger: str = "scheduled") -> dict:
    """Task: run extraction for a session; queue consolidation when the journal grew;
    when throttled, schedule one retry at the end of the window. Returns the result as a dict."""
    result = extraction_run(session_id=session_id, trigger=trigger)
    if result.status == "throttled" and result.retry_at:
        _schedule_once(f"extract:{session_id}", "consolidation.tasks.extract_session", (session_id, "scheduled"), result.retry_at)
    if result.journal_written:
        from .models import Session

        enqueue_consolidation(user_id=Session.objects.values_list("user_id", flat=True).get(pk=session_id))
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}


def consolidate_user(user_id: int) -> dict:
    """Task: consolidate a user's journal; when too soon, schedule one run at the interval's end."""
    result = consolidation_run(user_id=user_id)
    if result.status == "too_soon" and result.retry_at:
        _schedule_once(f"consolidate:{user_id}", "consolidation.tasks.consolidate_user", (user_id,), result.retry_at)
    elif result.pending_left:
        enqueue_consolidation(user_id=user_id)
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}
