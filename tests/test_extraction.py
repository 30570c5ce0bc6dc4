"""Extraction service mechanics: watermark, throttle, lock, switches, sanitizer blocking."""

import datetime as dt
import threading

import pytest
from django.db import connection

from audit.models import QuarantineRecord
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Session
from profiles.services import memory_settings_update

from .helpers import post_turns

PROFILE_TURN = "我是杭州研发中心的测试工程师，主要写Python。"


def _run(session, t, trigger="session_end"):
    return extraction_run(session_id=session.pk, now=t, trigger=trigger)


def test_it_journals_candidates_and_advances_the_watermark(db, t0):
    session, stored = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=t0)
    res = _run(session, t0)
    assert res.status == "done"
    assert res.journal_written >= 1
    session.refresh_from_db()
    assert session.watermark == stored[-1].pk
    assert set(JournalEntry.objects.values_list("session_id", flat=True)) == {session.pk}


def test_it_reads_only_messages_after_the_watermark(db, t0):
    session, _ = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=t0)
    _run(session, t0)
    first = JournalEntry.objects.count()
    assert _run(session, t0 + dt.timedelta(minutes=5)).status == "nothing_new"
    assert JournalEntry.objects.count() == first


def test_nothing_new_does_not_use_up_the_throttle_window(db, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600)
    s1, _ = post_turns("u1", "s1", [("user", "hello"), ("assistant", "hi")], start=t0)
    extraction_run(session_id=s1.pk, now=t0, trigger="ingest")
    res = extraction_run(session_id=s1.pk, now=t0 + dt.timedelta(seconds=10), trigger="ingest")
    assert res.status == "nothing_new"
    from profiles.models import MemorySettings

    assert MemorySettings.objects.get(user__username="u1").last_extraction_at == t0


def test_throttle_defers_within_the_window_and_session_end_bypasses_it(db, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600)
    s1, _ = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=t0)
    assert extraction_run(session_id=s1.pk, now=t0, trigger="ingest").status == "done"
    s2, _ = post_turns("u1", "s2", [("user", "以后回答尽量简短。"), ("assistant", "好")], start=t0 + dt.timedelta(minutes=1))
    res = extraction_run(session_id=s2.pk, now=t0 + dt.timedelta(minutes=2), trigger="ingest")
    assert res.status == "throttled"
    assert res.retry_at == t0 + dt.timedelta(seconds=600)
    assert extraction_run(session_id=s2.pk, now=t0 + dt.timedelta(minutes=3), trigger="session_end").status == "done"


def test_policy_never_extracts_nothing_and_keeps_the_watermark(db, t0, alice):
    memory_settings_update(user=alice, extraction_policy="never")
    session, _ = post_turns("alice", "s1", [("user", PROFILE_TURN)], start=t0)
    assert _run(session, t0).status == "never"
    session.refresh_from_db()
    assert session.watermark == 0
    assert not JournalEntry.objects.exists()


@pytest.mark.parametrize(
    "kind,temporary,memory_on",
    [("scheduled", False, True), ("chat", True, True), ("chat", False, False)],
    ids=["scheduled-session", "temporary-session", "memory-off"],
)
def test_no_source_sessions_write_nothing_but_advance(db, t0, kind, temporary, memory_on):
    from profiles.services import user_ensure

    memory_settings_update(user=user_ensure(external_id="u1"), memory_enabled=memory_on)
    session, stored = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "ok")], start=t0, kind=kind, temporary=temporary)
    res = _run(session, t0)
    assert res.status == "skipped"
    assert not JournalEntry.objects.exists()
    session.refresh_from_db()
    assert session.watermark == stored[-1].pk


def test_turns_answered_by_an_excluded_expert_are_not_a_source(db, t0, alice):
    memory_settings_update(user=alice, experts_excluded_from_extraction=["legal"])
    session, _ = post_turns(
        "alice", "s1",
        [("user", PROFILE_TURN), ("assistant", "好的", "legal"), ("user", "以后回答尽量简短。"), ("assistant", "好")],
        start=t0,
    )
    _run(session, t0)
    keys = list(JournalEntry.objects.values_list("kind", flat=True))
    assert "profile" not in keys
    assert "preference" in keys


def test_pii_message_is_quarantined_encrypted_and_yields_nothing(db, t0):
    session, _ = post_turns("u1", "s1", [("user", "我是杭州的测试工程师，手机号13912345678。"), ("assistant", "好")], start=t0)
    res = _run(session, t0)
    assert res.quarantined == 1
    assert not JournalEntry.objects.exists()
    rec = QuarantineRecord.objects.get()
    assert "CN_MOBILE" in rec.hit_types or "PHONE" in rec.hit_types
    assert b"13912345678" not in bytes(rec.original_encrypted)
    assert "13912345678" not in rec.preview
    from audit.crypto import decrypt

    assert "13912345678" in decrypt(rec.original_encrypted)


def test_sensitive_word_glued_to_chinese_is_quarantined(db, t0):
    session, _ = post_turns("u1", "s1", [("user", "我是销售经理，这份绝密报价单你看下"), ("assistant", "好")], start=t0)
    assert _run(session, t0).quarantined == 1
    assert not JournalEntry.objects.exists()


def test_unanswered_last_user_message_waits_until_answered_or_session_end(db, t0):
    session, stored = post_turns("u1", "s1", [("user", PROFILE_TURN)], start=t0)
    res = extraction_run(session_id=session.pk, now=t0, trigger="ingest")
    assert res.journal_written == 0
    session.refresh_from_db()
    assert session.watermark < stored[0].pk
    assert extraction_run(session_id=session.pk, now=t0, trigger="session_end").journal_written >= 1


def test_a_held_lock_makes_the_second_run_skip(db, t0):
    session, _ = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "ok")], start=t0)
    Session.objects.filter(pk=session.pk).update(lock_token="other", locked_until=t0 + dt.timedelta(minutes=1))
    assert _run(session, t0).status == "locked"
    assert not JournalEntry.objects.exists()
    # The lease expires: a later run proceeds.
    assert _run(session, t0 + dt.timedelta(minutes=2)).status == "done"


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_runs_write_the_journal_once(t0):
    session, _ = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "ok")], start=t0)
    results, barrier = [], threading.Barrier(2)

    def worker():
        try:
            barrier.wait()
            results.append(_run(session, t0).status)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "done" in results
    assert len(results) == 2
    per_message = JournalEntry.objects.values_list("source_message_ids", "key")
    assert len(per_message) == len(set((tuple(a), b) for a, b in per_message))
