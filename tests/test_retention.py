"""Retention purges delete exactly the rows past their retention, and nothing else."""

import datetime as dt
import json
from io import StringIO

from django.core.management import call_command

from audit.models import AuditLog
from consolidation.models import JournalEntry, JournalStatus, Message, Session
from profiles.models import Snapshot, SnapshotReason
from consolidation.retention import (
    journal_archive_purge, journal_pending_purge, message_purge, retention_purge_all, snapshot_purge,
)
from tests.helpers import post_turns

DAY = dt.timedelta(days=1)


def _entry(user, at, status=JournalStatus.PENDING, consolidated_at=None):
    return JournalEntry.objects.create(
        user=user, kind="profile", key="city", value="杭州", text="城市：杭州", observed_at=at, created_at=at,
        status=status, consolidated_at=consolidated_at, tokens=5,
    )


def _settings(settings, **kw):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, **kw)


def test_it_purges_archived_entries_past_the_archive_retention(alice, t0, settings):
    _settings(settings, ARCHIVE_RETENTION_DAYS=90)
    now = t0 + 100 * DAY
    old = _entry(alice, t0, JournalStatus.ARCHIVED, consolidated_at=now - 91 * DAY)
    kept = _entry(alice, t0, JournalStatus.ARCHIVED, consolidated_at=now - 89 * DAY)
    pending = _entry(alice, t0)  # pending: not the archive's business
    assert journal_archive_purge(now=now) == 1
    assert set(JournalEntry.objects.values_list("pk", flat=True)) == {kept.pk, pending.pk}
    assert not JournalEntry.objects.filter(pk=old.pk).exists()
    assert AuditLog.objects.get(action="retention.purged").details == {"count": 1}


def test_it_purges_the_pending_journal_past_its_retention(alice, t0, settings):
    _settings(settings, JOURNAL_RETENTION_DAYS=30)
    now = t0 + 40 * DAY
    _entry(alice, now - 31 * DAY)
    kept = _entry(alice, now - 29 * DAY)
    archived = _entry(alice, now - 31 * DAY, JournalStatus.ARCHIVED, consolidated_at=now)
    assert journal_pending_purge(now=now) == 1
    assert set(JournalEntry.objects.values_list("pk", flat=True)) == {kept.pk, archived.pk}


def test_it_purges_snapshots_beyond_k_per_user(alice, bob, settings):
    from profiles.versions import snapshot_create

    for _ in range(4):
        snapshot_create(user_id=alice.pk, reason=SnapshotReason.MANUAL)
    snapshot_create(user_id=bob.pk, reason=SnapshotReason.MANUAL)
    _settings(settings, SNAPSHOTS_KEEP=2)
    assert snapshot_purge() == 2
    assert list(Snapshot.objects.filter(user=alice).order_by("version").values_list("version", flat=True)) == [3, 4]
    assert Snapshot.objects.filter(user=bob).count() == 1


def test_it_never_purges_messages_after_the_watermark(alice, t0, settings):
    _settings(settings, MESSAGE_RETENTION_DAYS=30)
    session, msgs = post_turns("alice", "s-1", [("user", f"消息{i}") for i in range(4)], start=t0)
    Session.objects.filter(pk=session.pk).update(watermark=msgs[1].pk)  # first two extracted
    _, recent = post_turns("alice", "s-2", [("user", "新消息")], start=t0 + 60 * DAY)
    Session.objects.filter(external_id="s-2").update(watermark=recent[0].pk)
    assert message_purge(now=t0 + 45 * DAY) == 2
    assert set(Message.objects.values_list("pk", flat=True)) == {msgs[2].pk, msgs[3].pk, recent[0].pk}


def test_purge_all_runs_every_purge_with_one_clock(alice, t0, settings):
    _settings(settings, ARCHIVE_RETENTION_DAYS=10, JOURNAL_RETENTION_DAYS=10, MESSAGE_RETENTION_DAYS=10)
    now = t0 + 20 * DAY
    _entry(alice, t0, JournalStatus.ARCHIVED, consolidated_at=t0)
    _entry(alice, t0)
    session, msgs = post_turns("alice", "s-1", [("user", "你好")], start=t0)
    Session.objects.filter(pk=session.pk).update(watermark=msgs[0].pk)
    counts = retention_purge_all(now=now)
    assert counts == {
        "journal_archived": 1, "journal_pending": 1, "superseded_items": 0, "snapshots": 0, "messages": 1, "quarantine": 0,
    }
    assert not JournalEntry.objects.exists() and not Message.objects.exists()


def test_the_purge_commands_call_the_purges(alice, t0, settings):
    _settings(settings, ARCHIVE_RETENTION_DAYS=10)
    _entry(alice, t0, JournalStatus.ARCHIVED, consolidated_at=t0)
    out = StringIO()
    call_command("purge_journal_archive", "--now", (t0 + 11 * DAY).isoformat(), stdout=out)
    assert out.getvalue().startswith("purged 1 ")
    for name in ("purge_journal", "purge_snapshots", "purge_messages"):
        out = StringIO()
        call_command(name, stdout=out)
        assert out.getvalue().startswith("purged 0 ")
    out = StringIO()
    call_command("purge_all", stdout=out)
    assert json.loads(out.getvalue())["purged"]["journal_archived"] == 0


def test_the_daily_schedule_exists_once(db):
    from django_q.models import Schedule

    rows = Schedule.objects.filter(name="retention-purge-daily")
    assert rows.count() == 1 and rows.get().func == "consolidation.tasks.retention_purge"
    assert rows.get().schedule_type == Schedule.DAILY


def test_superseded_items_are_purged_after_the_archive_retention_but_never_current_or_pending_ones(alice, t0, settings):
    from profiles.models import ConfirmationRequest, ConfirmationStatus
    from consolidation.retention import superseded_item_purge
    from profiles.models import MemoryItem

    _settings(settings, ARCHIVE_RETENTION_DAYS=10)

    def item(value, valid_until):
        return MemoryItem.objects.create(
            user=alice, kind="profile", key="city", value=value, text=value, valid_from=t0, confirmed_at=t0,
            valid_until=valid_until,
        )

    old = item("杭州", t0)
    recent = item("苏州", t0 + 15 * DAY)
    named = item("北京", t0)  # the old value of a change still awaiting the user's answer
    current = item("深圳", None)
    ConfirmationRequest.objects.create(
        user=alice, key="city", old_item=named, new_item=current, status=ConfirmationStatus.PENDING, created_at=t0,
    )
    assert superseded_item_purge(now=t0 + 20 * DAY) == 1
    assert set(MemoryItem.objects.values_list("pk", flat=True)) == {recent.pk, named.pk, current.pk}
    assert not MemoryItem.objects.filter(pk=old.pk).exists()
