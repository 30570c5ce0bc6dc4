"""GET /memory/export.json and /memory/export.md: the user's own memory as downloads."""

import json

from django.test import Client

from consolidation.consolidate import consolidation_run
from consolidation.models import JournalEntry


def _remember(user, value, t0):
    JournalEntry.objects.create(user=user, kind="profile", key="city", value=value, text=f"城市：{value}",
                                observed_at=t0, created_at=t0, tokens=5)
    consolidation_run(user_id=user.pk, now=t0)


def test_json_export_holds_the_users_memory_only(alice, bob, t0, client):
    _remember(alice, "上海", t0)
    _remember(bob, "广州", t0)
    client.force_login(alice)
    resp = client.get("/memory/export.json")
    assert resp.status_code == 200 and resp["Content-Type"].startswith("application/json")
    assert "attachment" in resp["Content-Disposition"]
    data = json.loads(resp.content)
    assert data["user"] == "alice" and [i["value"] for i in data["items"]] == ["上海"]
    assert "上海" in data["memory_md"] and len(data["snapshots"]) == 1
    assert "广州" not in resp.content.decode()


def test_markdown_export_is_readable(alice, bob, t0, client):
    _remember(alice, "上海", t0)
    _remember(bob, "广州", t0)
    client.force_login(alice)
    resp = client.get("/memory/export.md")
    body = resp.content.decode()
    assert resp["Content-Type"].startswith("text/markdown") and "attachment" in resp["Content-Disposition"]
    assert body.startswith("# BizMemory export: alice") and "城市：上海" in body and "广州" not in body


def test_anonymous_is_sent_to_login(alice, t0):
    _remember(alice, "上海", t0)
    for url in ("/memory/export.json", "/memory/export.md"):
        resp = Client().get(url)
        assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
