"""A write that lands while a consolidation runs survives it (compare-and-set on the memory version)."""

import datetime as dt
import threading

import pytest
from django.db import connection, transaction

from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry, JournalStatus
from profiles.versions import memory_version_bump, memory_version_read
from profiles.models import MemoryItem


def _entry(user, key, value, at):
    return JournalEntry.objects.create(
        user=user, kind="profile", key=key, value=value, text=f"{key}: {value}", observed_at=at, created_at=at, tokens=5
    )


def _user_sets_city(user, value, at):
    # What an edit on the memory page does: close the current value, add the new one, bump the version.
    with transaction.atomic():
        MemoryItem.objects.current().filter(user=user, key="city").update(valid_until=at)
        item = MemoryItem.objects.create(
            user=user, kind="profile", key="city", value=value, text=f"城市：{value}", valid_from=at, confirmed_at=at
        )
        memory_version_bump(user_id=user.pk)
    return item


def _cities(user):
    return list(MemoryItem.objects.current().filter(user=user, key="city").values_list("value", flat=True))


def test_an_item_and_an_entry_written_during_the_run_survive(alice, t0):
    _entry(alice, "city", "杭州", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "宁波", t0 + dt.timedelta(days=1))
    written = []

    def user_edits_while_planning(attempt):
        if attempt == 0:
            written.append(_user_sets_city(alice, "上海", t0 + dt.timedelta(days=2)))
            written.append(_entry(alice, "role", "架构师", t0 + dt.timedelta(days=2)))

    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=3), on_planned=user_edits_while_planning)
    assert res.status == "done" and res.retries == 1
    item, entry = written
    assert _cities(alice) == ["上海"]  # the older journal value did not overwrite the user's edit
    assert MemoryItem.objects.current().filter(pk=item.pk).exists()
    entry.refresh_from_db()
    assert entry.status == JournalStatus.ARCHIVED  # consolidated by the re-plan, not lost
    assert MemoryItem.objects.current().filter(user=alice, key="role", value="架构师").exists()


def test_it_defers_and_writes_nothing_when_memory_keeps_changing(alice, t0):
    _entry(alice, "city", "杭州", t0)
    start = memory_version_read(user_id=alice.pk)
    res = consolidation_run(
        user_id=alice.pk, now=t0, on_planned=lambda attempt: memory_version_bump(user_id=alice.pk)
    )
    assert res.status == "deferred" and res.retries == 3 and res.pending_left == 1
    assert not MemoryItem.objects.filter(user=alice).exists()
    assert memory_version_read(user_id=alice.pk) == start + 3  # only the concurrent writer's bumps


@pytest.mark.django_db(transaction=True)
def test_a_write_from_another_connection_during_consolidation_survives(alice, t0):
    _entry(alice, "city", "杭州", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "宁波", t0 + dt.timedelta(days=1))
    planned, written = threading.Event(), threading.Event()
    box = {}

    def other_writer():
        planned.wait(10)
        try:
            box["item"] = _user_sets_city(alice, "上海", t0 + dt.timedelta(days=2))
        finally:
            connection.close()
            written.set()

    def hold_until_written(attempt):
        if attempt == 0:
            planned.set()
            written.wait(10)

    thread = threading.Thread(target=other_writer)
    thread.start()
    res = consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=3), on_planned=hold_until_written)
    thread.join(10)
    assert res.status == "done" and res.retries == 1
    assert _cities(alice) == ["上海"]
    assert MemoryItem.objects.current().filter(pk=box["item"].pk).exists()
