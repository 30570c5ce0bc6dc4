"""GET /api/v1/memory (the memory_get tool): document, line ranges, one item, isolation."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from profiles.versions import memory_document_refresh
from profiles.models import MemoryItem

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def client():
    return APIClient()


def _item(user, kind, key, text):
    return MemoryItem.objects.create(user=user, kind=kind, key=key, value=text[:40], text=text, valid_from=NOW, confirmed_at=NOW)


def _get(client, key, **params):
    return client.get("/api/v1/memory", {"agent": "main", **params}, HTTP_X_API_KEY=key)


@pytest.fixture
def alice_memory(alice):
    items = [_item(alice, "profile", "city", "I live in Leeds"), _item(alice, "fact", "pet", "I have a dog called Rex")]
    memory_document_refresh(user_id=alice.pk)
    return items


def test_it_returns_the_document_and_a_line_range(client, api_keys, alice_memory):
    whole = _get(client, api_keys["read"], user="alice").json()
    lines = whole["text"].splitlines()
    assert whole["reason"] == "ok" and lines[0] == "# User memory" and whole["total_lines"] == len(lines)
    part = _get(client, api_keys["read"], user="alice", from_line=2, to_line=3).json()
    assert part["text"].splitlines() == lines[1:3] and (part["from_line"], part["to_line"]) == (2, 3)
    r = _get(client, api_keys["read"], user="alice", from_line=3, to_line=2)
    assert r.status_code == 400 and r.json()["error"]["field"] == "to_line"


def test_it_returns_one_item_by_id(client, api_keys, alice_memory):
    item = alice_memory[1]
    body = _get(client, api_keys["read"], user="alice", item_id=item.pk).json()
    assert body["item"]["id"] == item.pk and body["item"]["text"] == "I have a dog called Rex"


def test_unknown_superseded_and_other_users_ids_are_404(client, api_keys, alice_memory, bob):
    theirs = _item(bob, "fact", "secret", "Bob's secret plan")
    old = alice_memory[0]
    old.valid_until = NOW
    old.save(update_fields=["valid_until"])
    for item_id in (theirs.pk, old.pk, 999999):
        r = _get(client, api_keys["read"], user="alice", item_id=item_id)
        assert r.status_code == 404 and r.json()["error"]["field"] == "item_id"
        assert "secret" not in r.content.decode()
    r = _get(client, api_keys["read"], user="nobody", item_id=theirs.pk)  # an unknown user has no items
    assert r.status_code == 404 and r.json()["error"]["field"] == "item_id"


def test_keys_switches_and_methods(client, api_keys, alice_memory, alice):
    from profiles.services import memory_settings_update

    assert _get(client, api_keys["ingest"], user="alice").status_code == 403
    assert client.delete("/api/v1/memory?user=alice&agent=main", HTTP_X_API_KEY=api_keys["read"]).status_code == 405
    memory_settings_update(user=alice, experts_disabled=["finance"])
    body = _get(client, api_keys["read"], user="alice", agent="finance").json()
    assert body["text"] == "" and body["reason"] == "expert_off"


def test_memory_get_says_no_memory_and_refuses_an_item_with_a_line_range(client, api_keys, alice):
    r = client.get("/api/v1/memory", {"user": "alice", "agent": "main"}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200 and r.json()["reason"] == "no_memory" and r.json()["text"] == ""
    r = client.get("/api/v1/memory", {"user": "alice", "agent": "main", "item_id": 1, "from_line": 2},
                   HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 400 and r.json()["error"]["field"] == "from_line"
