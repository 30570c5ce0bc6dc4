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
    # A second batch in the same session: the run must read the new turns only (issue 18: with
    # nothing new, `has_new` answers before the read, so the read itself must be exercised).
    session, first = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=t0)
    assert _run(session, t0).status == "done"
    first_entries = set(JournalEntry.objects.values_list("pk", flat=True))
    assert first_entries
    _, second = post_turns("u1", "s1", [("user", "以后回答尽量简短。"), ("assistant", "好")], start=t0 + dt.timedelta(minutes=10))
    res = _run(session, t0 + dt.timedelta(minutes=12))
    assert res.status == "done" and res.messages_read == 2
    assert res.watermark == second[-1].pk
    new = JournalEntry.objects.exclude(pk__in=first_entries)
    assert new.exists() and {tuple(e.source_message_ids) for e in new} == {(second[0].pk,)}


def test_a_second_batch_in_one_session_is_journaled_once(db, t0):
    session, first = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=t0)
    _run(session, t0)
    after_first = sorted((tuple(ids), key, value) for ids, key, value in
                         JournalEntry.objects.values_list("source_message_ids", "key", "value"))
    assert after_first and {ids for ids, _k, _v in after_first} == {(first[0].pk,)}
    _, second = post_turns("u1", "s1", [("user", "以后回答尽量简短。"), ("assistant", "好")], start=t0 + dt.timedelta(minutes=10))
    _run(session, t0 + dt.timedelta(minutes=12))
    entries = sorted((tuple(ids), key, value) for ids, key, value in
                     JournalEntry.objects.values_list("source_message_ids", "key", "value"))
    assert len(entries) == len(set(entries))  # nothing journaled twice
    assert [e for e in entries if e[0] == (first[0].pk,)] == after_first  # the first batch was not re-read
    assert any(e[0] == (second[0].pk,) for e in entries)


def test_a_run_with_nothing_new_writes_nothing(db, t0):
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


def test_pii_message_is_quarantined_encrypted_and_only_its_pii_free_candidates_are_kept(db, t0):
    from consolidation.models import Message

    session, _ = post_turns("u1", "s1", [("user", "我是杭州的测试工程师，手机号13912345678。"), ("assistant", "好")], start=t0)
    res = _run(session, t0)
    assert res.quarantined == 1
    values = list(JournalEntry.objects.values_list("value", flat=True))
    assert "杭州" in values and not any("139" in v or "\u2588" in v for v in values)
    assert not Message.objects.get(role="user").memory_source  # never a search source
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


@pytest.mark.parametrize("meanwhile", ["another_run_took_the_lease", "another_writer_moved_the_watermark"])
def test_a_run_whose_lease_was_taken_over_writes_nothing(db, t0, monkeypatch, meanwhile):
    """The commit-time check (lease token and watermark, one conditional UPDATE) is what stops a
    run whose lease expired while it was reading from writing a second copy of the journal."""
    import consolidation.extraction as extraction
    from audit.models import AuditLog
    from consolidation.models import Message
    from profiles.models import MemorySettings

    session, stored = post_turns("u1", "s1", [
        ("user", PROFILE_TURN), ("assistant", "好的"), ("user", "我的手机号是13912345678，以后回答尽量简短。"), ("assistant", "好"),
    ], start=t0)
    real = extraction.candidates_extract

    def read_then_lose_the_lease(batch):
        # The run has taken its lease and read the turns; before it commits, the session moves on.
        if meanwhile == "another_run_took_the_lease":
            Session.objects.filter(pk=session.pk).update(lock_token="other-run", locked_until=t0 + dt.timedelta(hours=1))
        else:
            Session.objects.filter(pk=session.pk).update(watermark=stored[1].pk)
        return real(batch)

    monkeypatch.setattr(extraction, "candidates_extract", read_then_lose_the_lease)
    audits = AuditLog.objects.count()
    res = _run(session, t0)
    assert res.status == "locked" and res.journal_written == 0
    assert not JournalEntry.objects.exists()
    assert not QuarantineRecord.objects.exists()  # the PII turn is filed by the run that commits
    assert set(Message.objects.values_list("memory_source", flat=True)) == {None}
    assert MemorySettings.objects.get(user_id=session.user_id).last_extraction_at is None
    assert AuditLog.objects.count() == audits
    session.refresh_from_db()
    if meanwhile == "another_run_took_the_lease":
        assert session.watermark == 0
        assert session.lock_token == "other-run"  # and it does not release the other run's lease
    else:
        assert session.watermark == stored[1].pk


def test_a_disabled_expert_writes_no_memory_of_its_own_but_the_users_words_stay_a_source(db, t0, alice):
    # The eval README: disabled experts "must get no memory injected and write none of their own";
    # only experts_excluded_from_extraction is the source filter (the test above). So the user's
    # turn that the disabled expert answered is read; the expert's answer is no search source.
    memory_settings_update(user=alice, experts_disabled=["legal"])
    session, stored = post_turns(
        "alice", "s1",
        [("user", PROFILE_TURN), ("assistant", "好的，测试工程师", "legal"), ("user", "以后回答尽量简短。"), ("assistant", "好")],
        start=t0,
    )
    _run(session, t0)
    kinds = set(JournalEntry.objects.values_list("kind", flat=True))
    assert kinds == {"profile", "preference"}
    from consolidation.models import Message

    sources = dict(Message.objects.filter(session=session).values_list("pk", "memory_source"))
    assert sources[stored[0].pk] is True and sources[stored[1].pk] is False
    assert sources[stored[2].pk] is True and sources[stored[3].pk] is True


def test_a_session_owned_by_an_excluded_expert_writes_nothing_but_advances(db, t0, alice):
    memory_settings_update(user=alice, experts_excluded_from_extraction=["legal"])
    session, stored = post_turns("alice", "s1", [("user", PROFILE_TURN), ("assistant", "ok")], start=t0, agent="legal")
    res = _run(session, t0)
    assert res.status == "skipped" and "owner_expert_excluded" in res.reasons
    assert not JournalEntry.objects.exists()
    session.refresh_from_db()
    assert session.watermark == stored[-1].pk


def test_a_session_owned_by_a_disabled_expert_is_still_read(db, t0, alice):
    memory_settings_update(user=alice, experts_disabled=["legal"])
    session, _stored = post_turns("alice", "s1", [("user", PROFILE_TURN), ("assistant", "ok")], start=t0, agent="legal")
    res = _run(session, t0)
    assert res.status != "skipped"
    assert JournalEntry.objects.filter(kind="profile").exists()


def test_relative_dates_are_resolved_against_the_message_time(db, t0):
    session, _ = post_turns("u1", "s1", [("user", "我女儿去年九月上的小学。"), ("assistant", "好的"),
                                         ("user", "My son started university last fall."), ("assistant", "ok")], start=t0)
    _run(session, t0)
    dates = dict(JournalEntry.objects.filter(kind="fact").values_list("key", "fact_date"))
    assert dates == {"fact:school:女儿": dt.date(2025, 9, 1), "fact:school:son": dt.date(2025, 9, 1)}


# ----------------------------------------------------------------------------- quiet period
def _quiet_settings(settings, quiet=120):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="throttled", EXTRACTION_WINDOW_SECONDS=600,
                              EXTRACTION_QUIET_SECONDS=quiet)


def test_a_throttled_ingest_loses_no_message_a_quiet_run_picks_them_up(db, settings):
    from django.utils import timezone

    from consolidation.sweep import sweep_run
    from consolidation.tasks import extract_session

    _quiet_settings(settings)
    now = timezone.now()
    s1, _ = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好的")], start=now - dt.timedelta(minutes=6))
    assert extract_session(s1.pk, "ingest")["status"] == "done"
    s2, stored = post_turns("u1", "s2", [("user", "以后回答尽量简短。"), ("assistant", "好"), ("user", "我女儿去年九月上的小学。")],
                            start=now - dt.timedelta(minutes=3))
    assert extract_session(s2.pk, "ingest")["status"] == "throttled"
    due = Session.objects.values_list("extraction_due_at", flat=True).get(pk=s2.pk)
    assert due == s1.last_extracted_at + dt.timedelta(seconds=600) if s1.last_extracted_at else due > now
    # The sweep runs s2 once the throttle window is over; by then the session has been quiet
    # for longer than the quiet period, so the unanswered last message is extracted too.
    assert sweep_run(now=now + dt.timedelta(minutes=11)).extracted == {"done": 1}
    s2.refresh_from_db()
    assert s2.watermark == stored[-1].pk and s2.extraction_due_at is None
    assert set(JournalEntry.objects.filter(session=s2).values_list("kind", flat=True)) == {"preference", "fact"}


def test_a_quiet_run_before_the_session_is_quiet_leaves_the_unanswered_message(db, settings, t0):
    _quiet_settings(settings, quiet=300)
    session, stored = post_turns("u1", "s1", [("user", PROFILE_TURN), ("assistant", "好"), ("user", "以后回答尽量简短。")], start=t0)
    res = extraction_run(session_id=session.pk, now=stored[-1].created_at + dt.timedelta(seconds=60), trigger="quiet")
    assert res.status == "done"
    session.refresh_from_db()
    assert session.watermark == stored[1].pk
    assert not JournalEntry.objects.filter(kind="preference").exists()


def test_new_messages_push_the_quiet_due_time_later(db, settings):
    from django.utils import timezone

    _quiet_settings(settings)
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="always")
    now = timezone.now()
    session, first = post_turns("u1", "s1", [("user", PROFILE_TURN)], start=now)
    extraction_run(session_id=session.pk, now=now)
    session.refresh_from_db()
    assert session.watermark < first[0].pk and session.extraction_due_at == first[0].created_at + dt.timedelta(seconds=120)
    _, later = post_turns("u1", "s1", [("assistant", "好"), ("user", "以后回答尽量简短。")], start=now + dt.timedelta(minutes=1))
    extraction_run(session_id=session.pk, now=now + dt.timedelta(minutes=1))
    session.refresh_from_db()
    assert session.watermark == later[0].pk  # the answered turn is done; the new one waits
    assert session.extraction_due_at == later[-1].created_at + dt.timedelta(seconds=120)


def test_a_zero_quiet_period_takes_an_unanswered_turn_at_once(db, settings, t0):
    _quiet_settings(settings, quiet=0)
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_POLICY="always")
    session, stored = post_turns("u1", "s1", [("user", PROFILE_TURN)], start=t0)
    assert extraction_run(session_id=session.pk, now=t0, trigger="ingest").status == "done"
    session.refresh_from_db()
    assert session.watermark == stored[-1].pk and session.extraction_due_at is None


def test_a_negative_quiet_period_fails_the_system_check(settings):
    from consolidation.checks import check_consolidation_settings

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EXTRACTION_QUIET_SECONDS=-1, LLM_TIMEOUT_SECONDS=0)
    errors = {(e.id, e.msg.split(" ")[0]) for e in check_consolidation_settings()}
    assert ("bizmemory.E003", "BIZMEMORY_EXTRACTION_QUIET_SECONDS") in errors
    assert ("bizmemory.E002", "BIZMEMORY_LLM_TIMEOUT_SECONDS") in errors
