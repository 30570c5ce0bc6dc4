"""GET /memory/ (My memory): provenance, pending confirmations, MEMORY.md, isolation, languages."""

import datetime as dt

import pytest
from django.test import Client

from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Session
from profiles.models import ConfirmationRequest, ConfirmationStatus
from profiles.models import MemoryItem
from tests.helpers import post_turns

USER_PAGES = ["/memory/", "/memory/switches/", "/memory/history/", "/memory/kept-out/", "/memory/clear/",
              "/memory/export.json", "/memory/export.md"]


def _learn(username, session, text, t0):
    post_turns(username, session, [("user", text), ("assistant", "好的")], start=t0)
    extraction_run(session_id=Session.objects.get(external_id=session).pk, now=t0, trigger="session_end")
    user = Session.objects.get(external_id=session).user
    consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(minutes=5))
    return user


def _entry(user, key, value, at):
    JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"城市：{value}",
                                observed_at=at, created_at=at, tokens=5)


def test_it_sends_anonymous_visitors_to_the_login_page(db):
    for url in USER_PAGES:
        resp = Client().get(url)
        assert resp.status_code == 302 and resp["Location"].startswith(f"/accounts/login/?next={url}"), url


def test_it_shows_each_item_with_when_where_and_the_users_own_sentence(alice, t0, client):
    _learn("alice", "sess-a1", "我住在上海，我是产品经理。", t0)
    client.force_login(alice)
    html = client.get("/memory/").content.decode()
    assert "城市：上海" in html and "职位：产品经理" in html
    assert "2026-03-02" in html and "sess-a1" in html
    assert "我住在上海，我是产品经理。" in html  # the source message, by its id
    assert "# 用户记忆" in html  # MEMORY.md as agents see it
    assert html.count('action="/memory/items/') == 2


def test_it_never_shows_another_users_memory_or_messages(alice, bob, t0, client):
    _learn("bob", "sess-b1", "我住在广州，我是会计。", t0)
    bob_msg = Session.objects.get(external_id="sess-b1").messages.filter(role="user").first()
    MemoryItem.objects.create(user=alice, kind="profile", key="city", value="成都", text="城市：成都",
                              source_message_ids=[bob_msg.pk], source_session_id=bob_msg.session_id,
                              valid_from=t0, confirmed_at=t0)
    client.force_login(alice)
    html = client.get("/memory/").content.decode()
    assert "城市：成都" in html
    for secret in ("广州", "会计", "sess-b1"):
        assert secret not in html


def test_it_lists_pending_confirmations_and_confirm_keeps_the_new_value(alice, t0, client):
    _entry(alice, "city", "北京", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "深圳", t0 + dt.timedelta(days=30))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    req = ConfirmationRequest.objects.get(user=alice)
    client.force_login(alice)
    html = client.get("/memory/").content.decode()
    assert "City: earlier 北京, now 深圳" in html and f"/memory/confirmations/{req.pk}/confirm" in html
    assert client.post(f"/memory/confirmations/{req.pk}/confirm").status_code == 302
    req.refresh_from_db()
    assert req.status == ConfirmationStatus.CONFIRMED
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "深圳"


def test_reject_brings_the_earlier_value_back(alice, t0, client):
    _entry(alice, "city", "北京", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "深圳", t0 + dt.timedelta(days=30))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    req = ConfirmationRequest.objects.get(user=alice)
    client.force_login(alice)
    assert client.post(f"/memory/confirmations/{req.pk}/reject").status_code == 302
    assert MemoryItem.objects.current().get(user=alice, key="city").value == "北京"


def test_another_user_cannot_confirm_or_reject_someone_elses_change(alice, bob, t0, client):
    _entry(alice, "city", "北京", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "深圳", t0 + dt.timedelta(days=30))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    req = ConfirmationRequest.objects.get(user=alice)
    client.force_login(bob)
    for action in ("confirm", "reject"):
        assert client.post(f"/memory/confirmations/{req.pk}/{action}").status_code == 404
        assert client.get(f"/memory/confirmations/{req.pk}/{action}").status_code == 405
    req.refresh_from_db()
    assert req.status == ConfirmationStatus.PENDING
    assert "深圳" not in client.get("/memory/").content.decode()


def test_confirm_needs_a_csrf_token(alice, t0):
    _entry(alice, "city", "北京", t0)
    consolidation_run(user_id=alice.pk, now=t0)
    _entry(alice, "city", "深圳", t0 + dt.timedelta(days=30))
    consolidation_run(user_id=alice.pk, now=t0 + dt.timedelta(days=30))
    req = ConfirmationRequest.objects.get(user=alice)
    c = Client(enforce_csrf_checks=True)
    c.force_login(alice)
    assert c.post(f"/memory/confirmations/{req.pk}/confirm").status_code == 403
    req.refresh_from_db()
    assert req.status == ConfirmationStatus.PENDING


@pytest.mark.parametrize("url", USER_PAGES[:5])
def test_every_page_renders_in_chinese_for_a_chinese_browser(alice, client, url):
    client.force_login(alice)
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert 'lang="zh-hans"' in html and "我的记忆" in html and "退出登录" in html
    assert "Sign out" not in html and "My memory" not in html
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "My memory" in html and "我的记忆" not in html


def test_the_language_switcher_sets_the_language(alice, client):
    client.force_login(alice)
    resp = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/memory/"}, HTTP_ACCEPT_LANGUAGE="en")
    assert resp.status_code == 302 and resp["Location"] == "/memory/"
    html = client.get("/memory/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "智能体看到的内容（MEMORY.md）" in html


def test_the_login_page_is_translated(db):
    html = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "登录" in html and "用户名" in html and "密码" in html


def test_user_text_is_escaped(alice, t0, client):
    MemoryItem.objects.create(user=alice, kind="fact", key="note", value="x", text="<script>alert(1)</script>",
                              valid_from=t0, confirmed_at=t0)
    client.force_login(alice)
    html = client.get("/memory/").content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
