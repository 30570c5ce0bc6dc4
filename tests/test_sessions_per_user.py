"""Session ids are scoped to their user (issue 14): two users may use the same id, their turns
never mix on any path, and another user's id behaves exactly like an unknown one."""

import datetime as dt

import pytest
from django.test import Client
from rest_framework.test import APIClient

from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import Message, Session
from profiles.mcp_server import tool_call

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(hours=1)


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)


def _ingest(key, user, text, session="s1"):
    r = APIClient().post("/api/v1/messages", {"user": user, "session": session, "messages": [
        {"role": "user", "content": text, "created_at": NOW.isoformat()},
        {"role": "assistant", "content": "好的", "created_at": NOW.isoformat()},
    ]}, format="json", HTTP_X_API_KEY=key)
    assert r.status_code == 201, r.content
    return r.json()


def _learn(key, user, text, session="s1"):
    """Ingest through the API, extract at session end and consolidate, as the pipeline would."""
    _ingest(key, user, text, session)
    row = Session.objects.get(user__username=user, external_id=session)
    extraction_run(session_id=row.pk, now=NOW + dt.timedelta(minutes=1), trigger="session_end")
    consolidation_run(user_id=row.user_id, now=NOW + dt.timedelta(minutes=5))
    return row


def _read(key, path, **params):
    return APIClient().get(path, {"agent": "main", **params}, HTTP_X_API_KEY=key)


def test_two_users_with_the_same_session_id_keep_their_turns_apart_on_every_path(api_keys):
    a = _learn(api_keys["ingest"], "alice", "我住在上海，我是产品经理。")
    b = _learn(api_keys["ingest"], "bob", "我住在北京，我是会计。")
    assert a.pk != b.pk and (a.external_id, b.external_id) == ("s1", "s1")
    assert set(Message.objects.filter(session=a).values_list("content", flat=True)) == {"我住在上海，我是产品经理。", "好的"}

    # context ?session=: the recent turns are the caller's own session's
    ctx = _read(api_keys["read"], "/api/v1/context", user="alice", session="s1", budget=2000).json()
    assert "上海" in ctx["text"] and "北京" not in ctx["text"] and "会计" not in ctx["text"]
    ctx = _read(api_keys["read"], "/api/v1/context", user="bob", session="s1", budget=2000).json()
    assert "北京" in ctx["text"] and "上海" not in ctx["text"]

    # search: past turns and their session ids are the user's own
    for user, mine, theirs in (("alice", "上海", "北京"), ("bob", "北京", "上海")):
        body = _read(api_keys["read"], "/api/v1/memory/search", user=user, query="我住在哪里 上海 北京",
                     scope="sessions").json()
        assert body["hits"] and all(h["session"] == "s1" for h in body["hits"]), body
        texts = " ".join(h["text"] for h in body["hits"])
        assert mine in texts and theirs not in texts, (user, texts)
        # MCP: the same tool, the same answer
        hits = tool_call("memory_search", {"query": "我住在哪里 上海 北京", "scope": "sessions"},
                         user=(a if user == "alice" else b).user, agent_slug="main")["hits"]
        assert hits and theirs not in " ".join(h["text"] for h in hits)

    # the user's pages and export: the item learned in "s1" and its sentence are the user's own
    client = Client()
    client.force_login(a.user)
    page = client.get("/memory/").content.decode()
    assert "上海" in page and "北京" not in page and "会计" not in page
    export = client.get("/memory/export.json").content.decode()
    assert "上海" in export and "北京" not in export


def test_another_users_session_id_reads_like_an_unknown_one(api_keys):
    _ingest(api_keys["ingest"], "alice", "你好")
    _ingest(api_keys["ingest"], "bob", "bob 的秘密计划", session="bob-only")
    for path in ("/api/v1/context", "/api/v1/memory/search", "/api/v1/memory"):
        theirs = _read(api_keys["read"], path, user="alice", session="bob-only", query="计划")
        unknown = _read(api_keys["read"], path, user="alice", session="no-such-session", query="计划")
        assert theirs.status_code == unknown.status_code == 404, path
        assert theirs.json() == unknown.json() and theirs.json()["error"]["field"] == "session", path


def test_ingest_into_an_id_another_user_holds_opens_the_callers_own_session(api_keys):
    _ingest(api_keys["ingest"], "bob", "first", session="shared")
    body = _ingest(api_keys["ingest"], "alice", "second", session="shared")  # no "belongs to another user"
    mine = Session.objects.get(user__username="alice", external_id="shared")
    assert body["session"] == "shared" and set(body["message_ids"]) <= set(mine.messages.values_list("pk", flat=True))
    assert list(Session.objects.get(user__username="bob").messages.values_list("content", flat=True)) == ["first", "好的"]
