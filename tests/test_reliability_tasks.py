"""Crash safety of the django-q2 tasks (consolidation/tasks.py), in-process.

The killed-worker cases themselves run against real processes in
tests/e2e/test_reliability_faults.py; here: a run stores its crash guard while it works and
removes it when it ends, and a run that finds the session locked is retried after the lease.
"""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule

from consolidation.models import Session
from consolidation.tasks import consolidate_user, extract_session

from .helpers import post_turns

pytestmark = pytest.mark.django_db


def _guards():
    return list(Schedule.objects.filter(name__startswith="recover:").values_list("name", "func", "args", "repeats"))


def test_it_keeps_a_crash_guard_only_while_the_extraction_runs(t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="always", EXTRACTION_QUIET_SECONDS=0)
    session, _ = post_turns("alice", "s-guard", [("user", "I live in Leeds."), ("assistant", "OK.")], start=t0)
    seen = []

    def spy(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("INSERT") and "consolidation_journalentry" in sql:
            seen.append(_guards())  # in the middle of the run: the journal is being written
        return execute(sql, params, many, context)

    with connection.execute_wrapper(spy):
        extract_session(session.pk, "session_end")
    assert seen and len(seen[0]) == 1
    assert seen[0][0][0].startswith(f"recover:extract:{session.pk}:")
    assert _guards() == []
    assert Session.objects.get(pk=session.pk).watermark > 0


def test_it_leaves_a_guard_scheduling_the_same_task_when_the_run_dies(t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_LEASE_SECONDS=7)
    session, _ = post_turns("alice", "s-dead", [("user", "I live in Leeds."), ("assistant", "OK.")], start=t0)

    import consolidation.tasks as tasks

    ctx = tasks._crash_guard("extract", "consolidation.tasks.extract_session", (session.pk, "ingest"))
    before = timezone.now()
    ctx.__enter__()  # the run starts; then SIGKILL: the block is never left, `finally` never runs
    (name, func, args, repeats), = _guards()
    assert name.startswith(f"recover:extract:{session.pk}:")
    assert func == "consolidation.tasks.extract_session" and args == repr((session.pk, "ingest"))
    assert repeats == -1  # django-q2 deletes a fired ONCE schedule with negative repeats
    next_run = Schedule.objects.get(name=name).next_run
    assert before + dt.timedelta(seconds=12) <= next_run <= timezone.now() + dt.timedelta(seconds=12)


def test_a_run_that_finds_the_session_locked_is_retried_after_the_lease(t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="always", EXTRACTION_QUIET_SECONDS=0)
    session, _ = post_turns("alice", "s-locked", [("user", "I live in Leeds."), ("assistant", "OK.")], start=t0)
    until = timezone.now() + dt.timedelta(seconds=90)
    Session.objects.filter(pk=session.pk).update(lock_token="someone-else", locked_until=until)

    out = extract_session(session.pk, "session_end")

    assert out["status"] == "locked"
    retry = Schedule.objects.get(name=f"extract:{session.pk}")
    assert retry.args == repr((session.pk, "session_end"))
    assert until < retry.next_run <= until + dt.timedelta(seconds=2)
    assert _guards() == []


def test_a_consolidation_run_removes_its_guard(t0, alice):
    consolidate_user(alice.pk)
    assert _guards() == []
