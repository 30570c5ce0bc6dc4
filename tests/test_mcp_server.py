"""The read-only MCP server (``manage.py mcp_server``), driven by the official SDK client over stdio."""

import asyncio
import datetime as dt
import json
import os
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from profiles.mcp_server import ToolError, tool_call
from profiles.models import MemoryItem

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
REPO = Path(__file__).resolve().parent.parent


def _database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[connection.vendor]
    auth = quote(s.get("USER") or "") + (":" + quote(s["PASSWORD"]) if s.get("PASSWORD") else "")
    return f"{scheme}://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or ''}/{s['NAME']}"


async def _drive(args: list[str], quarantine_key: str):
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "DATABASE_URL": _database_url(), "BIZMEMORY_EMBEDDER": "hashing",
           "BIZMEMORY_EMBEDDER_DIM": "256", "BIZMEMORY_QUARANTINE_KEY": quarantine_key, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=[str(REPO / "manage.py"), "mcp_server", *args],
                                   env=env, cwd=str(REPO))
    async with Client(params, read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        found = await client.call_tool("memory_search", {"query": "花生过敏"})
        doc = await client.call_tool("memory_get", {"from_line": 1, "to_line": 1})
        bad = await client.call_tool("memory_get", {"item_id": 999999})
    return tools, found, doc, bad


@pytest.mark.django_db(transaction=True)
def test_the_server_lists_exactly_two_read_tools_and_answers_calls(alice, bob, settings):
    from profiles.versions import memory_document_refresh

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)
    peanut = MemoryItem.objects.create(user=alice, kind="fact", key="allergy", value="花生", text="我对花生过敏",
                                       valid_from=NOW, confirmed_at=NOW)
    MemoryItem.objects.create(user=bob, kind="fact", key="allergy", value="花生", text="我也对花生过敏",
                              valid_from=NOW, confirmed_at=NOW)
    memory_document_refresh(user_id=alice.pk)
    tools, found, doc, bad = asyncio.run(_drive(["--user", "alice", "--agent", "main"], settings.QUARANTINE_KEY))
    assert sorted(t.name for t in tools.tools) == ["memory_get", "memory_search"]
    assert all(t.annotations.read_only_hint for t in tools.tools)
    hits = json.loads(found.content[0].text)["hits"]
    assert [h["id"] for h in hits] == [peanut.pk]  # bob's item never appears
    assert json.loads(doc.content[0].text)["text"] == "# 用户记忆"
    assert bad.is_error
    assert "item_id: no memory item 999999" in bad.content[0].text  # the agent is told why


def test_tool_call_refuses_unknown_tools_and_bad_arguments(alice):
    with pytest.raises(ToolError):
        tool_call("memory_write", {}, user=alice, agent_slug="main")
    with pytest.raises(ToolError):
        tool_call("memory_search", {"query": ""}, user=alice, agent_slug="main")
    with pytest.raises(ToolError):
        tool_call("memory_get", {"item_id": 1, "user": "bob"}, user=alice, agent_slug="main")


def test_the_command_exits_2_for_an_unknown_user_or_a_key_for_another_agent(alice):
    from django.core.management import CommandError, call_command

    from profiles.models import PlatformAPIKey

    with pytest.raises(CommandError) as exc:
        call_command("mcp_server", "--user", "nobody", "--agent", "main")
    assert exc.value.returncode == 2
    _, key = PlatformAPIKey.objects.create_key(name="fin", scope="read", agents=["finance"])
    with pytest.raises(CommandError, match="--agent"):
        call_command("mcp_server", "--user", "alice", "--agent", "main", "--key", key)
    _, ingest = PlatformAPIKey.objects.create_key(name="in", scope="ingest")
    with pytest.raises(CommandError, match="read-scope"):
        call_command("mcp_server", "--user", "alice", "--agent", "main", "--key", ingest)
