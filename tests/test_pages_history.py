"""GET /memory/history/: what happened to each entry and when (``profiles.timeline``, issue 17),
from real rows: extraction, consolidation, the user's answers and deletes, a staff restore.
Values the user corrected, rejected or deleted never reach the page."""

import datetime as dt

import pytest
from django.test import Client

from consolidation.consolidate import consolidation_run
from profiles.models import ConfirmationRequest, MemoryItem
from profiles.services import confirmation_reject, memory_item_delete, snapshot_restore
from profiles.timeline import memory_timeline
from tests.helpers import post_and_extract

H = dt.timedelta(hours=1)


def _say(user, session, text, at):
    post_and_extract(user.get_username(), session, [("user", text), ("assistant", "ok")], start=at)
    consolidation_run(user_id=user.pk, now=at + H)


@pytest.fixture
def lived(alice, t0):
    """Manchester learned; a move to Lisbon proposed and rejected; a birth learned and deleted;
    green tea kept. Returns the timeline."""
    _say(alice, "s1", "I live in Manchester. I like green tea. My son was born in 2021.", t0)
    _say(alice, "s2", "I live in Lisbon now.", t0 + dt.timedelta(days=3))
    req = ConfirmationRequest.objects.get(user=alice, status="pending")
    confirmation_reject(user=alice, confirmation_id=req.pk, now=t0 + dt.timedelta(days=4))
    birth = MemoryItem.objects.current().get(user=alice, key__startswith="fact:birth")
    memory_item_delete(user=alice, item_id=birth.pk)
    return memory_timeline(user=alice, lang="en")


def _entry(timeline, label):
    return next(e for e in timeline if e["label"] == label)


def test_it_tells_each_entry_what_happened_and_when(lived, t0):
    city = _entry(lived, "City")
    assert city["current"] == "City: Manchester" and not city["deleted"]
    assert [(ev["what"], ev["value"], ev["by"]) for ev in city["events"]] == [
        ("learned", "City: Manchester", ""), ("changed", "", ""), ("rejected", "", "you"),
    ]
    assert city["events"][0]["at"] == t0 and city["events"][2]["at"] == t0 + dt.timedelta(days=4)
    birth = next(e for e in lived if e["deleted"])  # its key is not kept: shown as "A fact"
    assert birth["kind"] == "fact" and birth["label"] == "" and birth["current"] == ""
    assert [(ev["what"], ev["by"]) for ev in birth["events"]] == [("learned", ""), ("deleted", "you")]
    assert birth["events"][0]["at"] == t0
    assert _entry(lived, "Drink")["current"] == "Drink: green tea"


def test_the_page_never_shows_a_rejected_or_deleted_value(lived, alice, client):
    client.force_login(alice)
    html = client.get("/memory/history/").content.decode()
    assert "Lisbon" not in html and "son was born" not in html and "2021" not in html
    assert "City: Manchester" in html and "Changed from an earlier value to another value" in html
    assert "Deleted by you" in html and "You rejected a change: the earlier value is current again" in html
    assert '<h2>A fact <span class="state">deleted</span></h2>' in html


def test_a_corrected_value_is_an_earlier_value_and_a_restore_is_dated(alice, t0, client, admin_user):
    _say(alice, "s1", "I live in Manchester.", t0)
    _say(alice, "s2", "I live in Lisbon now.", t0 + dt.timedelta(days=3))  # kept: Lisbon is current
    snapshot_restore(user_id=alice.pk, version=2, actor=admin_user, now=t0 + dt.timedelta(days=5))
    city = _entry(memory_timeline(user=alice, lang="en"), "City")
    assert [(ev["what"], ev["value"], ev["by"]) for ev in city["events"]] == [
        ("learned", "", ""), ("changed", "City: Lisbon", ""), ("restored", "", "staff"),
    ]
    client.force_login(alice)
    html = client.get("/memory/history/").content.decode()
    assert "Changed from an earlier value to City: Lisbon" in html and "Manchester" not in html
    assert "Restored from a saved version" in html


def test_deleting_a_value_that_replaced_another_dates_both_and_shows_neither(alice, t0, client):
    _say(alice, "s1", "I live in Manchester.", t0)
    _say(alice, "s2", "I live in Lisbon now.", t0 + dt.timedelta(days=3))
    lisbon = MemoryItem.objects.current().get(user=alice, key="city")
    memory_item_delete(user=alice, item_id=lisbon.pk)
    city = _entry(memory_timeline(user=alice, lang="en"), "City")
    assert city["deleted"] and city["current"] == ""
    assert [(ev["what"], ev["value"], ev["by"]) for ev in city["events"]] == [
        ("learned", "", ""), ("changed", "", ""), ("deleted", "", "you"),
    ]
    assert city["events"][1]["at"] == lisbon.valid_from
    client.force_login(alice)
    html = client.get("/memory/history/").content.decode()
    assert "Manchester" not in html and "Lisbon" not in html and "Deleted by you" in html


def test_it_renders_in_chinese(lived, alice, client):
    client.force_login(alice)
    html = client.get("/memory/history/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "由你删除" in html and "你拒绝了一项更改：之前的值重新生效" in html and "城市：Manchester" in html
    assert "Lisbon" not in html and "son was born" not in html


def test_another_users_history_is_not_shown(lived, bob, client):
    client.force_login(bob)
    html = client.get("/memory/history/").content.decode()
    assert "Nothing has happened in your memory yet." in html and "Manchester" not in html


def test_anonymous_is_sent_to_login(db):
    resp = Client().get("/memory/history/")
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
