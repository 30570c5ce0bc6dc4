"""One ``reason`` vocabulary for every read, over HTTP and MCP alike (``profiles.readers.READ_REASONS``).

memory_search said ``ok`` with no hits for a user with nothing stored while context and memory_get
said ``no_memory``, and memory_items said ``no_memory`` for a filter that matched nothing in a
user's stored memory. Now, for each state of a user, every read says the same word on both
surfaces: an unknown id, a platform user with nothing stored and one whose memory was cleared →
``no_memory``; memory switched off → ``memory_off``; stored memory → ``ok``, whether the read
found something (hits, items, lines) or not (no hits, a filter or a line range with nothing).
Each state is set up through the services, each read asked through the HTTP endpoint (Django's
test client) and the MCP tool call of a server bound to the user (``bound_call``, what the stdio
server runs per call); one test drives the real stdio server too.
"""

import asyncio
import datetime as dt
import json

import pytest
from rest_framework.test import APIClient

from profiles.mcp_server import bound_call
from profiles.models import MemoryItem, MemorySettings
from profiles.readers import READ_REASONS
from profiles.services import memory_clear_all, user_ensure
from profiles.versions import memory_document_refresh
from tests.helpers import post_and_extract

NOW = dt.datetime.now(dt.timezone.utc)


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)


def _stored(user):
    for kind, key, value in (("profile", "city", "Leeds"), ("fact", "pet", "Rex"), ("preference", "drink", "tea")):
        MemoryItem.objects.create(user=user, kind=kind, key=key, value=value, text=f"{key}: {value}",
                                  valid_from=NOW, confirmed_at=NOW)
    memory_document_refresh(user_id=user.pk)


def _state(name: str) -> str:
    """Set up the platform user of state ``name``; returns the user id the reads name."""
    if name == "unknown":
        return "ghost"  # no account, no identity: reading must not create one either
    user = user_ensure(external_id=name)
    if name in ("cleared", "memory_off", "stored"):
        _stored(user)
    if name == "cleared":
        memory_clear_all(user=user)  # "clear everything", history kept: the user's own button
    if name == "memory_off":
        MemorySettings.objects.filter(user=user).update(memory_enabled=False)
    return name


# (label, HTTP path, MCP tool, arguments, whether stored memory gives a result)
READS = [
    ("search, a hit", "/api/v1/memory/search", "memory_search", {"query": "Rex"}, True),
    ("search, no hit", "/api/v1/memory/search", "memory_search", {"query": "Reykjavik volcano"}, False),
    ("document", "/api/v1/memory", "memory_get", {}, True),
    ("lines past the end", "/api/v1/memory", "memory_get", {"from_line": 50, "to_line": 60}, False),
    ("items", "/api/v1/memory/items", "memory_items", {}, True),
    ("items, no match", "/api/v1/memory/items", "memory_items", {"kind": "fact", "key": "city"}, False),
]
EXPECTED = {"unknown": "no_memory", "empty": "no_memory", "cleared": "no_memory", "memory_off": "memory_off",
            "stored": "ok"}


def _result(tool: str, body: dict) -> list:
    """What a read found: hit ids, item ids, or the document's text as a one-element list."""
    if tool == "memory_search":
        return [h["id"] for h in body["hits"]]
    if tool == "memory_items":
        return [i["id"] for i in body["items"]]
    return [body["text"]] if body["text"] else []


def _both(api_keys, path, tool, username, args):
    r = APIClient().get(path, {"user": username, "agent": "main", **args}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200, r.content
    mcp = bound_call(tool, args, username=username, agent_slug="main", api_key=api_keys["read"])
    return r.json(), json.loads(json.dumps(mcp))  # as the MCP server sends it


@pytest.mark.parametrize("state", EXPECTED)
@pytest.mark.parametrize("label, path, tool, args, finds", READS, ids=[r[0] for r in READS])
def test_each_read_says_the_same_word_for_the_same_state_over_http_and_mcp(db, api_keys, state, label, path, tool,
                                                                           args, finds):
    username = _state(state)
    http, mcp = _both(api_keys, path, tool, username, args)
    assert http["reason"] == mcp["reason"] == EXPECTED[state]
    assert http["reason"] in READ_REASONS
    assert _result(tool, http) == _result(tool, mcp)
    assert bool(_result(tool, http)) == (state == "stored" and finds)
    if tool != "memory_search":
        assert mcp == http  # memory_get and memory_items answer the same body on both
    else:
        assert mcp["time_cue"] == http["time_cue"]


def test_context_says_no_memory_for_the_same_states(db, api_keys):
    """The context read (HTTP only: it is no agent tool) uses the same words."""
    for state, expected in EXPECTED.items():
        username = _state(state)
        r = APIClient().get("/api/v1/context", {"user": username, "agent": "main"}, HTTP_X_API_KEY=api_keys["read"])
        assert r.json()["reason"] == expected, state


def test_a_session_search_says_no_memory_until_past_messages_are_indexed(db, api_keys):
    """scope=sessions reads the user's past messages: with none indexed it is ``no_memory`` even
    for a user with stored items; once they are, a hit and a miss are both ``ok``."""
    user = user_ensure(external_id="talker")
    _stored(user)
    sessions = {"query": "机票", "scope": "sessions"}
    http, mcp = _both(api_keys, "/api/v1/memory/search", "memory_search", "talker", sessions)
    assert http["reason"] == mcp["reason"] == "no_memory" and http["hits"] == mcp["hits"] == []
    post_and_extract("talker", "s1", [("user", "帮我订去成都的机票")], start=NOW)  # indexes the turn
    http, mcp = _both(api_keys, "/api/v1/memory/search", "memory_search", "talker", sessions)
    assert http["reason"] == mcp["reason"] == "ok" and http["hits"] and [h["id"] for h in mcp["hits"]] == [
        h["id"] for h in http["hits"]]
    miss = {"query": "Reykjavik volcano", "scope": "sessions"}
    http, mcp = _both(api_keys, "/api/v1/memory/search", "memory_search", "talker", miss)
    assert http["reason"] == mcp["reason"] == "ok" and http["hits"] == mcp["hits"] == []


def test_the_schema_lists_the_words(client, db):
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    enums = schema["components"]["schemas"]
    assert enums["ReadReasonEnum"]["enum"] == list(READ_REASONS)
    assert enums["ContextReasonEnum"]["enum"] == [*READ_REASONS, "budget_too_small"]
    for out in ("SearchOut", "MemoryGetOut", "MemoryItemsOut"):
        reason = enums[out]["properties"]["reason"]
        assert reason["allOf"][0]["$ref"].endswith("/ReadReasonEnum"), out
        assert "no_memory" in reason["description"], out


@pytest.mark.django_db(transaction=True)
def test_the_stdio_server_says_the_same_words(settings, api_keys):
    """The real MCP server over stdio (as tests/test_mcp_server.py drives it), bound to a user with
    memory and to an unknown id."""
    from tests.test_mcp_server import _server_env, REPO

    _state("stored")

    async def drive(username: str) -> list[str]:
        import sys

        from mcp import Client, StdioServerParameters

        params = StdioServerParameters(
            command=sys.executable, args=[str(REPO / "manage.py"), "mcp_server", "--user", username, "--agent", "main"],
            env=_server_env(settings.QUARANTINE_KEY, api_keys["read"]), cwd=str(REPO))
        async with Client(params, read_timeout_seconds=60) as client:
            return [json.loads((await client.call_tool(tool, args)).content[0].text)["reason"]
                    for _, _, tool, args, _ in READS]

    assert asyncio.run(drive("stored")) == ["ok"] * len(READS)
    assert asyncio.run(drive("ghost")) == ["no_memory"] * len(READS)
