"""GET /api/v1/memory/items: the user's current items, newest first, with cursor pagination (issue 15)."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from profiles.models import MemoryItem, MemorySettings
from profiles.services import user_ensure

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def alice(db):
    user = user_ensure(external_id="alice")
    for i in range(5):
        MemoryItem.objects.create(user=user, kind="fact", key="pet", value=f"dog {i}", text=f"I have dog {i}",
                                  valid_from=NOW, confirmed_at=NOW)
    MemoryItem.objects.create(user=user, kind="profile", key="city", value="Leeds", text="I live in Leeds",
                              valid_from=NOW, confirmed_at=NOW)
    MemoryItem.objects.create(user=user, kind="profile", key="city", value="York", text="I lived in York",
                              valid_from=NOW, valid_until=NOW, confirmed_at=NOW)  # superseded: never listed
    return user


def _get(api_keys, api="read", **params):
    return APIClient().get("/api/v1/memory/items", {"user": "alice", "agent": "main", **params},
                           HTTP_X_API_KEY=api_keys[api])


def test_it_lists_current_items_newest_first(alice, api_keys):
    r = _get(api_keys)
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["reason"] == "ok" and body["next_cursor"] is None
    assert [i["value"] for i in body["items"]] == ["Leeds", "dog 4", "dog 3", "dog 2", "dog 1", "dog 0"]
    assert set(body["items"][0]) == {"id", "kind", "key", "value", "text", "fact_date", "fact_precision", "valid_from", "confirmed_at"}


def test_it_pages_with_the_cursor_until_the_end(alice, api_keys):
    seen, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        body = _get(api_keys, **params).json()
        seen += [i["value"] for i in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == ["Leeds", "dog 4", "dog 3", "dog 2", "dog 1", "dog 0"]


def test_it_filters_by_kind_and_key(alice, api_keys):
    assert [i["value"] for i in _get(api_keys, kind="profile").json()["items"]] == ["Leeds"]
    assert len(_get(api_keys, key="pet").json()["items"]) == 5
    body = _get(api_keys, kind="profile", key="pet").json()
    assert body == {"reason": "ok", "items": [], "next_cursor": None}  # memory is stored; nothing matched


@pytest.mark.parametrize("params, field", [
    ({"kind": "secret"}, "kind"), ({"limit": 0}, "limit"), ({"limit": 101}, "limit"),
    ({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "YjE="}, "cursor"), ({"cursor": "MTA"}, "cursor"),
])
def test_bad_parameters_are_a_400_naming_them(alice, api_keys, params, field):
    r = _get(api_keys, **params)
    assert r.status_code == 400 and r.json()["error"]["field"] == field


def test_switched_off_memory_lists_nothing_with_the_reason(alice, api_keys):
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    assert _get(api_keys).json() == {"reason": "memory_off", "items": [], "next_cursor": None}
    assert _get(api_keys, temporary="true").json()["reason"] == "memory_off"


def test_another_user_and_an_ingest_key_get_nothing(alice, api_keys):
    body = APIClient().get("/api/v1/memory/items", {"user": "bob", "agent": "main"},
                           HTTP_X_API_KEY=api_keys["read"]).json()
    assert body == {"reason": "no_memory", "items": [], "next_cursor": None}
    assert _get(api_keys, api="ingest").status_code == 403


def test_it_is_in_the_schema(client):
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    op = schema["paths"]["/api/v1/memory/items"]["get"]
    assert op["operationId"] == "memory_items"
    assert {"user", "agent", "kind", "key", "cursor", "limit"} <= {p["name"] for p in op["parameters"]}
