"""Snapshots and restore: restore equals the snapshot; the rollback point gives back the exact state."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.models import AuditLog
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry
from profiles.models import Snapshot, SnapshotReason
from profiles.versions import SnapshotNotFound, current_item_dicts, memory_version_read, snapshot_create
from profiles.services import snapshot_restore
from profiles.models import MemoryDocument, MemoryItem


def _entry(user, key, value, at, kind="profile"):
    return JournalEntry.objects.create(
        user=user, kind=kind, key=key, value=value, text=f"{key}: {value}", observed_at=at, created_at=at, tokens=5
    )


def _md(user):
    return MemoryDocument.objects.get(user=user).markdown


def _two_versions(user, t0):
    _entry(user, "city", "Hangzhou", t0)
    _entry(user, "role", "backend engineer", t0)
    _entry(user, "pref:format", "tables", t0, kind="preference")
    first = consolidation_run(user_id=user.pk, now=t0).snapshot_version
    _entry(user, "city", "Suzhou", t0 + dt.timedelta(days=1))
    _entry(user, "skill:go", "Go", t0 + dt.timedelta(days=1))
    consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=1))
    planted = MemoryItem.objects.create(  # deleted by the next self-correction
        user=user, kind="profile", key="responsibility", value="Project Phoenix", text="Responsibility: Project Phoenix",
        valid_from=t0, confirmed_at=t0,
    )
    consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=2))
    assert not MemoryItem.objects.filter(pk=planted.pk).exists()
    return first


def test_restore_makes_current_memory_equal_to_the_snapshot(officer, alice, t0):
    first = _two_versions(alice, t0)
    snap = Snapshot.objects.get(user=alice, version=first)
    snapshot_restore(user_id=alice.pk, version=first, actor=officer, now=t0 + dt.timedelta(days=3))
    assert current_item_dicts(user_id=alice.pk) == snap.items
    assert _md(alice) == snap.memory_md


def test_restoring_the_rollback_point_gives_back_the_exact_state(officer, alice, t0):
    first = _two_versions(alice, t0)
    before_items, before_md = current_item_dicts(user_id=alice.pk), _md(alice)
    rollback = snapshot_restore(user_id=alice.pk, version=first, actor=officer, now=t0 + dt.timedelta(days=3))
    assert rollback.reason == SnapshotReason.ROLLBACK_POINT
    assert current_item_dicts(user_id=alice.pk) != before_items
    snapshot_restore(user_id=alice.pk, version=rollback.version, actor=officer, now=t0 + dt.timedelta(days=4))
    assert current_item_dicts(user_id=alice.pk) == before_items
    assert _md(alice).encode() == before_md.encode()
    assert [i.as_dict() for i in MemoryItem.objects.current().filter(user=alice).order_by("id")] == [
        {k: v for k, v in d.items() if k != "confirmed_at"} for d in before_items
    ]


def test_restore_brings_back_a_deleted_item_under_its_old_id(officer, alice, t0):
    _entry(alice, "city", "Hangzhou", t0)
    version = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    item_id = MemoryItem.objects.get(user=alice).pk
    MemoryItem.objects.filter(pk=item_id).delete()
    snapshot_restore(user_id=alice.pk, version=version, actor=officer)
    assert MemoryItem.objects.current().get(user=alice).pk == item_id


def test_restore_is_audited_bumps_the_version_and_snapshots(officer, alice, t0):
    first = _two_versions(alice, t0)
    v = memory_version_read(user_id=alice.pk)
    snapshot_restore(user_id=alice.pk, version=first, actor=officer)
    assert memory_version_read(user_id=alice.pk) == v + 1
    log = AuditLog.objects.get(action="memory.restored")
    assert log.actor == officer and log.details["restored_version"] == first
    assert Snapshot.objects.filter(user=alice).order_by("-version").first().reason == SnapshotReason.RESTORE


def test_restoring_an_unknown_version_raises_and_changes_nothing(officer, alice, bob, t0):
    first = _two_versions(alice, t0)
    count = Snapshot.objects.count()
    with pytest.raises(SnapshotNotFound):
        snapshot_restore(user_id=bob.pk, version=first, actor=officer)  # another user's version is not bob's
    assert Snapshot.objects.count() == count


def test_manual_snapshots_keep_the_newest_k(alice, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, SNAPSHOTS_KEEP=2)
    for _ in range(3):
        snapshot_create(user_id=alice.pk, reason=SnapshotReason.MANUAL)
    assert list(Snapshot.objects.filter(user=alice).order_by("version").values_list("version", flat=True)) == [2, 3]
    assert AuditLog.objects.filter(action="memory.snapshot_created").count() == 3


def test_the_commands_create_and_restore(officer, alice, t0):
    _entry(alice, "city", "Hangzhou", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    out = StringIO()
    call_command("snapshot_create", "--user", "alice", stdout=out)
    assert "snapshot version 2" in out.getvalue()
    out = StringIO()
    call_command("snapshot_restore", "--user", "alice", "--version", "1", "--actor", "officer", stdout=out)
    assert "rollback point is version 3" in out.getvalue()


def test_the_commands_exit_2_on_bad_input(officer, alice):
    with pytest.raises(CommandError) as err:
        call_command("snapshot_restore", "--user", "alice", "--version", "99", "--actor", "officer")
    assert err.value.returncode == 2 and "--version" in str(err.value)
    with pytest.raises(CommandError) as err:
        call_command("snapshot_create", "--user", "nobody")
    assert err.value.returncode == 2


# ---- Rectification: values that left memory leave the retained snapshots too ----------------

def _snapshot_texts(user):
    return [(s.version, s.memory_md + " " + " ".join(d["value"] for d in s.items))
            for s in Snapshot.objects.filter(user=user).order_by("version")]


def test_a_superseded_value_is_replaced_by_its_successor_in_older_snapshots(officer, alice, t0):
    _entry(alice, "industry", "retail", t0)
    _entry(alice, "pref:format", "tables", t0, kind="preference")
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    _entry(alice, "industry", "banking", t0 + dt.timedelta(days=1))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    assert all("retail" not in text for _, text in _snapshot_texts(alice))
    old = Snapshot.objects.get(user=alice, version=first)
    assert sorted(d["value"] for d in old.items) == ["banking", "tables"]
    assert "banking" in old.memory_md and "tables" in old.memory_md
    # A restore of the old version keeps the user's correction.
    snapshot_restore(user_id=alice.pk, version=first, actor=officer, now=t0 + dt.timedelta(days=2))
    assert sorted(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == ["banking", "tables"]


def test_snapshots_without_the_superseded_item_stay_byte_identical(alice, t0):
    _entry(alice, "pref:format", "tables", t0, kind="preference")
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    before = Snapshot.objects.get(user=alice, version=first)
    _entry(alice, "industry", "retail", t0 + dt.timedelta(days=1))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1))
    _entry(alice, "industry", "banking", t0 + dt.timedelta(days=2))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=2))
    after = Snapshot.objects.get(user=alice, version=first)
    assert (after.items, after.memory_md.encode()) == (before.items, before.memory_md.encode())


def test_a_value_superseded_twice_is_replaced_by_the_last_one(alice, t0):
    _entry(alice, "industry", "retail", t0)
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    _entry(alice, "industry", "banking", t0 + dt.timedelta(days=1))
    _entry(alice, "industry", "insurance", t0 + dt.timedelta(days=1, hours=1))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=1, hours=2))
    assert [d["value"] for d in Snapshot.objects.get(user=alice, version=first).items] == ["insurance"]


def test_a_retracted_value_is_dropped_from_older_snapshots(alice, t0):
    _entry(alice, "role", "team lead", t0)
    _entry(alice, "pref:format", "tables", t0, kind="preference")
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    at = t0 + dt.timedelta(days=1)
    JournalEntry.objects.create(
        user=alice, kind="profile", key="role", value="team lead", text="no longer team lead", operation="retract",
        observed_at=at, created_at=at, tokens=5,
    )
    consolidation_run(user_id=alice.pk, now=at)
    assert not MemoryItem.objects.current().filter(user=alice, key="role").exists()
    assert [d["value"] for d in Snapshot.objects.get(user=alice, version=first).items] == ["tables"]
    assert all("team lead" not in text for _, text in _snapshot_texts(alice))


def test_a_user_delete_leaves_every_retained_snapshot_and_restore_cannot_bring_it_back(officer, alice, t0):
    from profiles.services import memory_item_delete

    _entry(alice, "city", "Hangzhou", t0)
    _entry(alice, "pref:format", "tables", t0, kind="preference")
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    city = MemoryItem.objects.current().get(user=alice, key="city")
    memory_item_delete(user=alice, item_id=city.pk)
    assert all("Hangzhou" not in text for _, text in _snapshot_texts(alice))
    snapshot_restore(user_id=alice.pk, version=first, actor=officer)
    assert list(MemoryItem.objects.current().filter(user=alice).values_list("value", flat=True)) == ["tables"]


def test_rejecting_a_change_puts_the_old_value_back_into_older_snapshots(alice, t0):
    from profiles.services import confirmation_reject
    from profiles.models import ConfirmationRequest

    _entry(alice, "city", "北京", t0)
    first = consolidation_run(user_id=alice.pk, now=t0).snapshot_version
    _entry(alice, "city", "深圳", t0 + dt.timedelta(days=30))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    assert [d["value"] for d in Snapshot.objects.get(user=alice, version=first).items] == ["深圳"]
    req = ConfirmationRequest.objects.get(user=alice)
    confirmation_reject(user=alice, confirmation_id=req.pk, now=t0 + dt.timedelta(days=31))
    assert [d["value"] for d in Snapshot.objects.get(user=alice, version=first).items] == ["北京"]
    assert all("深圳" not in text for _, text in _snapshot_texts(alice))
