"""GET /api/v1/memory/search (the memory_search tool): results, scopes, isolation, keys."""

import datetime as dt

import pytest

from consolidation.session_index import session_index_refresh
from rest_framework.test import APIClient

from profiles.models import MemoryItem, PlatformAPIKey
from tests.helpers import post_and_extract, post_turns

NOW = dt.datetime.now(dt.timezone.utc)


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)


@pytest.fixture
def client():
    return APIClient()


def _item(user, kind, key, text):
    return MemoryItem.objects.create(user=user, kind=kind, key=key, value=text[:40], text=text, valid_from=NOW, confirmed_at=NOW)


def _search(client, key, **params):
    return client.get("/api/v1/memory/search", {"agent": "main", **params}, HTTP_X_API_KEY=key)


def test_it_returns_ids_kinds_dates_and_scores(client, api_keys, alice):
    peanut = _item(alice, "fact", "allergy", "我对花生过敏")
    _item(alice, "profile", "city", "我住在上海")
    r = _search(client, api_keys["read"], user="alice", query="花生过敏")
    body = r.json()
    assert r.status_code == 200 and body["reason"] == "ok" and body["scope"] == "memory"
    hit = body["hits"][0]
    assert hit["id"] == peanut.pk and hit["kind"] == "fact" and hit["text"] == "我对花生过敏"
    assert hit["score"] > 0 and hit["date"].startswith(str(NOW.year)) and hit["session"] is None


def test_sessions_scope_masks_pii(client, api_keys, alice):
    from consolidation.models import Message

    # A turn stored as a source before a detector existed: masked on the way out.
    session, _ = post_turns("alice", "s1", [("user", "我的邮箱是 li.wei@example.com，帮我订机票")], start=NOW)
    Message.objects.filter(session=session).update(memory_source=True)
    session_index_refresh(user_id=alice.pk)  # what the pipeline does after an extraction
    body = _search(client, api_keys["read"], user="alice", query="订机票", scope="sessions").json()
    assert body["hits"][0]["session"] == "s1" and body["hits"][0]["kind"] == "user"
    assert "li.wei@example.com" not in body["hits"][0]["text"] and "机票" in body["hits"][0]["text"]


def test_sessions_scope_skips_turns_that_are_not_a_memory_source(client, api_keys, alice):
    post_turns("alice", "s2", [("user", "帮我订去成都的机票")], start=NOW)  # not extracted yet
    body = _search(client, api_keys["read"], user="alice", query="成都机票", scope="sessions").json()
    assert body["hits"] == []


def test_an_outsider_never_sees_another_users_data(client, api_keys, alice, bob):
    # Both users have matching items and turns, and both indexes are built before either searches
    # (issue 18: with the other user's data never indexed, a missing user filter stays invisible).
    from profiles.search import memory_index_refresh
    from consolidation.session_index import session_index_refresh

    items = {"alice": _item(alice, "fact", "allergy", "我对花生过敏"), "bob": _item(bob, "fact", "allergy", "我对花生过敏，很严重")}
    _item(alice, "profile", "city", "我住在上海")
    _item(bob, "profile", "city", "我住在杭州")
    turns = {
        "alice": post_and_extract("alice", "alice-s", [("user", "花生过敏要注意什么"), ("assistant", "避开花生制品"),
                                                       ("user", "帮我订去成都的机票"), ("assistant", "已订好")], start=NOW)[1],
        "bob": post_and_extract("bob", "bob-s", [("user", "我的花生过敏又犯了"), ("assistant", "请及时就医"),
                                                 ("user", "周五的会议改到下午"), ("assistant", "已改")], start=NOW)[1],
    }
    for u in (alice, bob):
        memory_index_refresh(user_id=u.pk)
        session_index_refresh(user_id=u.pk)
    key = api_keys["read"]
    for user, other in (("alice", "bob"), ("bob", "alice")):
        mem = _search(client, key, user=user, query="花生过敏", scope="memory", top_k=10).json()
        ids = [h["id"] for h in mem["hits"]]
        assert ids[:1] == [items[user].pk] and items[other].pk not in ids, (user, mem)
        ses = _search(client, key, user=user, query="花生过敏", scope="sessions", top_k=10).json()
        ids = {h["id"] for h in ses["hits"]}
        assert ids & {m.pk for m in turns[user]} and not ids & {m.pk for m in turns[other]}, (user, ses)
        assert {h["session"] for h in ses["hits"]} == {f"{user}-s"}
    r = _search(client, key, user="alice", query="x", session="bob-s")
    assert r.status_code == 404 and r.json()["error"]["field"] == "session"


def test_it_validates_input_and_keys(client, api_keys, alice):
    key = api_keys["read"]
    r = _search(client, key, user="alice", query="x", scope="everything")
    assert r.status_code == 400 and r.json()["error"]["field"] == "scope"
    assert _search(client, key, user="alice", query="x", top_k=0).json()["error"]["field"] == "top_k"
    assert _search(client, key, user="alice").json()["error"]["field"] == "query"
    assert _search(client, api_keys["ingest"], user="alice", query="x").status_code == 403
    assert client.post("/api/v1/memory/search", {"user": "alice", "agent": "main", "query": "x"},
                       HTTP_X_API_KEY=key).status_code == 405
    _, limited = PlatformAPIKey.objects.create_key(name="main-only", scope="read", agents=["main"])
    r = _search(client, limited, user="alice", query="x", agent="finance")
    assert r.status_code == 403 and r.json()["error"]["field"] == "agent"


def test_switched_off_memory_gives_no_hits_with_the_reason(client, api_keys, alice):
    from profiles.services import memory_settings_update

    _item(alice, "fact", "allergy", "我对花生过敏")
    memory_settings_update(user=alice, memory_enabled=False)
    body = _search(client, api_keys["read"], user="alice", query="花生").json()
    assert body["hits"] == [] and body["reason"] == "memory_off"
