"""The Python client's retry policy (clients/python): which failed requests it sends again.

What is tested is the client's decision, so the server is an ``httpx.MockTransport`` answering
what a server can answer mid-outage (503 after a write may have committed, a connection refused,
a lost answer); the live behaviour — errors naming fields, 429 with Retry-After — is in
``tests/e2e/test_python_client.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients" / "python" / "src"))

from bizmemory_client import BizMemory, ConnectionFailed, ServerError, ServiceUnavailable  # noqa: E402
from bizmemory_client.errors import retry_after_seconds  # noqa: E402

CREATED = {"session": "s1", "message_ids": [1], "watermark": 0, "results": [{"id": 1, "message_id": "m1",
                                                                             "status": "stored"}]}
UNAVAILABLE = {"error": {"code": "database_unavailable", "message": "retry shortly", "field": None}}


def _client(answers: list, seen: list) -> BizMemory:
    """A client whose server answers from ``answers`` in turn (a Response, or an exception to raise)."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return BizMemory("http://memory.test", "key", http_client=httpx.Client(transport=httpx.MockTransport(handler)),
                     backoff=0.01)


def _503() -> httpx.Response:
    return httpx.Response(503, json=UNAVAILABLE, headers={"Retry-After": "0"})


def test_it_does_not_repeat_a_batch_without_message_ids_after_a_503():
    seen: list = []
    client = _client([_503(), httpx.Response(201, json=CREATED)], seen)
    with pytest.raises(ServiceUnavailable) as exc:
        client.ingest("alice", "s1", [{"role": "user", "content": "hi"}])
    assert (exc.value.status, exc.value.code, len(seen)) == (503, "database_unavailable", 1)


def test_it_repeats_a_batch_whose_messages_all_carry_ids():
    seen: list = []
    client = _client([_503(), httpx.ReadTimeout("lost"), httpx.Response(201, json=CREATED)], seen)
    out = client.ingest("alice", "s1", [{"role": "user", "content": "hi", "message_id": "m1"}])
    assert out.results[0].status == "stored" and len(seen) == 3
    assert seen[0].content == seen[2].content  # the same batch, ids and all


def test_it_repeats_any_request_whose_connection_was_never_made():
    seen: list = []
    client = _client([httpx.ConnectError("refused"), httpx.Response(201, json=CREATED)], seen)
    assert client.ingest("alice", "s1", [{"role": "user", "content": "hi"}]).session == "s1"
    seen.clear()
    client = _client([httpx.ReadTimeout("lost"), httpx.Response(201, json=CREATED)], seen)
    with pytest.raises(ConnectionFailed):
        client.ingest("alice", "s1", [{"role": "user", "content": "hi"}])
    assert len(seen) == 1


def test_it_gives_up_on_a_read_after_max_attempts():
    seen: list = []
    client = _client([_503() for _ in range(4)] + [httpx.Response(200, json={})], seen)
    with pytest.raises(ServiceUnavailable):
        client.context("alice")
    assert len(seen) == client.max_attempts == 4


def test_an_error_page_that_is_not_json_keeps_its_status():
    client = _client([httpx.Response(502, text="<html>Bad Gateway</html>")], [])
    with pytest.raises(ServerError) as exc:
        client.memory_get("alice")
    assert (exc.value.status, exc.value.code, exc.value.field) == (502, "http_error", None)


@pytest.mark.parametrize("header, seconds", [("7", 7.0), ("Wed, 21 Oct 2015 07:28:10 GMT", 3.0), ("soon", None),
                                             (None, None)])
def test_retry_after_is_read_as_seconds_or_an_http_date(header, seconds):
    now = 1445412487.0  # 07:28:07 GMT that day
    assert retry_after_seconds(header, now=now) == seconds
