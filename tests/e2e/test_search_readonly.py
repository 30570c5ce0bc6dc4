"""E2E layer 2 — read-only search over real HTTP (gunicorn + qcluster).

memory_search finds a fact the conversation wrote; the tools manifest and the API
offer agents no write tool; write attempts with an agent (read-scope) key are refused
and store nothing.
"""

import pytest
import requests

from consolidation.models import Message
from profiles.models import MemoryItem

from .conftest import wait_for

pytestmark = pytest.mark.e2e

WRITE_METHODS = ("post", "put", "patch", "delete")


def test_memory_search_finds_what_the_conversation_wrote_and_agents_cannot_write(stack_factory, api_keys):
    st = stack_factory(BIZMEMORY_CONSOLIDATION_MIN_INTERVAL_SECONDS="0")
    ingest, read = {"X-Api-Key": api_keys["ingest"]}, {"X-Api-Key": api_keys["read"]}
    body = {
        "user": "search-user", "session": "search-s1", "end_session": True,
        "messages": [
            {"role": "user", "content": "I use Haskell at work."},
            {"role": "assistant", "content": "Nice."},
            {"role": "user", "content": "I live in Porto."},
            {"role": "assistant", "content": "Lovely city."},
        ],
    }
    r = requests.post(f"{st.url}/api/v1/messages", json=body, headers=ingest, timeout=10)
    assert r.status_code == 201, r.text
    wait_for(
        lambda: MemoryItem.objects.current().filter(user__username="search-user", value="Haskell").exists(),
        what=lambda: f"the fact to be consolidated\n{st.logs()}",
    )

    r = requests.get(f"{st.url}/api/v1/memory/search", headers=read, timeout=30,
                     params={"user": "search-user", "agent": "main", "query": "Haskell"})
    assert r.status_code == 200, r.text
    hits = r.json()["hits"]
    assert hits and "Haskell" in hits[0]["text"]
    item = MemoryItem.objects.get(pk=hits[0]["id"])
    assert item.user.username == "search-user"
    got = requests.get(f"{st.url}/api/v1/memory", headers=read, timeout=10,
                       params={"user": "search-user", "agent": "main", "item_id": item.pk})
    assert got.status_code == 200 and "Haskell" in got.json()["text"]

    # The manifest: exactly the three read tools.
    tools = requests.get(f"{st.url}/api/v1/tools", headers=read, timeout=10).json()["tools"]
    assert sorted(t["function"]["name"] for t in tools) == ["memory_get", "memory_items", "memory_search"]

    # The API: every operation that is not a GET needs the ingest scope.
    schema = requests.get(f"{st.url}/api/v1/schema/", params={"format": "json"}, timeout=30).json()
    writes = sorted((path, m) for path, ops in schema["paths"].items() for m in ops if m in WRITE_METHODS)
    assert writes == [("/api/v1/messages", "post"), ("/api/v1/sessions/{session_id}/end", "post")]
    before = Message.objects.count()
    for path, method in writes:
        r = requests.request(method, st.url + path.replace("{session_id}", "search-s1"), headers=read,
                             json={**body, "session": "search-s2"}, timeout=10)
        assert r.status_code == 403, (path, r.status_code, r.text)
        assert r.json()["error"]["code"]
    for path in ("/api/v1/memory", "/api/v1/memory/search", "/api/v1/context", "/api/v1/tools"):
        for method in WRITE_METHODS:
            r = requests.request(method, st.url + path, headers=read, json={"user": "search-user"}, timeout=10)
            assert r.status_code in (403, 405), (method, path, r.status_code)
    assert Message.objects.count() == before
    assert MemoryItem.objects.current().filter(user__username="search-user", value="Haskell").exists()
