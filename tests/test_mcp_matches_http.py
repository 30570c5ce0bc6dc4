"""The MCP tools and their HTTP endpoints answer the same state with the same body (issue 17):
``memory_get`` said ``ok`` over MCP where ``GET /api/v1/memory`` said ``no_memory`` for an empty
document. Each case sets up one user state and asks both surfaces."""

import datetime as dt
import json

import pytest
from rest_framework.test import APIClient

from profiles.mcp_server import bound_call
from profiles.models import ExpertSetting, MemoryItem, MemorySettings
from profiles.services import agent_ensure
from profiles.versions import memory_document_refresh

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


def _item(user, kind, key, value):
    return MemoryItem.objects.create(user=user, kind=kind, key=key, value=value, text=f"{key}: {value}",
                                     valid_from=NOW, confirmed_at=NOW)


def _stored(alice):
    items = [_item(alice, "profile", "city", "Leeds"), _item(alice, "fact", "pet", "Rex"),
             _item(alice, "preference", "drink", "tea")]
    memory_document_refresh(user_id=alice.pk)
    return items


def _cleared(alice):
    """Everything was stored, then deleted: the document row exists and is empty."""
    items = _stored(alice)
    MemoryItem.objects.filter(pk__in=[i.pk for i in items]).update(valid_until=NOW)
    memory_document_refresh(user_id=alice.pk)
    return items


def _memory_off(alice):
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    return _stored(alice)


def _expert_off(alice):
    ExpertSetting.objects.create(user=alice, agent=agent_ensure(slug="main"), memory_enabled=False)
    return _stored(alice)


STATES = {"nothing stored": lambda alice: [], "cleared": _cleared, "stored": _stored,
          "memory off": _memory_off, "expert off": _expert_off}


def _both(api_keys, path, tool, username, args):
    r = APIClient().get(path, {"user": username, "agent": "main", **args}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200, r.content
    mcp = bound_call(tool, args, username=username, agent_slug="main", api_key=api_keys["read"])
    return r.json(), json.loads(json.dumps(mcp))  # as the MCP server sends it


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("lines", [{}, {"from_line": 2, "to_line": 3}], ids=["document", "lines"])
def test_memory_get_says_the_same_over_mcp_and_http(alice, api_keys, state, lines):
    STATES[state](alice)
    http, mcp = _both(api_keys, "/api/v1/memory", "memory_get", "alice", lines)
    assert mcp == http
    expected = {"nothing stored": "no_memory", "cleared": "no_memory", "stored": "ok",
                "memory off": "memory_off", "expert off": "expert_off"}[state]
    assert http["reason"] == expected


@pytest.mark.parametrize("state", ["stored", "memory off"])
def test_memory_get_of_one_item_says_the_same(alice, api_keys, state):
    items = STATES[state](alice)
    http, mcp = _both(api_keys, "/api/v1/memory", "memory_get", "alice", {"item_id": items[1].pk})
    assert mcp == http
    if state == "stored":
        assert http["item"]["value"] == "Rex" and set(http["item"]) == {
            "id", "kind", "key", "value", "text", "fact_date", "fact_precision", "valid_from", "confirmed_at"}


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("args", [{}, {"limit": 2}, {"kind": "fact"}, {"key": "city"}, {"kind": "fact", "key": "city"}],
                         ids=["all", "page", "kind", "key", "no-match"])
def test_memory_items_says_the_same_over_mcp_and_http(alice, api_keys, state, args):
    STATES[state](alice)
    http, mcp = _both(api_keys, "/api/v1/memory/items", "memory_items", "alice", args)
    assert mcp == http
    if http["next_cursor"]:  # the next page too, by the cursor either surface gave
        http2, mcp2 = _both(api_keys, "/api/v1/memory/items", "memory_items", "alice",
                            {**args, "cursor": http["next_cursor"]})
        assert mcp2 == http2 and [i["value"] for i in http2["items"]] == ["Leeds"]


@pytest.mark.parametrize("tool, path, args", [
    ("memory_get", "/api/v1/memory", {}), ("memory_items", "/api/v1/memory/items", {}),
])
def test_an_unknown_user_gets_the_same_empty_answer_on_both(alice, api_keys, tool, path, args):
    http, mcp = _both(api_keys, path, tool, "nobody-yet", args)
    assert mcp == http and http["reason"] == "no_memory"
    assert _both(api_keys, path, tool, "alice", args) == (http, http)
