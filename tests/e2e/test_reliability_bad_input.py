"""Bad input against the running stack: never a 5xx, errors are JSON naming the field,
nothing already stored is lost or altered.

* schemathesis: every operation of our OpenAPI schema (generated in-process by
  drf-spectacular, the same document ``/api/v1/schema/`` serves), with schema-conforming
  and schema-violating examples (bounded: ``EXAMPLES`` per operation and mode), sent with
  the right key for the operation's scope.
* hand-written cases the generators rarely reach: oversized bodies and fields, invalid
  UTF-8, deeply nested JSON, wrong types, a non-JSON content type.
"""

import json

import pytest
import requests
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

import schemathesis
from consolidation.models import Message
from profiles.models import MemoryItem

from .conftest import wait_for

pytestmark = pytest.mark.e2e

EXAMPLES = 25
SEED = {"user": "fuzz-owner", "session": "fuzz-s1", "end_session": True, "messages": [
    {"role": "user", "content": "I live in Oslo."}, {"role": "assistant", "content": "OK."}]}


def _seeded(st, api_keys):
    r = requests.post(f"{st.url}/api/v1/messages", json=SEED, headers={"X-Api-Key": api_keys["ingest"]}, timeout=10)
    assert r.status_code == 201
    wait_for(lambda: MemoryItem.objects.current().filter(user__username="fuzz-owner", value="Oslo").exists(),
             what=lambda: f"the seed memory\n{st.logs()}")
    return _state()


def _state():
    return (
        sorted(Message.objects.filter(session__user__username="fuzz-owner", session__external_id="fuzz-s1")
               .values_list("id", "content")),
        sorted(MemoryItem.objects.filter(user__username="fuzz-owner").values_list("id", "value", "valid_until")),
    )


def _check_error(r):
    assert r.status_code < 500, (r.request.method, r.request.url, r.status_code, r.text[:300])
    if r.status_code in (414, 431):
        return  # gunicorn refuses an oversized request line/header itself, before the application
    if r.status_code >= 400:
        err = r.json()["error"]
        assert err["code"] and err["message"]
        if err["code"] == "invalid":  # a validation error names the field (a parse error has none)
            assert err["field"] is not None, r.text[:300]


def test_schemathesis_finds_no_server_error_and_nothing_stored_changes(stack_factory, api_keys):
    st = stack_factory(BIZMEMORY_API_RATE_READ="", BIZMEMORY_API_RATE_INGEST="")
    before = _seeded(st, api_keys)
    schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
    tried = 0
    for result in schema.get_all_operations():
        op = result.ok()
        key = api_keys["ingest" if op.method.lower() == "post" else "read"]
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            @given(case=op.as_strategy(generation_mode=mode))
            def run(case):
                nonlocal tried
                if case.path_parameters and "session_id" in case.path_parameters:
                    case.path_parameters["session_id"] = "fuzz-other"  # never end the seeded session
                if isinstance(case.body, dict) and case.body.get("session") == "fuzz-s1":
                    case.body["session"] = "fuzz-other"
                r = case.call(base_url=st.url, headers={"X-Api-Key": key}, timeout=30)
                tried += 1
                _check_error(r)

            try:
                run()
            except Unsatisfiable:
                assert mode == GenerationMode.NEGATIVE  # an operation without inputs has nothing to violate
    assert tried >= EXAMPLES * 7
    assert _state() == before


def test_hand_written_bad_bodies_get_4xx_json_naming_the_field(stack_factory, api_keys):
    st = stack_factory(BIZMEMORY_API_RATE_READ="", BIZMEMORY_API_RATE_INGEST="")
    before = _seeded(st, api_keys)
    url = f"{st.url}/api/v1/messages"
    h = {"X-Api-Key": api_keys["ingest"], "Content-Type": "application/json"}
    ok_msg = {"role": "user", "content": "hi"}

    def post(data, headers=h):
        return requests.post(url, data=data, headers=headers, timeout=60)

    cases = {
        "content too long": (json.dumps({**SEED, "session": "fz-1", "messages": [{"role": "user", "content": "x" * 20001}]}),
                             "messages[0].content"),
        "too many messages": (json.dumps({**SEED, "session": "fz-2", "messages": [ok_msg] * 501}), "messages"),
        "wrong type": (json.dumps({**SEED, "session": "fz-3", "messages": "hello"}), "messages"),
        "wrong nested type": (json.dumps({**SEED, "session": "fz-4", "messages": [{"role": 7, "content": ["a"]}]}),
                              "messages[0].role"),
        "missing user": (json.dumps({"session": "fz-5", "messages": [ok_msg]}), "user"),
        "bad role": (json.dumps({**SEED, "session": "fz-6", "messages": [{"role": "robot", "content": "x"}]}),
                     "messages[0].role"),
        "user id with trailing whitespace": (json.dumps({**SEED, "user": "fuzz-owner "}), "user"),
    }
    for name, (body, field) in cases.items():
        r = post(body)
        assert r.status_code == 400, (name, r.status_code, r.text[:300])
        assert r.json()["error"]["field"] == field, (name, r.json())
    r = requests.post(f"{url}?user=fuzz-owner&user=fuzz-intruder", data=json.dumps({**SEED, "session": "fz-11"}),
                      headers=h, timeout=60)
    assert r.status_code == 400 and r.json()["error"]["field"] == "user", r.text[:300]
    # Session ids are per user: the owner's id under another user is that user's own session.
    r = post(json.dumps({**SEED, "user": "fuzz-intruder", "end_session": False}))
    assert r.status_code == 201, r.text[:300]

    blunt = {
        "invalid utf-8": b'{"user": "fz", "session": "fz-7", "messages": [{"role": "user", "content": "\xff\xfe"}]}',
        "deeply nested": b'{"user": ' + b"[" * 100000 + b"]" * 100000 + b"}",
        "oversized body": json.dumps({**SEED, "session": "fz-8", "messages": [{"role": "user", "content": "y" * 19000}] * 200}),
        "not json": b"user=fz&session=fz-9",
        "truncated json": b'{"user": "fz", "session": ',
    }
    for name, body in blunt.items():
        r = post(body)
        assert 400 <= r.status_code < 500, (name, r.status_code, r.text[:300])
        assert r.json()["error"]["code"], name
    r = post(b"user=fz", headers={**h, "Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json()["error"]["code"]

    unknown = post(json.dumps({**SEED, "session": "fz-10", "surprise": 1}))
    assert unknown.status_code == 400, unknown.text[:300]  # as tests/test_api.py asserts in process
    assert unknown.json()["error"]["field"] == "surprise", unknown.json()
    assert not Message.objects.filter(session__external_id__in=[f"fz-{i}" for i in range(1, 12)]).exists()
    assert _state() == before
