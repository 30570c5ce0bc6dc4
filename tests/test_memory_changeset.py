"""One write path (issue 15): every change to a user's memory has the same follow-ups.

Each path — consolidation, a rejected confirmation, a staff restore, the user's delete, the
Django admin's delete — must leave: the memory version bumped once, MEMORY.md equal to a fresh
render of the current items, a snapshot holding exactly the current items and that MEMORY.md,
a search index of exactly the current items, and one audit row without memory text. Clear-all
leaves nothing at all. And derived state is built after the write commits, never inside it.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import reverse

from audit.models import AuditLog
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry
from profiles.models import (
    ConfirmationRequest, ContextPack, MemoryDocument, MemoryItem, MemoryVector, Snapshot, SnapshotReason,
)
from profiles.rendering import render_memory_markdown
from profiles.services import (
    confirmation_reject, memory_clear_all, memory_item_delete, memory_items_delete_by_staff, snapshot_restore,
)
from profiles.versions import current_item_dicts, memory_version_read
from tests.helpers import post_and_extract

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64)


def _learn(user, t, *facts):
    for key, value in facts:
        JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{key}: {value}",
                                    observed_at=t, created_at=t, tokens=5)
    return consolidation_run(user_id=user.pk, now=t, force=True)


@pytest.fixture
def remembered(alice):
    _learn(alice, T0, ("city", "Lisbon"), ("role", "product manager"), ("skill", "SQL"))
    return alice


def _state(user):
    return {
        "version": memory_version_read(user_id=user.pk),
        "snapshots": Snapshot.objects.filter(user=user).count(),
        "audit": AuditLog.objects.filter(subject_user=user).count(),
    }


def _assert_followups(user, before, *, action, reason):
    items = list(MemoryItem.objects.current().filter(user=user))
    doc = MemoryDocument.objects.get(user=user)
    assert memory_version_read(user_id=user.pk) == before["version"] + 1
    assert doc.markdown == render_memory_markdown(items, max_tokens=10_000)[0]
    latest = Snapshot.objects.filter(user=user).latest("version")
    assert latest.reason == reason and latest.memory_md == doc.markdown
    assert latest.items == current_item_dicts(user_id=user.pk)
    indexed = set(MemoryVector.objects.filter(user=user, source="item").values_list("item_id", flat=True))
    assert indexed == {i.pk for i in items}
    pack = ContextPack.objects.get(user=user)  # rebuilt after commit, stamped with the new version
    assert pack.memory_version == memory_version_read(user_id=user.pk)
    rows = list(AuditLog.objects.filter(subject_user=user).order_by("id")[before["audit"]:])
    assert [r.action for r in rows] == [action]
    text = repr(rows[0].details)
    assert all(i.value not in text for i in MemoryItem.objects.filter(user=user))


def test_consolidation(remembered):
    before = _state(remembered)
    _learn(remembered, T0 + dt.timedelta(days=1), ("skill", "Python"))
    _assert_followups(remembered, before, action="memory.consolidated", reason=SnapshotReason.CONSOLIDATION)


def test_confirmation_reject(remembered):
    _learn(remembered, T0 + dt.timedelta(days=1), ("city", "Porto"))
    req = ConfirmationRequest.objects.get(user=remembered)
    before = _state(remembered)
    confirmation_reject(user=remembered, confirmation_id=req.pk, now=T0 + dt.timedelta(days=2))
    _assert_followups(remembered, before, action="memory.confirmation_rejected", reason=SnapshotReason.CONFIRMATION)
    assert MemoryItem.objects.current().get(user=remembered, key="city").value == "Lisbon"


def test_snapshot_restore(remembered, officer):
    first = Snapshot.objects.filter(user=remembered).latest("version").version
    _learn(remembered, T0 + dt.timedelta(days=1), ("skill", "Python"), ("department", "Growth"))
    before = _state(remembered)
    snapshot_restore(user_id=remembered.pk, version=first, actor=officer, now=T0 + dt.timedelta(days=2))
    before["snapshots"] += 1  # the rollback point
    _assert_followups(remembered, before, action="memory.restored", reason=SnapshotReason.RESTORE)
    assert not MemoryItem.objects.current().filter(user=remembered, value="Growth").exists()


def test_user_delete(remembered):
    item = MemoryItem.objects.current().get(user=remembered, key="skill")
    before = _state(remembered)
    memory_item_delete(user=remembered, item_id=item.pk)
    _assert_followups(remembered, before, action="memory.item_deleted", reason=SnapshotReason.USER_EDIT)
    assert all("SQL" not in str(s.items) for s in Snapshot.objects.filter(user=remembered))


def test_admin_delete(remembered):
    staff = get_user_model().objects.create_superuser("root", password="pw")
    client = Client()
    client.force_login(staff)
    item = MemoryItem.objects.current().get(user=remembered, key="skill")
    before = _state(remembered)
    url = reverse("admin:profiles_memoryitem_delete", args=[item.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    _assert_followups(remembered, before, action="memory.item_deleted", reason=SnapshotReason.USER_EDIT)
    assert all("SQL" not in str(s.items) for s in Snapshot.objects.filter(user=remembered))
    from django.contrib.admin.models import LogEntry

    assert [e.object_repr for e in LogEntry.objects.all()] == [f"memory item {item.pk}"]  # ids, never values


def test_admin_bulk_delete_of_history_rows(remembered):
    _learn(remembered, T0 + dt.timedelta(days=1), ("skill", "Python"), ("role", "director"))
    old = MemoryItem.objects.filter(user=remembered, valid_until__isnull=False, key="role").get()
    before = _state(remembered)
    staff = get_user_model().objects.create_superuser("root", password="pw")
    assert memory_items_delete_by_staff(item_ids=[old.pk], actor=staff) == 1
    assert not MemoryItem.objects.filter(pk=old.pk).exists()
    assert memory_version_read(user_id=remembered.pk) == before["version"] + 1
    assert AuditLog.objects.filter(subject_user=remembered).latest("id").action == "memory.history_deleted"
    assert all(d["id"] != old.pk for s in Snapshot.objects.filter(user=remembered) for d in s.items)


def test_clear_all_leaves_nothing(remembered):
    before = _state(remembered)
    memory_clear_all(user=remembered)
    assert memory_version_read(user_id=remembered.pk) == before["version"] + 1
    for model in (MemoryItem, MemoryDocument, Snapshot, MemoryVector, ContextPack, JournalEntry):
        assert not model.objects.filter(user=remembered).exists(), model._meta.label
    assert AuditLog.objects.filter(subject_user=remembered).latest("id").action == "memory.cleared"


@pytest.mark.django_db(transaction=True)
def test_derived_state_is_built_after_commit_and_a_failing_embedder_loses_nothing(monkeypatch, settings):
    """With no test transaction around it: the embedder is called outside the write transaction;
    when it blows up, the consolidated memory is committed anyway and the index heals later."""
    import profiles.search

    from profiles.services import user_ensure

    user = user_ensure(external_id="carol")
    calls = []

    class Exploding:
        name, dim, default_threshold = "exploding", 8, 0.2

        def embed(self, texts):
            calls.append(connection.in_atomic_block)
            raise ConnectionError("embedding service unreachable")

    monkeypatch.setattr(profiles.search, "get_embedder", lambda: Exploding())
    result = _learn(user, T0, ("city", "Oslo"))
    assert result.status == "done"
    assert calls == [False]  # called once, and not inside any transaction
    assert MemoryItem.objects.current().filter(user=user, value="Oslo").exists()  # committed
    assert "Oslo" in MemoryDocument.objects.get(user=user).markdown
    assert not MemoryVector.objects.filter(user=user).exists()
    monkeypatch.undo()
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=64)
    post_and_extract("carol", "s1", [("user", "hello"), ("assistant", "hi")], start=T0)
    from profiles.search import memory_search

    assert [h.text for h in memory_search(user=user, agent_slug="main", query="Oslo").hits]  # healed on read
