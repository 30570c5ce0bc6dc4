"""E2E — the official Python client (clients/python) against the running stack (gunicorn + qcluster).

The client is imported from its source tree (``clients/python/src``), not installed: ingest a
conversation, wait through the client until the worker has extracted and consolidated it, then
read it back with every typed method (context within a token budget, search, get, the item
pages), hand the read tools to a "model" and dispatch its calls; then the errors: the field the
server names, a refused key, a conflict, and retries that wait what ``Retry-After`` says.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
import time
from types import SimpleNamespace

import httpx
import pytest

from consolidation.models import Message

from .conftest import ROOT, wait_for

sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

from bizmemory_client import (  # noqa: E402
    BadRequest,
    BizMemory,
    Conflict,
    MemoryTools,
    NotFound,
    PermissionDenied,
    RateLimited,
)

pytestmark = pytest.mark.e2e

USER = "client-user"
TURNS = [
    {"role": "system", "content": "You are a helpful assistant.", "message_id": "m0"},
    {"role": "user", "content": "Hi, I'm a data engineer based in Manchester.", "message_id": "m1"},
    {"role": "assistant", "content": "Hello!", "message_id": "m2"},
    {"role": "user", "content": "I use Haskell at work.", "message_id": "m3"},
    {"role": "assistant", "content": "Nice.", "message_id": "m4"},
    {"role": "user", "content": "以后回答我尽量简短，直接给结论。", "message_id": "m5"},
    {"role": "assistant", "content": "好的。", "message_id": "m6"},
]


def _values(reader: BizMemory) -> set[str]:
    return {item.value for item in reader.iter_memory_items(USER)}


def _pages(reader: BizMemory, **filters) -> list[list[int]]:
    pages, cursor = [], None
    while True:
        page = reader.memory_items(USER, limit=1, cursor=cursor, **filters)
        pages.append([item.id for item in page.items])
        cursor = page.next_cursor
        if cursor is None:
            return pages


def test_the_client_ingests_and_reads_memory_through_the_running_stack(stack_factory, api_keys, monkeypatch):
    st = stack_factory(BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0")
    with BizMemory(st.url, api_keys["ingest"]) as platform, BizMemory(st.url + "/api/v1/", api_keys["read"]) as reader:
        stored = platform.ingest(USER, "client-s1", TURNS, end_session=True)
        assert stored.session == "client-s1" and len(stored.message_ids) == len(TURNS)
        assert [r.status for r in stored.results] == ["stored"] * len(TURNS)
        again = platform.ingest(USER, "client-s1", TURNS[:2])  # a retried batch stores nothing twice
        assert [r.status for r in again.results] == ["duplicate", "duplicate"]
        assert again.message_ids == stored.message_ids[:2]

        wait_for(lambda: {"Haskell", "Manchester"} <= _values(reader),
                 what=lambda: f"extraction and consolidation of the client's batch\n{st.logs()}")

        ctx = reader.context(USER, budget=300, query="what language do I use at work?")
        assert ctx.reason == "ok" and "Haskell" in ctx.text and "Manchester" in ctx.text
        assert 0 < ctx.tokens <= ctx.budget == 300 and ctx.item_ids
        assert "helpful assistant" not in ctx.text  # a system turn is never memory
        tiny = reader.context(USER, budget=1)
        assert tiny.text == "" and tiny.reason == "budget_too_small"

        found = reader.memory_search(USER, "Haskell", top_k=3)
        assert found.reason == "ok" and 1 <= len(found.hits) <= 3
        hit = found.hits[0]
        assert "Haskell" in hit.text and hit.kind in ("profile", "preference", "fact")
        assert hit.id in ctx.item_ids and hit.date.tzinfo is not None

        one = reader.memory_get(USER, item_id=hit.id)
        assert one.reason == "ok" and one.item.id == hit.id and one.item.value == "Haskell"
        doc = reader.memory_get(USER)
        assert doc.reason == "ok" and doc.total_lines >= 2 and "Manchester" in doc.text
        first = reader.memory_get(USER, from_line=1, to_line=1)
        assert (first.from_line, first.to_line, first.text) == (1, 1, doc.text.splitlines()[0])

        every = [item.id for item in reader.memory_items(USER, limit=100).items]
        assert len(every) >= 3 and every == sorted(every, reverse=True)
        assert _pages(reader) == [[i] for i in every]  # one item a page, newest first, nothing lost
        assert [item.id for item in reader.iter_memory_items(USER, page_size=2)] == every
        prefs = list(reader.iter_memory_items(USER, kind="preference", page_size=1))
        assert prefs and {item.kind for item in prefs} == {"preference"} and len(prefs) < len(every)

        ended = platform.end_session(USER, "client-s1")
        assert ended.session == "client-s1" and isinstance(ended.ended_at, dt.datetime)

        _the_model_calls_the_read_tools(reader, hit.id)
    _the_readme_agent_loop_runs(st.url, api_keys, monkeypatch)


def _the_model_calls_the_read_tools(reader: BizMemory, item_id: int) -> None:
    tools = MemoryTools(reader, user=USER)
    assert sorted(t["function"]["name"] for t in tools.openai_tools()) == ["memory_get", "memory_search"]
    assert {t["name"] for t in tools.anthropic_tools()} == {"memory_get", "memory_search"}

    answer = tools.dispatch({"id": "call_1", "type": "function",
                             "function": {"name": "memory_search", "arguments": json.dumps({"query": "Haskell"})}})
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_1"
    hits = json.loads(answer["content"])["hits"]
    assert hits[0]["id"] == item_id and "Haskell" in hits[0]["text"]

    got = json.loads(tools.dispatch({"id": "call_2", "function": {
        "name": "memory_get", "arguments": json.dumps({"item_id": item_id})}})["content"])
    assert got["item"]["value"] == "Haskell"

    # Mistakes go back to the model as an error it can read; a write tool does not exist.
    for name, args, field in (("memory_write", {"text": "x"}, "name"), ("memory_search", {"user": "bob"}, "user"),
                              ("memory_get", {"item_id": 10**9}, "item_id"),
                              ("memory_search", {"query": "x", "top_k": 99}, "top_k")):
        out = json.loads(tools.dispatch({"id": "c", "function": {"name": name, "arguments": json.dumps(args)}})["content"])
        assert out["error"]["field"] == field, (name, out)


def _scripted_model(requests_seen: list):
    """An OpenAI-shaped chat client that first calls memory_search, then answers from the tool result."""
    call = SimpleNamespace(id="call_9", type="function",
                           function=SimpleNamespace(name="memory_search", arguments='{"query": "Haskell"}'))

    def create(*, model, messages, tools):
        requests_seen.append({"messages": list(messages), "tools": tools})
        tool_results = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        if not tool_results:
            message = SimpleNamespace(content=None, tool_calls=[call])
        else:
            hits = json.loads(tool_results[-1]["content"])["hits"]
            message = SimpleNamespace(content=f"You use {hits[0]['text']}.", tool_calls=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    return SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))


def _the_readme_agent_loop_runs(url: str, api_keys: dict, monkeypatch) -> None:
    """The agent loop of clients/python/README.md, as written there, with a scripted model."""
    readme = (ROOT / "clients" / "python" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- agent-loop -->\s*```python\n(.*?)```\s*<!-- /agent-loop -->", readme, re.S).group(1)
    for name, value in (("URL", url), ("INGEST_KEY", api_keys["ingest"]), ("READ_KEY", api_keys["read"])):
        monkeypatch.setenv(f"BIZMEMORY_{name}", value)
    namespace: dict = {}
    exec(compile(block, "clients/python/README.md", "exec"), namespace)
    seen, history = [], []
    answer = namespace["agent_turn"](_scripted_model(seen), USER, "loop-s1", "What do I use at work?", history)

    assert "Haskell" in answer and len(seen) == 2
    assert "Manchester" in seen[0]["messages"][0]["content"]  # the context went into the system prompt
    assert sorted(t["function"]["name"] for t in seen[0]["tools"]) == ["memory_get", "memory_search"]
    assert seen[1]["messages"][-1]["tool_call_id"] == "call_9"
    stored = list(Message.objects.filter(session__external_id="loop-s1").order_by("id").values_list("role", "content"))
    assert stored == [("user", "What do I use at work?"), ("assistant", answer)]
    assert len(history) == 2


def _traced(log: list) -> httpx.Client:
    """An httpx client recording ``(monotonic time, status, Retry-After)`` of every response."""
    return httpx.Client(timeout=10, event_hooks={"response": [
        lambda r: log.append((time.monotonic(), r.status_code, r.headers.get("Retry-After")))]})


def test_the_client_raises_what_the_server_names_and_waits_when_told(stack_factory, api_keys):
    st = stack_factory(worker=False, BIZMEMORY_API_RATE_READ="2/s")
    platform, reader = BizMemory(st.url, api_keys["ingest"]), BizMemory(st.url, api_keys["read"])

    with pytest.raises(BadRequest) as bad:
        platform.ingest(USER, "errors-s1", [{"role": "robot", "content": "hi"}])
    assert (bad.value.status, bad.value.code, bad.value.field) == (400, "invalid", "messages[0].role")
    with pytest.raises(BadRequest) as bad:
        platform.ingest(USER, "errors-s1", [{"role": "user", "content": "hi"}], temporary="yes")
    assert bad.value.field == "temporary"
    platform.ingest(USER, "errors-s1", [{"role": "user", "content": "hi", "message_id": "a"}])
    with pytest.raises(Conflict) as conflict:
        platform.ingest(USER, "errors-s1", [{"role": "user", "content": "changed", "message_id": "a"}])
    assert (conflict.value.status, conflict.value.field) == (409, "messages[0].message_id")
    with pytest.raises(NotFound) as missing:
        platform.end_session(USER, "no-such-session")
    assert (missing.value.status, missing.value.field) == (404, "session")

    for key, client in (("not-a-key", BizMemory(st.url, "not-a-key")), ("ingest", platform)):
        with pytest.raises(PermissionDenied) as refused:
            client.context(USER)
        assert refused.value.status == 403 and refused.value.code == "permission_denied", key
    with pytest.raises(NotFound) as missing:
        reader.memory_get(USER, item_id=10**9)
    assert missing.value.field == "item_id"
    with pytest.raises(BadRequest) as bad:
        reader.memory_items(USER, cursor="not-a-cursor")
    assert bad.value.field == "cursor"

    # The read rate is 2/s: a burst is refused with 429 + Retry-After, and the client waits that long.
    log: list = []
    patient = BizMemory(st.url, api_keys["read"], http_client=_traced(log), max_attempts=5)
    for _ in range(5):
        assert patient.context(USER).reason == "no_memory"
    refusals = [i for i, (_, status, _) in enumerate(log) if status == 429]
    assert refusals and [status for _, status, _ in log].count(200) == 5
    for i in refusals:
        assert log[i + 1][0] - log[i][0] >= float(log[i][2]) - 0.05, log

    # A Retry-After longer than the caller will wait is raised at once, with the wait it named.
    log.clear()
    hasty = BizMemory(st.url, api_keys["read"], http_client=_traced(log), max_retry_wait=0.1)
    with pytest.raises(RateLimited) as limited:
        for _ in range(5):
            hasty.context(USER)
    assert limited.value.status == 429 and limited.value.retry_after >= 1
    assert [status for _, status, _ in log].count(429) == 1
