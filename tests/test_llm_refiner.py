"""LLM refiner against a small local OpenAI-compatible server started by the tests
(http.server in a thread on 127.0.0.1, random port) that replays recorded responses."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from consolidation.extraction import extraction_run
from consolidation.llm_refiner import PROMPT_VERSION, SYSTEM_PROMPT, candidates_refine
from consolidation.models import JournalEntry

from .helpers import post_turns

TURN = "I'm a data engineer in Toronto."  # rules: city=Toronto (id 0), role=data engineer (id 1)


def completion(content: str) -> bytes:
    """A recorded chat.completions response whose message content is ``content``."""
    return json.dumps({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }).encode()


GOOD = completion(json.dumps({"prompt_version": PROMPT_VERSION, "decisions": [
    {"id": 0, "action": "drop", "reason": "city of a trip"},
    {"id": 1, "action": "reword", "value": "senior data engineer"},
]}))
BAD_JSON = completion('{"decisions": [{"id": 0, "action": "drop"')
SCHEMA_INVALID = completion(json.dumps({"decisions": [{"id": 0, "action": "delete"}]}))
INVENTED_ID = completion(json.dumps({"decisions": [{"id": 7, "action": "reword", "value": "CEO"}]}))
WRONG_KIND_KEY = completion(json.dumps({"decisions": [{"id": 1, "action": "reword", "key": "pref:format"}]}))
PARTIAL = completion(json.dumps({"decisions": [{"id": 0, "action": "drop"}]}))


class FakeLLM:
    """Serves ``responses`` in order (the last one repeats): ``(status, body, delay_seconds)``."""

    def __init__(self, responses):
        self.responses = list(responses)
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server API)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append({"path": self.path, "json": json.loads(body)})
                server.headers.append(dict(self.headers))
                status, payload, delay = server.responses[min(len(server.requests), len(server.responses)) - 1]
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def llm(settings):
    servers = []

    def start(*responses, timeout=2.0, attempts=2):
        srv = FakeLLM(responses)
        servers.append(srv)
        settings.BIZMEMORY = dict(settings.BIZMEMORY, LLM_BASE_URL=srv.url, LLM_API_KEY="sk-test", LLM_MODEL="test-model",
                                  LLM_TIMEOUT_SECONDS=timeout, LLM_MAX_ATTEMPTS=attempts)
        return srv

    yield start
    for srv in servers:
        srv.close()


def _run_session(t0, turns=None):
    session, stored = post_turns("u1", "s1", turns or [("assistant", "Hi, how can I help?"), ("user", TURN), ("assistant", "Noted.")], start=t0)
    res = extraction_run(session_id=session.pk, now=t0, trigger="ingest")
    session.refresh_from_db()
    return res, session, stored


def _journal():
    return sorted((e.key, e.value) for e in JournalEntry.objects.all())


RULES_ONLY = [("city", "Toronto"), ("role", "data engineer")]


def test_it_applies_a_good_reply_dropping_and_rewording_only_rule_candidates(db, t0, llm):
    srv = llm((200, GOOD, 0))
    res, session, stored = _run_session(t0)
    assert res.refiner == "refined"
    assert _journal() == [("role", "senior data engineer")]
    assert JournalEntry.objects.get().text == "Role: senior data engineer"
    assert session.watermark == stored[-1].pk
    assert len(srv.requests) == 1
    req = srv.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["json"]["model"] == "test-model"
    assert req["json"]["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    sent = json.loads(req["json"]["messages"][1]["content"])
    assert sent["prompt_version"] == PROMPT_VERSION
    assert [(c["id"], c["key"], c["value"]) for c in sent["candidates"]] == [(0, "city", "Toronto"), (1, "role", "data engineer")]
    assert sent["candidates"][0]["message"] == TURN
    assert sent["candidates"][0]["previous_assistant_turn"] == "Hi, how can I help?"
    assert srv.headers[0]["Authorization"] == "Bearer sk-test"


@pytest.mark.parametrize("body", [BAD_JSON, SCHEMA_INVALID, INVENTED_ID, WRONG_KIND_KEY],
                         ids=["bad-json", "schema-invalid", "invented-id", "key-of-another-kind"])
def test_a_malformed_reply_falls_back_to_the_rule_result_and_is_logged(db, t0, llm, caplog, body):
    srv = llm((200, body, 0))
    with caplog.at_level("WARNING", logger="bizmemory.llm_refiner"):
        res, session, stored = _run_session(t0)
    assert res.refiner == "fallback"
    assert _journal() == RULES_ONLY
    assert session.watermark == stored[-1].pk
    assert len(srv.requests) == 1  # content errors are not retried
    assert "fell back to the rule result" in caplog.text


def test_a_timeout_is_retried_then_falls_back(db, t0, llm):
    srv = llm((200, GOOD, 1.5), timeout=0.3, attempts=2)
    res, session, stored = _run_session(t0)
    assert res.refiner == "fallback"
    assert _journal() == RULES_ONLY
    assert len(srv.requests) == 2
    assert session.watermark == stored[-1].pk


def test_a_server_error_is_retried_then_falls_back(db, t0, llm):
    srv = llm((500, b'{"error": {"message": "upstream"}}', 0), attempts=3)
    res, _, _ = _run_session(t0)
    assert res.refiner == "fallback"
    assert _journal() == RULES_ONLY
    assert len(srv.requests) == 3


def test_a_server_error_then_a_good_reply_is_used(db, t0, llm):
    srv = llm((503, b"{}", 0), (200, GOOD, 0), attempts=2)
    res, _, _ = _run_session(t0)
    assert res.refiner == "refined"
    assert _journal() == [("role", "senior data engineer")]
    assert len(srv.requests) == 2


def test_a_candidate_the_reply_does_not_mention_is_kept(db, t0, llm):
    llm((200, PARTIAL, 0))
    res, _, _ = _run_session(t0)
    assert res.refiner == "refined"
    assert _journal() == [("role", "data engineer")]


def test_fallback_never_moves_the_watermark_past_an_unanswered_message(db, t0, llm):
    srv = llm((200, BAD_JSON, 0))
    res, session, stored = _run_session(t0, [("user", TURN), ("assistant", "Noted."), ("user", "I prefer tables in answers.")])
    assert res.refiner == "fallback"
    assert _journal() == RULES_ONLY
    assert session.watermark == stored[1].pk  # the unanswered preference waits for its answer
    assert len(srv.requests) == 1


def test_it_makes_no_request_when_no_endpoint_is_configured(db, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, LLM_BASE_URL="", LLM_MODEL="")
    res, _, _ = _run_session(t0)
    assert res.refiner == ""
    assert _journal() == RULES_ONLY
    assert candidates_refine(items=[]).status == "disabled"


def test_it_makes_no_request_when_the_rules_found_nothing(db, t0, llm):
    srv = llm((200, GOOD, 0))
    res, _, _ = _run_session(t0, [("user", "Thanks, that's helpful!"), ("assistant", "You're welcome.")])
    assert res.journal_written == 0
    assert srv.requests == []


def test_the_prompt_is_a_versioned_platform_constant():
    assert PROMPT_VERSION in SYSTEM_PROMPT
    assert "You cannot add candidates" in SYSTEM_PROMPT
