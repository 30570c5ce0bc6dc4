"""GET/POST /memory/switches/: memory on/off and per-expert switches take effect at once —
checked with the extraction service and the context selector."""

import datetime as dt

from django.test import Client

from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Session
from profiles.models import MemoryItem
from profiles.selectors import memory_context
from profiles.services import agent_ensure, expert_flags
from tests.helpers import post_turns


def _remember(user, t0):
    MemoryItem.objects.create(user=user, kind="profile", key="city", value="上海", text="城市：上海",
                              valid_from=t0, confirmed_at=t0)


def test_switching_memory_off_stops_injection_and_extraction(alice, t0, client):
    _remember(alice, t0)
    assert "上海" in memory_context(user=alice, agent_slug="main", budget=300).text
    client.force_login(alice)
    resp = client.post("/memory/switches/", {})  # the unticked box is absent: memory off
    assert resp.status_code == 302
    ctx = memory_context(user=alice, agent_slug="main", budget=300)
    assert ctx.text == "" and ctx.reason == "memory_off"
    post_turns("alice", "s-off", [("user", "我住在杭州，我是设计师。"), ("assistant", "好的")], start=t0)
    res = extraction_run(session_id=Session.objects.get(external_id="s-off").pk, now=t0, trigger="session_end")
    assert res.status == "skipped" and "memory_off" in res.reasons
    assert not JournalEntry.objects.filter(user=alice).exists()
    assert 'data-state="off"' in client.get("/memory/").content.decode()
    client.post("/memory/switches/", {"memory_enabled": "on"})
    assert "上海" in memory_context(user=alice, agent_slug="main", budget=300).text


def test_an_expert_can_be_switched_off_and_excluded(alice, t0, client):
    agent_ensure(slug="main", is_entry=True)
    agent_ensure(slug="finance")
    agent_ensure(slug="legal")
    _remember(alice, t0)
    client.force_login(alice)
    html = client.get("/memory/switches/").content.decode()
    assert 'name="expert_finance"' in html and 'name="exclude_legal"' in html and 'name="expert_main"' not in html
    assert "Unticked: turns handled by legal still feed the main assistant's memory." in html
    client.post("/memory/switches/", {"memory_enabled": "on", "expert_legal": "on", "exclude_legal": "on"})
    assert expert_flags(user=alice) == ({"finance"}, {"legal"})
    assert memory_context(user=alice, agent_slug="finance", budget=300).reason == "expert_off"
    assert "上海" in memory_context(user=alice, agent_slug="legal", budget=300).text  # excluded still reads


def test_turns_handled_by_an_expert_feed_memory_unless_it_is_excluded(alice, t0, client):
    agent_ensure(slug="main", is_entry=True)
    agent_ensure(slug="legal")
    client.force_login(alice)
    turns = [("user", "我住在杭州。"), ("assistant", "好的", "legal")]
    post_turns("alice", "s-in", turns, start=t0)
    extraction_run(session_id=Session.objects.get(external_id="s-in").pk, now=t0, trigger="session_end")
    assert JournalEntry.objects.filter(user=alice, value="杭州").exists()
    client.post("/memory/switches/", {"memory_enabled": "on", "expert_legal": "on", "exclude_legal": "on"})
    post_turns("alice", "s-ex", [("user", "我住在苏州。"), ("assistant", "好的", "legal")], start=t0 + dt.timedelta(hours=1))
    extraction_run(session_id=Session.objects.get(external_id="s-ex").pk, now=t0 + dt.timedelta(hours=1), trigger="session_end")
    assert not JournalEntry.objects.filter(user=alice, value="苏州").exists()


def test_the_page_shows_the_current_state(alice, client):
    agent_ensure(slug="finance")
    client.force_login(alice)
    client.post("/memory/switches/", {"memory_enabled": "on", "exclude_finance": "on"})
    html = client.get("/memory/switches/").content.decode()
    assert 'name="memory_enabled" id="id_memory_enabled" checked' in html
    assert 'name="expert_finance" id="id_expert_finance">' in html  # unticked: off
    assert 'name="exclude_finance" id="id_exclude_finance" checked' in html


def test_switches_are_per_user(alice, bob, t0, client):
    _remember(bob, t0)
    client.force_login(alice)
    client.post("/memory/switches/", {})
    assert memory_context(user=bob, agent_slug="main", budget=300).reason == "ok"


def test_anonymous_and_csrf_are_refused(alice):
    resp = Client().post("/memory/switches/", {})
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    assert c.post("/memory/switches/", {}).status_code == 403
    alice.memory_settings.refresh_from_db()
    assert alice.memory_settings.memory_enabled is True


def test_the_memory_box_says_what_ticking_does_and_the_page_says_the_state(alice, client):
    """Issue 17: the box was labelled "Memory is on" even when unticked. The label names the
    action whatever the state; a separate line follows the saved state, in both languages."""
    client.force_login(alice)
    label = "Let agents use my memory and remember new things I say"
    html = client.get("/memory/switches/").content.decode()
    assert label in html and 'data-state="on">Memory is on now.' in html
    assert 'id="id_memory_enabled" checked' in html
    client.post("/memory/switches/", {})  # unticked: memory off
    html = client.get("/memory/switches/").content.decode()
    assert 'id="id_memory_enabled">' in html  # unticked
    assert label in html and "Memory is on" not in html and 'data-state="off">Memory is off now.' in html
    zh = client.get("/memory/switches/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "允许智能体使用我的记忆，并记住我说的新内容" in zh and "记忆现在已关闭。" in zh and "开启记忆" not in zh
