"""GET/POST /memory/clear/ (clear everything): the confirmation step, nothing left afterwards
(every table scanned), history as a separate choice, a clean new start, refusals."""

import datetime as dt

import pytest
from django.apps import apps
from django.conf import settings as dj_settings
from django.test import Client

from audit.models import AuditLog, QuarantineRecord
from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Message, Session
from profiles.models import Snapshot
from profiles.models import MemoryItem, MemoryVector
from profiles.search import memory_index_refresh
from consolidation.session_index import session_index_refresh
from profiles.selectors import memory_context
from tests.helpers import post_turns

# Rows that may outlive "clear everything": the account's switches, the audit log, the CAS
# version counter, sessions (unless history is cleared too) and admin bookkeeping.
KEPT = {
    ("profiles.MemorySettings", "user"), ("profiles.ExpertSetting", "user"), ("audit.AuditLog", "actor"),
    ("audit.AuditLog", "subject_user"), ("profiles.MemoryVersion", "user"), ("admin.LogEntry", "user"),
    ("profiles.ConsolidationProposal", "resolved_by"),
}


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)


def _fill(username, t0):
    """Everything a user can accumulate: items (current and superseded), archived and pending
    journal, snapshots, MEMORY.md, item and message vectors, a quarantine record."""
    post_turns(username, f"{username}-s1", [("user", "我住在北京，我是产品经理。"), ("assistant", "好的"),
                                            ("user", "我的手机是13912345678"), ("assistant", "收到")], start=t0)
    session = Session.objects.get(external_id=f"{username}-s1")
    extraction_run(session_id=session.pk, now=t0, trigger="session_end")
    consolidation_run(user_id=session.user_id, now=t0 + dt.timedelta(minutes=5))
    JournalEntry.objects.create(user=session.user, kind="profile", key="city", value="深圳", text="城市：深圳",
                                observed_at=t0, created_at=t0 + dt.timedelta(days=1), tokens=5)
    consolidation_run(user_id=session.user_id, now=t0 + dt.timedelta(days=1))  # supersedes 北京, asks to confirm
    JournalEntry.objects.create(user=session.user, kind="fact", key="pet", value="猫", text="我有一只猫",
                                observed_at=t0, created_at=t0, tokens=5)  # still pending
    memory_index_refresh(user_id=session.user_id)
    session_index_refresh(user_id=session.user_id)
    return session.user


def _leftovers(user, *, history_cleared: bool) -> dict[str, int]:
    out = {}
    for model in apps.get_models():
        for f in model._meta.get_fields():
            if not (f.is_relation and f.many_to_one and f.related_model is not None):
                continue
            if f.related_model._meta.label != dj_settings.AUTH_USER_MODEL:
                continue
            label = model._meta.label
            if (label, f.name) in KEPT or (label == "consolidation.Session" and not history_cleared):
                continue
            n = model.objects.filter(**{f.name: user}).count()
            if n:
                out[f"{label}.{f.name}"] = n
    if history_cleared:
        n = Message.objects.filter(session__user=user).count()
        if n:
            out["consolidation.Message"] = n
    return out


def test_it_asks_for_confirmation_first(alice, t0, client):
    _fill("alice", t0)
    client.force_login(alice)
    html = client.get("/memory/clear/").content.decode()
    assert 'name="confirm"' in html and 'name="include_history"' in html
    resp = client.post("/memory/clear/", {"include_history": "on"})
    assert resp.status_code == 400
    assert MemoryItem.objects.filter(user=alice).exists() and Session.objects.filter(user=alice).exists()
    assert not AuditLog.objects.filter(action="memory.cleared").exists()


def test_it_leaves_no_long_term_memory_anywhere(alice, bob, t0, client):
    _fill("alice", t0)
    _fill("bob", t0)
    assert len(_leftovers(alice, history_cleared=False)) >= 6  # the scan sees the data before
    assert QuarantineRecord.objects.filter(user=alice).exists()
    assert MemoryVector.objects.filter(user=alice, source="message").exists()
    bob_before = _leftovers(bob, history_cleared=True)
    client.force_login(alice)
    resp = client.post("/memory/clear/", {"confirm": "on"})
    assert resp.status_code == 200 and 'id="cleared"' in resp.content.decode()
    assert _leftovers(alice, history_cleared=False) == {}
    assert memory_context(user=alice, agent_slug="main", budget=500).reason == "no_memory"
    assert Message.objects.filter(session__user=alice).count() == 4  # history kept: a separate choice
    assert _leftovers(bob, history_cleared=True) == bob_before


def test_history_is_deleted_only_when_chosen(alice, t0, client):
    _fill("alice", t0)
    client.force_login(alice)
    client.post("/memory/clear/", {"confirm": "on", "include_history": "on"})
    assert _leftovers(alice, history_cleared=True) == {}
    assert not Session.objects.filter(user=alice).exists()


def test_it_is_audited_with_counts_only(alice, t0, client):
    _fill("alice", t0)
    client.force_login(alice)
    client.post("/memory/clear/", {"confirm": "on"})
    rec = AuditLog.objects.get(action="memory.cleared")
    assert rec.subject_user == alice and rec.details["items"] >= 3 and rec.details["quarantine"] == 1
    assert rec.details["include_history"] is False
    assert all(isinstance(v, (int, bool)) for v in rec.details.values())


def test_a_new_start_is_clean(alice, t0, client):
    _fill("alice", t0)
    client.force_login(alice)
    client.post("/memory/clear/", {"confirm": "on"})
    later = t0 + dt.timedelta(days=2)
    post_turns("alice", "alice-s1", [("user", "我喜欢简洁的回答。"), ("assistant", "好的")], start=later)
    extraction_run(session_id=Session.objects.get(external_id="alice-s1").pk, now=later, trigger="session_end")
    consolidation_run(user_id=alice.pk, now=later + dt.timedelta(minutes=5))
    values = set(MemoryItem.objects.filter(user=alice).values_list("value", flat=True))
    assert values and not values & {"北京", "深圳", "产品经理", "猫"}  # old messages were not read again
    assert list(Snapshot.objects.filter(user=alice).values_list("version", flat=True)) == [1]


def test_anonymous_and_csrf_are_refused(alice, t0):
    _fill("alice", t0)
    resp = Client().post("/memory/clear/", {"confirm": "on"})
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    assert c.post("/memory/clear/", {"confirm": "on"}).status_code == 403
    assert MemoryItem.objects.filter(user=alice).exists()


def test_one_user_clearing_does_not_touch_another(alice, bob, t0, client):
    _fill("bob", t0)
    before = MemoryItem.objects.filter(user=bob).count()
    client.force_login(alice)
    client.post("/memory/clear/", {"confirm": "on", "include_history": "on"})
    assert MemoryItem.objects.filter(user=bob).count() == before and Session.objects.filter(user=bob).exists()
