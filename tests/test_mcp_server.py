"""The read-only MCP server (``manage.py mcp_server``), driven by the official SDK client over stdio:
it needs a read-scope API key like the HTTP API, refuses staff logins and answers an unknown user
like a user with no memory."""

import asyncio
import datetime as dt
import json
import os
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from profiles.mcp_server import ToolError, bound_call, tool_call
from profiles.models import MemoryItem, PlatformAPIKey

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
REPO = Path(__file__).resolve().parent.parent


def _database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[connection.vendor]
    auth = quote(s.get("USER") or "") + (":" + quote(s["PASSWORD"]) if s.get("PASSWORD") else "")
    return f"{scheme}://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or ''}/{s['NAME']}"


def _server_env(quarantine_key: str, api_key: str) -> dict:
    return {**os.environ, "DATABASE_URL": _database_url(), "BIZMEMORY_EMBEDDER": "hashing",
            "BIZMEMORY_EMBEDDER_DIM": "256", "BIZMEMORY_QUARANTINE_KEY": quarantine_key, "PYTHONPATH": str(REPO),
            "BIZMEMORY_API_KEY": api_key}


async def _drive(args: list[str], quarantine_key: str, api_key: str):
    """List the tools, make the calls below (paging memory_items by its cursor) through the real
    server over stdio, and return ``(tools, {label: result})``."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[str(REPO / "manage.py"), "mcp_server", *args],
                                   env=_server_env(quarantine_key, api_key), cwd=str(REPO))
    out = {}
    async with Client(params, read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        out["found"] = await client.call_tool("memory_search", {"query": "花生过敏"})
        out["doc"] = await client.call_tool("memory_get", {"from_line": 1, "to_line": 1})
        out["bad"] = await client.call_tool("memory_get", {"item_id": 999999})
        pages, cursor = [], None
        while True:
            page = await client.call_tool("memory_items", {"limit": 2, **({"cursor": cursor} if cursor else {})})
            pages.append(page)
            cursor = json.loads(page.content[0].text)["next_cursor"]
            if cursor is None:
                break
        out["pages"] = pages
        out["facts"] = await client.call_tool("memory_items", {"kind": "fact", "key": "allergy"})
        out["bad_cursor"] = await client.call_tool("memory_items", {"cursor": "not-a-cursor"})
        out["bad_kind"] = await client.call_tool("memory_items", {"kind": "secret"})
    return tools, out


@pytest.mark.django_db(transaction=True)
def test_the_server_lists_exactly_the_three_read_tools_and_answers_calls(alice, bob, settings):
    from profiles.versions import memory_document_refresh

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)
    peanut = MemoryItem.objects.create(user=alice, kind="fact", key="allergy", value="花生", text="我对花生过敏",
                                       valid_from=NOW, confirmed_at=NOW)
    for city in ("利兹", "约克"):
        MemoryItem.objects.create(user=alice, kind="profile", key="city", value=city, text=f"我住在{city}",
                                  valid_from=NOW, confirmed_at=NOW)
    MemoryItem.objects.create(user=bob, kind="fact", key="allergy", value="花生", text="我也对花生过敏",
                              valid_from=NOW, confirmed_at=NOW)
    memory_document_refresh(user_id=alice.pk)
    _, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    tools, out = asyncio.run(_drive(["--user", "alice", "--agent", "main"], settings.QUARANTINE_KEY, key))
    assert sorted(t.name for t in tools.tools) == ["memory_get", "memory_items", "memory_search"]
    assert all(t.annotations.read_only_hint for t in tools.tools)
    hits = json.loads(out["found"].content[0].text)["hits"]
    assert [h["id"] for h in hits] == [peanut.pk]  # bob's item never appears
    assert json.loads(out["doc"].content[0].text)["text"] == "# 用户记忆"
    assert out["bad"].is_error
    assert "item_id: no memory item 999999" in out["bad"].content[0].text  # the agent is told why
    # memory_items pages through alice's three items, newest first, and never shows bob's
    pages = [json.loads(p.content[0].text) for p in out["pages"]]
    assert [[i["value"] for i in p["items"]] for p in pages] == [["约克", "利兹"], ["花生"]]
    assert [p["reason"] for p in pages] == ["ok", "ok"] and pages[0]["next_cursor"] and pages[1]["next_cursor"] is None
    assert [i["id"] for i in json.loads(out["facts"].content[0].text)["items"]] == [peanut.pk]
    assert out["bad_cursor"].is_error and "cursor: invalid cursor" in out["bad_cursor"].content[0].text
    assert out["bad_kind"].is_error and "kind" in out["bad_kind"].content[0].text


def test_tool_call_refuses_unknown_tools_and_bad_arguments(alice):
    with pytest.raises(ToolError):
        tool_call("memory_write", {}, user=alice, agent_slug="main")
    with pytest.raises(ToolError):
        tool_call("memory_search", {"query": ""}, user=alice, agent_slug="main")
    with pytest.raises(ToolError):
        tool_call("memory_get", {"item_id": 1, "user": "bob"}, user=alice, agent_slug="main")
    with pytest.raises(ToolError, match="memory_items: unknown argument"):
        tool_call("memory_items", {"user": "bob"}, user=alice, agent_slug="main")
    for bad in ({"limit": 0}, {"limit": 101}, {"limit": True}, {"key": ""}, {"cursor": "YjE="}):
        with pytest.raises(ToolError, match=next(iter(bad))):
            tool_call("memory_items", bad, user=alice, agent_slug="main")


def _refused(*args) -> CommandError:
    with pytest.raises(CommandError) as exc:
        call_command("mcp_server", *args)
    assert exc.value.returncode == 2
    return exc.value


def test_the_command_exits_2_without_a_valid_read_key_for_the_agent(alice, monkeypatch):
    monkeypatch.delenv("BIZMEMORY_API_KEY", raising=False)
    assert "--key: a read-scope API key is required" in str(_refused("--user", "alice", "--agent", "main", "--key", ""))
    assert "--key" in str(_refused("--user", "alice", "--agent", "main", "--key", "nope.nope"))
    _, key = PlatformAPIKey.objects.create_key(name="fin", scope="read", agents=["finance"])
    assert "--agent" in str(_refused("--user", "alice", "--agent", "main", "--key", key))
    _, ingest = PlatformAPIKey.objects.create_key(name="in", scope="ingest")
    assert "read-scope" in str(_refused("--user", "alice", "--agent", "main", "--key", ingest))
    _, revoked = PlatformAPIKey.objects.create_key(name="rev", scope="read", revoked=True)
    _, expired = PlatformAPIKey.objects.create_key(name="exp", scope="read",
                                                   expiry_date=timezone.now() - dt.timedelta(days=1))
    for bad in (revoked, expired):
        assert "--key: not a valid API key" in str(_refused("--user", "alice", "--agent", "main", "--key", bad))


def test_a_staff_login_as_the_user_names_the_platform_user_of_that_id_never_the_staff_account(db, t0):
    """Platform ids are their own namespace (profiles.models.PlatformIdentity)."""
    from profiles.services import user_ensure

    _, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    staff = get_user_model().objects.create_user("helpdesk", is_staff=True)
    platform = user_ensure(external_id="helpdesk")
    for user, text in ((staff, "staff: 我对花生过敏"), (platform, "platform: 我对花生过敏")):
        MemoryItem.objects.create(user=user, kind="fact", key="allergy", value="花生", text=text,
                                  valid_from=t0, confirmed_at=t0)
    hits = bound_call("memory_search", {"query": "花生过敏"}, username="helpdesk", agent_slug="main", api_key=key)["hits"]
    assert [h["text"] for h in hits] == ["platform: 我对花生过敏"]


CALLS = [("memory_search", {"query": "狗"}), ("memory_get", {}), ("memory_items", {"limit": 1})]


@pytest.mark.parametrize("name, args", CALLS, ids=[n for n, _ in CALLS])
def test_each_call_checks_the_key_again(alice, name, args):
    obj, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    bound = {"username": "alice", "agent_slug": "main", "api_key": key}
    assert bound_call(name, args, **bound)["reason"] in ("ok", "no_memory")
    obj.revoked = True
    obj.save()
    with pytest.raises(ToolError, match="key: not a valid API key"):
        bound_call(name, args, **bound)


@pytest.mark.parametrize("name, args", CALLS, ids=[n for n, _ in CALLS])
def test_each_call_counts_against_the_keys_read_rate_shared_with_http(alice, settings, name, args):
    from django.core.cache import cache
    from rest_framework.test import APIClient

    cache.clear()
    settings.BIZMEMORY = dict(settings.BIZMEMORY, API_RATE_READ="2/min")
    _, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    bound = {"username": "alice", "agent_slug": "main", "api_key": key}
    assert APIClient().get("/api/v1/memory/items", {"user": "alice", "agent": "main"},
                           HTTP_X_API_KEY=key).status_code == 200
    bound_call(name, args, **bound)
    with pytest.raises(ToolError, match=r"rate limit of this API key reached \(2/min\)"):
        bound_call(name, args, **bound)


def test_an_unknown_user_and_a_staff_login_get_a_user_with_no_memorys_answers(alice, t0):
    """Never the staff login's own memory; an id created after the server started is found."""
    _, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    staff = get_user_model().objects.create_user("helpdesk", is_staff=True)
    MemoryItem.objects.create(user=staff, kind="fact", key="allergy", value="花生", text="我对花生过敏",
                              valid_from=t0, confirmed_at=t0)
    calls = [("memory_search", {"query": "花生过敏"}), ("memory_search", {"query": "去年 花生"}),
             ("memory_get", {}), ("memory_get", {"from_line": 1, "to_line": 3})]

    def answers(username):
        return [bound_call(n, a, username=username, agent_slug="main", api_key=key) for n, a in calls]

    expected = answers("alice")  # a platform user with nothing stored
    assert answers("not-yet") == expected and answers("helpdesk") == expected
    assert "花生" not in repr(answers("helpdesk"))
    for username in ("alice", "not-yet", "helpdesk"):
        with pytest.raises(ToolError, match="item_id: no memory item"):
            bound_call("memory_get", {"item_id": 1}, username=username, agent_slug="main", api_key=key)
    assert not get_user_model().objects.filter(username="not-yet").exists()  # reading created nobody
    from profiles.services import user_ensure

    later = user_ensure(external_id="not-yet")
    MemoryItem.objects.create(user=later, kind="fact", key="allergy", value="花生", text="我对花生过敏",
                              valid_from=t0, confirmed_at=t0)
    hits = bound_call("memory_search", {"query": "花生过敏"}, username="not-yet", agent_slug="main", api_key=key)["hits"]
    assert [h["text"] for h in hits] == ["我对花生过敏"]


@pytest.mark.django_db(transaction=True)
def test_calls_sent_just_before_stdin_closes_are_all_answered(alice, settings, t0):
    """A client that writes its requests and closes stdin at once gets every answer, then the
    server exits 0 (the SDK alone cancels in-flight calls at EOF: "Connection closed")."""
    import subprocess

    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256)
    MemoryItem.objects.create(user=alice, kind="fact", key="allergy", value="花生", text="我对花生过敏",
                              valid_from=t0, confirmed_at=t0)
    _, key = PlatformAPIKey.objects.create_key(name="mcp", scope="read")
    calls = [("memory_search", {"query": "花生过敏"}), ("memory_get", {}), ("memory_items", {"limit": 1}),
             ("memory_search", {"query": "过敏"}), ("memory_get", {"item_id": 999999}), ("memory_items", {})]
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": n, "arguments": a}}
              for i, (n, a) in enumerate(calls, start=1)]
    proc = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "mcp_server", "--user", "alice", "--agent", "main"],
        input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True, text=True, timeout=120,
        env=_server_env(settings.QUARANTINE_KEY, key), cwd=str(REPO),
    )  # stdin is closed as soon as the requests are written
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines())}
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(answers) == list(range(len(calls) + 1)), proc.stdout[-2000:]
    assert not any("error" in a for a in answers.values()), [a.get("error") for a in answers.values()]
    results = {i: answers[i]["result"] for i in range(1, len(calls) + 1)}
    assert json.loads(results[1]["content"][0]["text"])["hits"][0]["text"] == "我对花生过敏"
    assert results[5]["isError"] and "item_id: no memory item 999999" in results[5]["content"][0]["text"]


def test_end_of_input_waits_only_for_requests_still_owed_an_answer():
    """The relay under the stdio server: answered and cancelled requests are not waited for; one
    never answered holds the end of input back only until the timeout."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

    from profiles.mcp_stdio import answered_before_eof

    def request(i):
        return SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=i, method="tools/call", params={}))

    async def run(frames, answer_ids, timeout):
        client_send, transport_reads = anyio.create_memory_object_stream(10)
        transport_writes, client_recv = anyio.create_memory_object_stream(10)
        for frame in frames:
            client_send.send_nowait(frame)
        client_send.close()  # the client has closed stdin
        start = anyio.current_time()
        with anyio.fail_after(10):
            async with answered_before_eof(transport_reads, transport_writes, timeout=timeout) as (reads, writes):
                async with writes:  # a server loop that answers only answer_ids
                    async for item in reads:
                        if isinstance(item.message, JSONRPCRequest) and item.message.id in answer_ids:
                            await writes.send(
                                SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={})))
        took = anyio.current_time() - start
        return took, [m.message.id async for m in client_recv]  # the relay closed the transport's output

    cancel = SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled",
                                                params={"requestId": 2}))
    took, answered = anyio.run(run, [request(1), request(2), cancel], {1}, 30.0)
    assert answered == [1] and took < 5  # 2 was cancelled by the client: not waited for
    took, answered = anyio.run(run, [request(1), request(2)], {1}, 1.0)
    assert answered == [1] and 1.0 <= took < 5  # 2 is never answered: given up after the timeout
