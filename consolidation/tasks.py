"""django-q2 tasks. They receive ids, call a service, and queue follow-up work.

Queue with the ``enqueue_*`` helpers: they defer to ``transaction.on_commit`` so
a job never sees a half-written transaction.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import uuid

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


@contextlib.contextmanager
def _crash_guard(kind: str, func: str, args: tuple):
    """Re-run a task whose worker dies mid-way (SIGKILL, OOM, lost machine).

    Before the work starts, a one-off django-q2 schedule ``recover:<kind>:<id>:<nonce>`` is
    stored for now + ``BIZMEMORY['EXTRACTION_LEASE_SECONDS']`` + 5 s (by then a dead run's
    session lease has expired); it is deleted when the run ends, normally or by an exception.
    A killed run leaves it behind, so the scheduler (every ~30 s) re-queues the task without
    manual steps — on the Redis broker, a task taken by a dead worker is otherwise lost. A
    duplicate run is harmless: extraction holds a lease, consolidation applies by
    compare-and-set. Issue #8 (faults: kill the worker in the middle of the work)."""
    from django.conf import settings

    lease = settings.BIZMEMORY["EXTRACTION_LEASE_SECONDS"]
    name = f"recover:{kind}:{args[0]}:{uuid.uuid4().hex[:8]}"
    Schedule.objects.create(
        name=name, func=func, args=repr(args), schedule_type=Schedule.ONCE, repeats=-1,
        next_run=timezone.now() + dt.timedelta(seconds=lease + 5),
    )
    try:
        yield
    finally:
        Schedule.objects.filter(name=name).delete()


def _extraction_retry_after_lease(*, session_id: int, trigger: str) -> None:
    # Another run holds the session (or a dead worker's lease has not expired yet): try again
    # once the lease ends, so messages the holder did not read are not left to the quiet run.
    from .models import Session

    until = Session.objects.filter(pk=session_id).values_list("locked_until", flat=True).first()
    when = max(until or timezone.now(), timezone.now()) + dt.timedelta(seconds=1)
    _schedule_once(f"extract:{session_id}", "consolidation.tasks.extract_session", (session_id, trigger), when)


def extract_session(session_id: int, trigger: str = "scheduled") -> dict:
    """Task: run extraction for a session; queue consolidation when the journal grew;
    when throttled, schedule one retry at the end of the window (a deferred ``quiet`` run
    stays ``quiet``); after an ingest or a deferral, make sure one ``quiet`` run follows once
    the session has been silent for ``EXTRACTION_QUIET_SECONDS``. Returns the result as a dict.
    Crash safety: a run that dies mid-way is re-run by a :func:`_crash_guard` schedule, and a run
    that finds the session locked is retried once the holder's lease ends."""
    with _crash_guard("extract", "consolidation.tasks.extract_session", (session_id, trigger)):
        result = extraction_run(session_id=session_id, trigger=trigger)
    if result.status == "locked":
        _extraction_retry_after_lease(session_id=session_id, trigger=trigger)
    if result.status == "throttled" and result.retry_at:
        retry_trigger = "quiet" if trigger == "quiet" else "scheduled"
        _schedule_once(f"extract:{session_id}", "consolidation.tasks.extract_session", (session_id, retry_trigger), result.retry_at)
    if trigger in ("ingest", "scheduled") and result.status in ("done", "throttled", "locked"):
        extraction_schedule_quiet(session_id=session_id)
    if result.journal_written:
        from .models import Session

        enqueue_consolidation(user_id=Session.objects.values_list("user_id", flat=True).get(pk=session_id))
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}


def extraction_schedule_quiet(*, session_id: int) -> bool:
    """Schedule (or push back) one ``extract_session(session_id, "quiet")`` run at the session's
    last message time + ``BIZMEMORY["EXTRACTION_QUIET_SECONDS"]`` (never in the past), when the
    session still has messages after its watermark. One pending schedule per session
    (``extract-quiet:<id>``): a newer message moves it later (debounce). Returns True when a run
    is pending afterwards. No-op when the setting is 0."""
    from django.conf import settings

    from .models import Message, Session

    quiet = settings.BIZMEMORY["EXTRACTION_QUIET_SECONDS"]
    if quiet <= 0:
        return False
    session = Session.objects.filter(pk=session_id).values("watermark", "ended_at").first()
    if session is None or session["ended_at"] is not None:
        return False
    last = Message.objects.filter(session_id=session_id, id__gt=session["watermark"]).order_by("-id").values("created_at").first()
    if last is None:
        return False
    when = max(timezone.now(), last["created_at"]) + dt.timedelta(seconds=quiet)
    name = f"extract-quiet:{session_id}"
    with transaction.atomic():
        pending = Schedule.objects.filter(name=name, next_run__gte=timezone.now())
        if pending.exists():
            pending.filter(next_run__lt=when).update(next_run=when)
            return True
        Schedule.objects.filter(name=name).delete()
        Schedule.objects.create(
            name=name, func="consolidation.tasks.extract_session", args=repr((session_id, "quiet")),
            schedule_type=Schedule.ONCE, next_run=when, repeats=1,
        )
    return True


def consolidate_user(user_id: int) -> dict:
    """Task: consolidate a user's journal; when too soon, schedule one run at the interval's end."""
    with _crash_guard("consolidate", "consolidation.tasks.consolidate_user", (user_id,)):
        result = consolidation_run(user_id=user_id)
    if result.status == "too_soon" and result.retry_at:
        _schedule_once(f"consolidate:{user_id}", "consolidation.tasks.consolidate_user", (user_id,), result.retry_at)
    elif result.pending_left and result.status != "held":  # held: waits for an admin, not a retry loop
        enqueue_consolidation(user_id=user_id)
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}


def retention_purge() -> dict:
    """Task (scheduled daily as ``retention-purge-daily``): run every retention purge;
    returns ``{purge name: rows deleted}`` (consolidation.retention.retention_purge_all)."""
    from .retention import retention_purge_all

    counts = retention_purge_all()
    log.info("retention purge: %s", counts)
    return counts
