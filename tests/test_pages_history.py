"""GET /memory/history/: the user's memory versions and a readable diff between two."""

import datetime as dt

from django.test import Client

from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry
from profiles.models import Snapshot
from profiles.versions import current_item_dicts, memory_document_refresh
from profiles.models import MemoryItem


def _entry(user, key, value, at):
    JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{key}：{value}",
                                observed_at=at, created_at=at, tokens=5)


def _two_versions(user, t0):
    """Version 1: role, company and an item the policy forbids (planted, as a bad extraction
    would leave it); version 2: a new skill added and the forbidden item removed by
    self-correction. (A value the user superseded is rectified in older snapshots instead —
    ``profiles.versions.snapshots_rectify`` — so it makes no diff.)"""
    _entry(user, "role", "产品经理", t0)
    _entry(user, "company", "星海科技", t0)
    consolidation_run(user_id=user.pk, now=t0)
    MemoryItem.objects.create(
        user=user, kind="profile", key="responsibility", value="Project Phoenix", text="Responsibility: Project Phoenix", valid_from=t0,
        confirmed_at=t0,
    )
    Snapshot.objects.filter(user=user, version=1).update(
        items=current_item_dicts(user_id=user.pk), memory_md=memory_document_refresh(user_id=user.pk).markdown,
    )
    _entry(user, "skill:design", "设计总监", t0 + dt.timedelta(days=1))
    consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=1))
    return list(Snapshot.objects.filter(user=user).order_by("version").values_list("version", flat=True))


def test_it_lists_versions_and_preselects_the_last_two(alice, t0, client):
    assert _two_versions(alice, t0) == [1, 2]
    client.force_login(alice)
    html = client.get("/memory/history/").content.decode()
    assert "learned from conversations" in html and "2026-03-03" in html
    assert '<option value="1" selected>' in html and '<option value="2" selected>' in html


def test_it_shows_what_changed_between_two_versions(alice, t0, client):
    _two_versions(alice, t0)
    client.force_login(alice)
    html = client.get("/memory/history/", {"old": 1, "new": 2}).content.decode()
    added = html[html.index('<ul class="added">'):html.index("</ul>", html.index('<ul class="added">'))]
    removed = html[html.index('<ul class="removed">'):html.index("</ul>", html.index('<ul class="removed">'))]
    assert "设计总监" in added and "产品经理" not in added
    assert "Project Phoenix" in removed and "星海科技" not in removed and "产品经理" not in removed
    assert '<span class="add">' in html and '<span class="del">' in html


def test_it_renders_in_chinese(alice, t0, client):
    _two_versions(alice, t0)
    client.force_login(alice)
    html = client.get("/memory/history/", {"old": 1, "new": 2}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "从版本 1 到版本 2 的变化" in html and "从对话中学到" in html


def test_another_users_versions_are_404(alice, bob, t0, client):
    _two_versions(bob, t0)
    client.force_login(alice)
    assert client.get("/memory/history/", {"old": 1, "new": 2}).status_code == 404
    html = client.get("/memory/history/").content.decode()
    assert "No versions yet." in html and "设计总监" not in html


def test_malformed_versions_are_400(alice, client):
    client.force_login(alice)
    assert client.get("/memory/history/", {"old": "x", "new": 2}).status_code == 400


def test_anonymous_is_sent_to_login(db):
    resp = Client().get("/memory/history/", {"old": 1, "new": 2})
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")


def test_times_are_shown_with_their_zone_in_the_configured_time_zone(alice, t0, client, settings):
    _two_versions(alice, t0)  # version 1 at t0 = 2026-03-02 09:00 UTC
    client.force_login(alice)
    assert "2026-03-02 09:00 UTC" in client.get("/memory/history/").content.decode()
    settings.TIME_ZONE = "Asia/Shanghai"
    assert "2026-03-02 17:00 CST" in client.get("/memory/history/").content.decode()
