"""The pipeline sweep (issue 14): one periodic run that claims due rows and does the work.

django-q2 runs :func:`consolidation.tasks.pipeline_sweep` every minute (schedule
``pipeline-sweep``, created by migration ``consolidation.0013``). Each run:

1. **repairs the impossible state** — a session with a user turn past its watermark, nothing
   due and no live lease (:func:`consolidation.due.sessions_behind`): each one is made due now
   and counted in ``behind`` (logged as a warning; the tests assert it stays 0);
2. **extracts due sessions** — up to ``BIZMEMORY['SWEEP_BATCH']`` with ``extraction_due_at <=
   now`` and no live lease, oldest due first; each run takes the session lease by a
   conditional UPDATE (:func:`consolidation.extraction.extraction_run`), so a session another
   worker holds is skipped and a dead worker's session comes back once its lease expires;
3. **consolidates due users** — the same for ``MemorySettings.consolidation_due_at`` under the
   consolidation lease (:func:`consolidation_process`).

A failure of one session or user is logged and leaves its due time in place (retried by the
next sweep); the sweep goes on with the others. ``on_commit(async_task)`` after an ingest stays
the fast path: the sweep is what makes a lost task, a killed cluster or a database outage cost
minutes instead of messages.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from django_q.models import Schedule

from profiles.models import MemorySettings

from .consolidate import ConsolidationResult, consolidation_run
from .due import consolidation_claim, consolidation_due_settle, lease_free, sessions_behind
from .extraction import extraction_run
from .models import Session

log = logging.getLogger("bizmemory.sweep")

SWEEP_SCHEDULE = "pipeline-sweep"


def sweep_schedule_ensure() -> bool:
    """Make sure exactly one ``pipeline-sweep`` schedule exists (every minute, repeats
    forever); returns True when it had to be created. Migration ``consolidation.0013`` creates
    it; this brings it back if the table was emptied (a flush, a restore of another database)."""
    with transaction.atomic():
        rows = list(Schedule.objects.select_for_update().filter(name=SWEEP_SCHEDULE).order_by("pk").values_list("pk", flat=True))
        if rows:
            Schedule.objects.filter(pk__in=rows[1:]).delete()
            return False
        Schedule.objects.create(name=SWEEP_SCHEDULE, func="consolidation.tasks.pipeline_sweep",
                                schedule_type=Schedule.MINUTES, minutes=1, repeats=-1, next_run=timezone.now())
    return True


_ensured = False  # this process has seen the sweep schedule exist


def sweep_schedule_ensure_once() -> None:
    """Ensure the sweep schedule once per process (:func:`sweep_schedule_ensure`): at a
    worker's spawn and, until that has succeeded, at the start of every pipeline task — so a
    worker that started while the database was down still brings the schedule back with its
    first task after the outage. A database error is logged, never raised."""
    global _ensured
    if _ensured:
        return
    try:
        if sweep_schedule_ensure():
            log.warning("sweep: the %s schedule was missing and has been created", SWEEP_SCHEDULE)
        _ensured = True
    except DatabaseError:
        log.exception("sweep: could not ensure the %s schedule", SWEEP_SCHEDULE)


def sweep_schedule_on_spawn(sender=None, proc_name: str = "", **kwargs) -> None:
    """django-q2 ``post_spawn`` receiver: a worker that starts ensures the sweep schedule."""
    sweep_schedule_ensure_once()


@dataclass
class SweepResult:
    """What one sweep did: ``behind`` sessions found in the impossible state (and repaired),
    ``extracted`` / ``consolidated`` runs by status (``{"done": 3, "throttled": 1}``),
    ``failed`` runs (an exception, logged), and ``more``: rows still due beyond the batch."""

    behind: int = 0
    extracted: dict[str, int] = field(default_factory=dict)
    consolidated: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    more: bool = False


def consolidation_process(*, user_id: int, now: dt.datetime | None = None) -> tuple[ConsolidationResult, dt.datetime | None]:
    """Consolidate one user under the consolidation lease and settle the due time.

    Inputs: the user's primary key and the clock. Returns ``(result, due)``: the run's
    :class:`~consolidation.consolidate.ConsolidationResult` (status ``locked`` when another live
    run holds the lease; nothing was done then) and the user's due time afterwards (None =
    nothing due; unchanged when locked). Re-raises the run's exception after settling (the user
    is backed off by one lease)."""
    now = now or timezone.now()
    token = consolidation_claim(user_id=user_id, now=now)
    if token is None:
        return ConsolidationResult("locked"), None
    try:
        result = consolidation_run(user_id=user_id, now=now)
    except Exception:
        consolidation_due_settle(user_id=user_id, token=token, now=now, status=None)
        raise
    due = consolidation_due_settle(user_id=user_id, token=token, now=now, status=result.status, retry_at=result.retry_at)
    return result, due


def sweep_run(*, now: dt.datetime | None = None, batch: int | None = None) -> SweepResult:
    """Run one sweep (see the module docstring). Inputs: the clock (default now) and the batch
    size (default ``BIZMEMORY['SWEEP_BATCH']``); with no clock each step reads the time when it
    starts (so users made due by this sweep's extractions are consolidated in it too), with one
    every step uses it (tests, replays). Returns a :class:`SweepResult`."""
    clock = (lambda: now) if now is not None else timezone.now
    now = clock()
    batch = batch or settings.BIZMEMORY["SWEEP_BATCH"]
    out = SweepResult()
    behind = list(sessions_behind(now=now).values_list("pk", flat=True)[:batch])
    if behind:
        out.behind = Session.objects.filter(pk__in=behind, extraction_due_at__isnull=True).update(extraction_due_at=now)
        log.warning("sweep: %d session(s) had turns past the watermark and nothing due: %s", out.behind, behind[:20])
    sessions = list(
        Session.objects.filter(lease_free("", now), extraction_due_at__lte=now)
        .order_by("extraction_due_at", "pk").values_list("pk", flat=True)[: batch + 1]
    )
    for session_id in sessions[:batch]:
        try:
            status = extraction_run(session_id=session_id, now=clock(), trigger="scheduled").status
        except Exception:
            log.exception("sweep: extraction of session %s failed; it stays due", session_id)
            out.failed += 1
            continue
        out.extracted[status] = out.extracted.get(status, 0) + 1
    now = clock()
    users = list(
        MemorySettings.objects.filter(lease_free("consolidation_", now), consolidation_due_at__lte=now)
        .order_by("consolidation_due_at", "pk").values_list("user_id", flat=True)[: batch + 1]
    )
    for user_id in users[:batch]:
        try:
            status = consolidation_process(user_id=user_id, now=clock())[0].status
        except Exception:
            log.exception("sweep: consolidation of user %s failed; it stays due", user_id)
            out.failed += 1
            continue
        out.consolidated[status] = out.consolidated.get(status, 0) + 1
    out.more = len(sessions) > batch or len(users) > batch
    if out.behind or out.extracted or out.consolidated or out.failed:
        log.info("sweep: behind=%d extracted=%s consolidated=%s failed=%d more=%s",
                 out.behind, out.extracted, out.consolidated, out.failed, out.more)
    return out
