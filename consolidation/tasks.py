"""django-q2 tasks. They receive ids, call a service, and queue follow-up work.

Queue with the ``enqueue_*`` helpers: they defer to ``transaction.on_commit`` so
a job never sees a half-written transaction. They are only the fast path: the work itself is
recorded on the domain rows (:mod:`consolidation.due`) and the ``pipeline-sweep`` schedule runs
whatever a lost task left behind (issue 14).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from .extraction import extraction_run

log = logging.getLogger("bizmemory.tasks")


def enqueue_extraction(*, session_id: int, trigger: str) -> None:
    """Queue :func:`extract_session` after the current transaction commits."""
    transaction.on_commit(lambda: async_task("consolidation.tasks.extract_session", session_id, trigger, group="extraction"))


def enqueue_consolidation(*, user_id: int) -> None:
    """Queue :func:`consolidate_user` after the current transaction commits."""
    transaction.on_commit(lambda: async_task("consolidation.tasks.consolidate_user", user_id, group="consolidation"))


def extract_session(session_id: int, trigger: str = "scheduled") -> dict:
    """Task (the fast path after an ingest or a session end): run extraction for a session.

    The work itself is recorded on the session row (``extraction_due_at``,
    :mod:`consolidation.due`), so this task may be lost with the broker, its worker killed or
    the database down: the next :func:`pipeline_sweep` runs the session instead. When the run
    leaves the session due now (turns arrived while it ran), one more run is queued; when it
    wrote to the journal, the user's consolidation is queued (the user is already due).
    Returns the :class:`~consolidation.extraction.ExtractionResult` as a dict."""
    from .models import Session
    from .sweep import sweep_schedule_ensure_once

    sweep_schedule_ensure_once()
    result = extraction_run(session_id=session_id, trigger=trigger)
    due = Session.objects.filter(pk=session_id).values_list("extraction_due_at", "user_id").first()
    if due and due[0] is not None and due[0] <= timezone.now() and result.status == "done":
        enqueue_extraction(session_id=session_id, trigger="scheduled")
    if result.journal_written and due:
        enqueue_consolidation(user_id=due[1])
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}


def consolidate_user(user_id: int) -> dict:
    """Task (the fast path after a journal append): consolidate a user under the consolidation
    lease (:func:`consolidation.sweep.consolidation_process`). When the run leaves the user due
    now (more batches than ``CONSOLIDATION_MAX_BATCHES``, or entries appended meanwhile), one
    more run is queued; a user another run holds, or one that is too soon, is left to that run
    or the sweep. Returns the :class:`~consolidation.consolidate.ConsolidationResult` as a dict."""
    from .sweep import consolidation_process, sweep_schedule_ensure_once

    sweep_schedule_ensure_once()
    result, due = consolidation_process(user_id=user_id)
    if due is not None and due <= timezone.now() and result.status in ("done", "deferred"):
        enqueue_consolidation(user_id=user_id)
    return result.__dict__ | {"retry_at": str(result.retry_at) if result.retry_at else None}


def pipeline_sweep() -> dict:
    """Task (schedule ``pipeline-sweep``, every minute): claim due sessions and users and run
    them (:func:`consolidation.sweep.sweep_run`); when more are due than one batch, queue another
    sweep at once. Returns the :class:`~consolidation.sweep.SweepResult` as a dict."""
    from .sweep import sweep_run

    result = sweep_run()
    if result.more:
        async_task("consolidation.tasks.pipeline_sweep", group="sweep")
    return result.__dict__


def retention_purge() -> dict:
    """Task (scheduled daily as ``retention-purge-daily``): run every retention purge;
    returns ``{purge name: rows deleted}`` (consolidation.retention.retention_purge_all)."""
    from .retention import retention_purge_all

    counts = retention_purge_all()
    log.info("retention purge: %s", counts)
    return counts
