"""POST /memory/items/<id>/delete: gone from memory, MEMORY.md, the search index and future
snapshots at once; audited without content; refused to anyone but the owner."""

import datetime as dt

import pytest
from django.test import Client

from audit.models import AuditLog
from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry
from profiles.models import Snapshot, SnapshotReason
from profiles.versions import snapshot_create
from profiles.models import MemoryDocument, MemoryItem, MemoryVector
from profiles.search import memory_index_refresh
from profiles.selectors import memory_context


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)


def _remember(user, t0, *pairs):
    for key, value in pairs:
        JournalEntry.objects.create(user=user, kind="fact", key=key, value=value, text=f"{key}：{value}",
                                    observed_at=t0, created_at=t0, tokens=5)
    consolidation_run(user_id=user.pk, now=t0)
    memory_index_refresh(user_id=user.pk)
    return {i.key.split(":")[-1]: i for i in MemoryItem.objects.current().filter(user=user)}


def test_it_deletes_the_entry_everywhere_at_once(alice, t0, client):
    items = _remember(alice, t0, ("pet", "一只叫豆豆的狗"), ("relocation", "搬到杭州"))
    dog = items["pet"]
    assert MemoryVector.objects.filter(item=dog).exists()
    client.force_login(alice)
    resp = client.post(f"/memory/items/{dog.pk}/delete")
    assert resp.status_code == 302 and resp["Location"] == "/memory/"
    assert not MemoryItem.objects.filter(pk=dog.pk).exists()
    assert "豆豆" not in MemoryDocument.objects.get(user=alice).markdown
    assert "搬到杭州" in MemoryDocument.objects.get(user=alice).markdown
    assert not MemoryVector.objects.filter(user=alice, text__contains="豆豆").exists()
    assert "豆豆" not in memory_context(user=alice, agent_slug="main", budget=500).text
    assert "豆豆" not in snapshot_create(user_id=alice.pk, reason=SnapshotReason.MANUAL).memory_md
    assert all("豆豆" not in str(d) for d in Snapshot.objects.filter(user=alice).latest("version").items)
    assert "豆豆" not in client.get("/memory/").content.decode()


def test_a_later_consolidation_does_not_bring_it_back(alice, t0, client):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    JournalEntry.objects.create(user=alice, kind="fact", key="pet", value="一只叫豆豆的狗", text="宠物：一只叫豆豆的狗",
                                observed_at=t0, created_at=t0, tokens=5)  # the same thing, still pending
    client.force_login(alice)
    client.post(f"/memory/items/{dog.pk}/delete")
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(hours=1))
    assert not MemoryItem.objects.filter(user=alice, value="一只叫豆豆的狗").exists()


def test_it_audits_the_delete_without_the_content(alice, t0, client):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    client.force_login(alice)
    client.post(f"/memory/items/{dog.pk}/delete")
    rec = AuditLog.objects.get(action="memory.item_deleted")
    assert rec.subject_user == alice and rec.actor == alice and rec.target_id == str(dog.pk)
    assert "豆豆" not in str(rec.details) and "pet" not in str(rec.details)


def test_another_user_gets_404_and_the_item_stays(alice, bob, t0, client):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    client.force_login(bob)
    assert client.post(f"/memory/items/{dog.pk}/delete").status_code == 404
    assert MemoryItem.objects.current().filter(pk=dog.pk).exists()
    assert not AuditLog.objects.filter(action="memory.item_deleted").exists()


def test_a_superseded_item_cannot_be_deleted_through_the_page(alice, t0, client):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    MemoryItem.objects.filter(pk=dog.pk).update(valid_until=t0)
    client.force_login(alice)
    assert client.post(f"/memory/items/{dog.pk}/delete").status_code == 404


def test_anonymous_is_sent_to_login_and_get_is_not_allowed(alice, t0, client):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    resp = Client().post(f"/memory/items/{dog.pk}/delete")
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    client.force_login(alice)
    assert client.get(f"/memory/items/{dog.pk}/delete").status_code == 405
    assert MemoryItem.objects.filter(pk=dog.pk).exists()


def test_it_needs_a_csrf_token(alice, t0):
    dog = _remember(alice, t0, ("pet", "一只叫豆豆的狗"))["pet"]
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    assert c.post(f"/memory/items/{dog.pk}/delete").status_code == 403
    assert MemoryItem.objects.filter(pk=dog.pk).exists()


def test_a_delete_saves_a_version_of_its_own(alice, t0, client):
    from profiles.models import Snapshot

    item = _remember(alice, t0, ("pet", "一只叫豆豆的狗"), ("relocation", "搬到杭州"))["pet"]
    before = Snapshot.objects.filter(user=alice).count()
    client.force_login(alice)
    assert client.post(f"/memory/items/{item.pk}/delete").status_code == 302
    snap = Snapshot.objects.filter(user=alice).order_by("-version").first()
    assert Snapshot.objects.filter(user=alice).count() == before + 1
    assert snap.reason == "user_edit" and all(i["id"] != item.pk for i in snap.items)
