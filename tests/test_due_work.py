"""Due work on the domain rows and the pipeline sweep (issue 14: no message is ever left
unextracted), in process against the test database.

The killed-worker, killed-cluster and database-outage cases run against real processes in
tests/e2e/test_reliability_faults.py; here each state transition of consolidation.due and
consolidation.sweep is pinned: what marks work due, what a run leaves due, what the sweep
claims, and that the impossible state (a user turn past the watermark with nothing due and no
lease) is never produced by the pipeline and is repaired when it is made by hand.
"""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule

from consolidation.consolidate import proposal_approve
from consolidation.due import (
    consolidation_claim, extraction_due_settle, sessions_behind,
)
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, JournalStatus, Message, Session
from consolidation.sweep import consolidation_process, sweep_run
from consolidation.tasks import extract_session
from profiles.models import ConsolidationProposal, MemoryItem, MemorySettings
from profiles.services import memory_settings_update

from .helpers import post_turns

pytestmark = pytest.mark.django_db

LEEDS = [("user", "I live in Leeds."), ("assistant", "OK.")]


@pytest.fixture
def always(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="always", EXTRACTION_QUIET_SECONDS=120,
                              CONSOLIDATION_MIN_INTERVAL_SECONDS=0)
    return settings


def _due(session):
    return Session.objects.values_list("extraction_due_at", flat=True).get(pk=session.pk)


def _user_due(user_id):
    return MemorySettings.objects.values_list("consolidation_due_at", flat=True).get(user_id=user_id)


def _city(username):
    return list(MemoryItem.objects.filter(user__username=username, key="city", valid_until__isnull=True)
                .values_list("value", flat=True))


def test_an_ingest_records_the_work_on_the_session_in_its_transaction(always):
    now = timezone.now()
    session, stored = post_turns("alice", "s1", LEEDS, start=now)
    row = Session.objects.get(pk=session.pk)
    assert row.extraction_due_at == now
    assert row.last_user_message_id == stored[0].pk  # the user turn, not the assistant's
    assert row.watermark == 0 and list(sessions_behind(now=now)) == []


def test_a_lost_fast_path_task_is_run_by_the_sweep_and_nothing_is_left(always):
    # post_turns queues no task at all: the worst case of a broker that lost every message.
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    out = sweep_run()
    assert out.behind == 0 and out.extracted == {"done": 1} and out.consolidated == {"done": 1}
    row = Session.objects.get(pk=session.pk)
    assert row.watermark == stored[-1].pk and row.extraction_due_at is None
    assert _city("alice") == ["Leeds"] and _user_due(session.user_id) is None
    again = sweep_run()
    assert (again.behind, again.extracted, again.consolidated) == (0, {}, {})


def test_a_run_that_dies_mid_way_leaves_the_session_due_and_the_sweep_finishes_it_after_the_lease(always):
    always.BIZMEMORY = dict(always.BIZMEMORY, EXTRACTION_LEASE_SECONDS=30)
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))

    def die(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("INSERT") and "consolidation_journalentry" in sql:
            raise ConnectionError("worker lost mid-run")  # what SIGKILL or an outage leaves: no commit
        return execute(sql, params, many, context)

    with connection.execute_wrapper(die), pytest.raises(ConnectionError):
        extract_session(session.pk, "ingest")
    row = Session.objects.get(pk=session.pk)
    assert row.watermark == 0 and row.extraction_due_at is not None and not JournalEntry.objects.exists()
    # A killed worker never reaches its `finally`: its lease stays until it expires.
    Session.objects.filter(pk=session.pk).update(lock_token="dead", locked_until=timezone.now() + dt.timedelta(seconds=30))
    assert sweep_run().extracted == {}  # the lease is live: nobody else takes the session
    assert sweep_run(now=timezone.now() + dt.timedelta(seconds=31)).extracted == {"done": 1}
    assert Session.objects.get(pk=session.pk).watermark == stored[-1].pk
    assert JournalEntry.objects.filter(session=session).count() == 1  # journaled once


def test_a_throttled_run_moves_the_due_time_to_the_end_of_the_window(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600,
                              EXTRACTION_QUIET_SECONDS=0)
    now = timezone.now()
    s1, _ = post_turns("alice", "s1", LEEDS, start=now - dt.timedelta(minutes=3))
    assert extraction_run(session_id=s1.pk).status == "done"
    s2, stored = post_turns("alice", "s2", [("user", "Please keep answers short."), ("assistant", "Sure.")], start=now)
    res = extraction_run(session_id=s2.pk)
    assert res.status == "throttled"
    assert _due(s2) == res.retry_at and res.retry_at > now
    assert sweep_run().extracted == {}  # not due yet, and not "behind" either
    assert list(sessions_behind(now=now)) == []
    assert sweep_run(now=res.retry_at).extracted == {"done": 1}
    assert Session.objects.get(pk=s2.pk).watermark == stored[-1].pk


def test_an_ended_session_ignores_the_throttle_and_is_never_deferred(settings):
    from consolidation.ingest import session_end

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600)
    now = timezone.now()
    s1, _ = post_turns("alice", "s1", LEEDS, start=now - dt.timedelta(minutes=3))
    extraction_run(session_id=s1.pk)
    s2, stored = post_turns("alice", "s2", [("user", "Please keep answers short.")], start=now)
    session_end(session=s2, enqueue=False)
    assert sweep_run().extracted == {"done": 1}
    assert Session.objects.get(pk=s2.pk).watermark == stored[-1].pk and _due(s2) is None


def test_an_unanswered_last_turn_is_due_at_the_end_of_the_quiet_period(always):
    now = timezone.now()
    session, stored = post_turns("alice", "s1", [*LEEDS, ("user", "Please keep answers short.")],
                                 start=now - dt.timedelta(minutes=1))
    assert extraction_run(session_id=session.pk).status == "done"
    row = Session.objects.get(pk=session.pk)
    assert row.watermark == stored[1].pk  # the last user turn waits for its answer
    assert row.extraction_due_at == stored[-1].created_at + dt.timedelta(seconds=120)
    assert list(sessions_behind(now=now)) == []
    assert sweep_run(now=row.extraction_due_at).extracted == {"done": 1}
    row.refresh_from_db()
    assert row.watermark == stored[-1].pk and row.extraction_due_at is None


def test_turns_stored_while_a_run_reads_keep_the_session_due(always):
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    later, _ = post_turns("alice", "s1", [("user", "I speak Polish."), ("assistant", "OK.")], start=timezone.now())
    # The run read up to the first pair only, then found the newer turns when it settled.
    Session.objects.filter(pk=session.pk).update(watermark=stored[-1].pk)
    now = timezone.now()
    assert extraction_due_settle(session_id=session.pk, now=now, read_upto=stored[-1].pk) == now
    assert extraction_due_settle(session_id=session.pk, now=now, read_upto=None) == now


def test_the_sweep_reports_and_repairs_the_impossible_state(always):
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    Session.objects.filter(pk=session.pk).update(extraction_due_at=None)  # by hand: the pipeline never does this
    assert list(sessions_behind(now=timezone.now()).values_list("pk", flat=True)) == [session.pk]
    out = sweep_run()
    assert out.behind == 1 and out.extracted == {"done": 1}
    assert Session.objects.get(pk=session.pk).watermark == stored[-1].pk
    assert sweep_run().behind == 0


def test_deleted_turns_past_the_watermark_do_not_leave_the_session_behind(always):
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    Message.objects.filter(session=session).delete()
    assert extraction_run(session_id=session.pk).status == "nothing_new"
    row = Session.objects.get(pk=session.pk)
    assert row.extraction_due_at is None and row.watermark == stored[0].pk
    assert list(sessions_behind(now=timezone.now())) == []


def test_policy_never_parks_the_session_and_switching_it_back_wakes_it(always, alice):
    memory_settings_update(user=alice, extraction_policy="never")
    session, stored = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    assert sweep_run().extracted == {"never": 1}
    assert _due(session) is None and list(sessions_behind(now=timezone.now())) == []  # parked, not lost
    memory_settings_update(user=alice, extraction_policy="always")
    assert _due(session) is not None
    assert sweep_run().extracted == {"done": 1} and _city("alice") == ["Leeds"]


def test_a_journal_append_makes_the_user_due_and_a_live_consolidation_lease_is_respected(always):
    session, _ = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    assert extraction_run(session_id=session.pk).status == "done"
    user_id = session.user_id
    assert _user_due(user_id) is not None
    assert consolidation_claim(user_id=user_id, now=timezone.now())  # another worker holds the user
    assert consolidation_process(user_id=user_id)[0].status == "locked"
    assert sweep_run().consolidated == {}
    later = timezone.now() + dt.timedelta(seconds=121)  # CONSOLIDATION_LEASE_SECONDS = 120: dead holder
    assert sweep_run(now=later).consolidated == {"done": 1}
    assert _city("alice") == ["Leeds"] and _user_due(user_id) is None
    assert MemorySettings.objects.get(user_id=user_id).consolidation_locked_until is None


def test_too_soon_defers_the_user_and_a_failed_run_backs_off(always, monkeypatch):
    always.BIZMEMORY = dict(always.BIZMEMORY, CONSOLIDATION_MIN_INTERVAL_SECONDS=600)
    session, _ = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    extraction_run(session_id=session.pk)
    user_id = session.user_id
    now = timezone.now()
    MemorySettings.objects.filter(user_id=user_id).update(last_consolidation_at=now)
    assert consolidation_process(user_id=user_id)[0].status == "too_soon"
    assert _user_due(user_id) == now + dt.timedelta(seconds=600)

    import consolidation.sweep as sweep

    def boom(**kwargs):
        raise RuntimeError("database gone")

    monkeypatch.setattr(sweep, "consolidation_run", boom)
    out = sweep_run(now=now + dt.timedelta(seconds=601))
    assert out.failed == 1 and out.consolidated == {}
    due = _user_due(user_id)
    assert due is not None and due > timezone.now() + dt.timedelta(seconds=100)  # one lease later
    assert JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).count() == 1


def test_a_held_user_waits_for_the_admin_and_is_due_again_after_approval(always, alice):
    from profiles.models import ProposalStatus

    session, _ = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    extraction_run(session_id=session.pk)
    proposal = ConsolidationProposal.objects.create(user=alice, journal_entry_ids=[], status=ProposalStatus.PENDING,
                                                  created_at=timezone.now())
    assert sweep_run().consolidated == {"held": 1}
    assert _user_due(alice.pk) is None  # no retry loop while an admin decides
    proposal_approve(proposal_id=proposal.pk)
    assert _user_due(alice.pk) is not None
    assert sweep_run().consolidated == {"done": 1} and _city("alice") == ["Leeds"]


def test_the_sweep_claims_at_most_one_batch_and_says_more_is_due(always):
    start = timezone.now() - dt.timedelta(minutes=5)
    for i in range(3):
        post_turns(f"u{i}", f"s{i}", LEEDS, start=start)
    out = sweep_run(batch=2)
    assert sum(out.extracted.values()) == 2 and out.more
    out = sweep_run(batch=2)
    assert sum(out.extracted.values()) == 1


def test_the_sweep_is_a_schedule_and_the_old_crash_guard_schedules_are_gone():
    sweep = Schedule.objects.get(name="pipeline-sweep")
    assert sweep.func == "consolidation.tasks.pipeline_sweep"
    assert (sweep.schedule_type, sweep.minutes, sweep.repeats) == (Schedule.MINUTES, 1, -1)
    import consolidation.tasks as tasks

    assert not hasattr(tasks, "_crash_guard") and not hasattr(tasks, "extraction_schedule_quiet")


def test_a_starting_worker_brings_the_sweep_schedule_back_once(monkeypatch):
    from django_q.signals import post_spawn

    import consolidation.sweep as sweep

    monkeypatch.setattr(sweep, "_ensured", False)
    Schedule.objects.filter(name="pipeline-sweep").delete()
    post_spawn.send(sender="django_q", proc_name="Process-1")
    post_spawn.send(sender="django_q", proc_name="Process-2")
    assert Schedule.objects.filter(name="pipeline-sweep").count() == 1


def _ingest(user, session, text, now):
    from consolidation.ingest import IncomingMessage, messages_ingest

    return messages_ingest(user_id=user, session_id=session, messages=[IncomingMessage(role="user", content=text, created_at=now)],
                           agent="main", session_kind="chat", temporary=False, now=now, enqueue=True)


def test_no_task_is_queued_for_a_session_whose_work_is_already_due(always, django_capture_on_commit_callbacks):
    now = timezone.now()
    with django_capture_on_commit_callbacks() as first:
        _ingest("alice", "s1", "I live in Leeds.", now)
    with django_capture_on_commit_callbacks() as second:
        _ingest("alice", "s1", "I use Python at work.", now + dt.timedelta(seconds=1))
    assert (len(first), len(second)) == (1, 0)  # the queued run reads both turns
    assert Session.objects.get(external_id="s1").extraction_due_at == now  # the earlier due time is kept


def test_no_task_is_queued_for_a_throttled_user_and_the_deferral_stands(settings, alice, django_capture_on_commit_callbacks):
    from consolidation.ingest import session_end

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600)
    now = timezone.now()
    MemorySettings.objects.filter(user=alice).update(last_extraction_at=now - dt.timedelta(seconds=60))
    with django_capture_on_commit_callbacks() as queued:
        session, _ = _ingest("alice", "s1", "I live in Leeds.", now)
    assert queued == []
    assert _due(session) == now + dt.timedelta(seconds=540)  # the end of the window
    with django_capture_on_commit_callbacks() as ended:
        session_end(session=session, now=now + dt.timedelta(seconds=5))
    assert len(ended) == 1 and _due(session) == now + dt.timedelta(seconds=5)  # the end ignores the throttle


def test_a_new_turn_brings_a_quiet_period_forward_for_an_unthrottled_user(always, django_capture_on_commit_callbacks):
    now = timezone.now()
    session, stored = post_turns("alice", "s1", [("user", "I live in Leeds.")], start=now)
    extraction_run(session_id=session.pk, now=now)
    assert _due(session) == stored[0].created_at + dt.timedelta(seconds=120)  # waits for the answer
    from consolidation.ingest import IncomingMessage, messages_ingest

    later = now + dt.timedelta(seconds=10)
    with django_capture_on_commit_callbacks() as queued:
        messages_ingest(user_id="alice", session_id="s1", messages=[IncomingMessage(role="assistant", content="OK.", created_at=later)],
                        agent="main", session_kind="chat", temporary=False, now=later, enqueue=True)
    assert len(queued) == 1 and _due(session) == later


def test_a_worker_that_started_during_an_outage_brings_the_schedule_back_with_its_first_task(always, monkeypatch):
    # CI found it: a cluster spawned while the database was cut could not create the schedule,
    # so no sweep ever ran after the outage. Its first task after the outage does it now.
    import consolidation.sweep as sweep
    from django.db import OperationalError

    monkeypatch.setattr(sweep, "_ensured", False)
    Schedule.objects.filter(name="pipeline-sweep").delete()
    real = sweep.sweep_schedule_ensure
    monkeypatch.setattr(sweep, "sweep_schedule_ensure", lambda: (_ for _ in ()).throw(OperationalError("down")))
    sweep.sweep_schedule_on_spawn(sender="django_q", proc_name="Process-1")  # at spawn: the database is down
    assert not Schedule.objects.filter(name="pipeline-sweep").exists()
    monkeypatch.setattr(sweep, "sweep_schedule_ensure", real)
    session, _ = post_turns("alice", "s1", LEEDS, start=timezone.now() - dt.timedelta(minutes=5))
    extract_session(session.pk, "ingest")  # the first task after the outage
    assert Schedule.objects.filter(name="pipeline-sweep").count() == 1
