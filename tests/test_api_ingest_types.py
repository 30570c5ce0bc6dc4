"""POST /api/v1/messages takes JSON types as sent: booleans and strings only, aware date-times (issue 15).

Each refusal is a 400 in the API's error format naming the field the client sent, and stores nothing.
"""

import pytest
from rest_framework.test import APIClient

from consolidation.models import Message, Session


def _post(api_keys, body):
    return APIClient().post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["ingest"])


def _body(**kw):
    body = {"user": "u1", "session": "s1", "messages": [{"role": "user", "content": "I live in Leeds."}]}
    body.update(kw)
    return body


def _error(r):
    assert r.status_code == 400, r.content
    assert r["Content-Type"] == "application/json"
    error = r.json()["error"]
    assert error["code"] == "invalid" and error["message"]
    return error


@pytest.mark.parametrize("value", ["yes", "true", "on", 1, 0, "0", None])
@pytest.mark.parametrize("field", ["temporary", "end_session"])
def test_it_takes_only_json_booleans(api_keys, field, value):
    assert _error(_post(api_keys, _body(**{field: value})))["field"] == field
    assert not Session.objects.exists()


@pytest.mark.parametrize("field", ["content", "message_id", "expert", "role", "created_at"])
@pytest.mark.parametrize("value", [42, 4.5, True, ["x"], {"a": "b"}])
def test_it_takes_only_json_strings_in_a_message(api_keys, field, value):
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"role": "assistant", "content": "three", field: value},
    ]
    assert _error(_post(api_keys, _body(messages=messages)))["field"] == f"messages[2].{field}"
    assert not Message.objects.exists()


@pytest.mark.parametrize("field", ["user", "session", "agent", "session_kind"])
def test_it_takes_only_json_strings_at_the_top(api_keys, field):
    assert _error(_post(api_keys, _body(**{field: 7})))["field"] == field
    assert not Session.objects.exists()


@pytest.mark.parametrize("naive", ["2026-01-31T09:30:00", "2026-01-31 09:30", "2026-01-31T09:30:00.123456"])
def test_a_created_at_without_a_time_zone_is_refused(api_keys, naive):
    messages = [{"role": "user", "content": "hi", "created_at": naive}]
    error = _error(_post(api_keys, _body(messages=messages)))
    assert error["field"] == "messages[0].created_at" and "time zone" in error["message"]
    assert not Message.objects.exists()


@pytest.mark.parametrize("aware", ["2026-01-31T09:30:00Z", "2026-01-31T17:30:00+08:00", "2026-01-31T09:30:00.5-05:00"])
def test_a_created_at_with_a_time_zone_is_stored(api_keys, aware):
    messages = [{"role": "user", "content": "hi", "created_at": aware}]
    assert _post(api_keys, _body(messages=messages)).status_code == 201
    assert Message.objects.get().created_at.isoformat().startswith("2026-01-31")


def test_a_date_only_created_at_is_refused(api_keys):
    messages = [{"role": "user", "content": "hi", "created_at": "2026-01-31"}]
    assert _error(_post(api_keys, _body(messages=messages)))["field"] == "messages[0].created_at"


def test_the_temporary_mismatch_names_temporary_and_keeps_what_is_stored(api_keys):
    assert _post(api_keys, _body(temporary=True)).status_code == 201
    error = _error(_post(api_keys, _body(temporary=False, messages=[{"role": "user", "content": "more"}])))
    assert error["field"] == "temporary"
    # Omitting it means false, which differs too; the session as created is named in the message.
    error = _error(_post(api_keys, _body(messages=[{"role": "user", "content": "more"}])))
    assert error["field"] == "temporary" and "true" in error["message"]
    assert list(Message.objects.values_list("content", flat=True)) == ["I live in Leeds."]
    assert Session.objects.get().temporary is True
    assert _post(api_keys, _body(temporary=True, messages=[{"role": "user", "content": "more"}])).status_code == 201


def test_the_kind_mismatch_still_names_session_kind(api_keys):
    assert _post(api_keys, _body(session_kind="scheduled")).status_code == 201
    assert _error(_post(api_keys, _body(session_kind="chat")))["field"] == "session_kind"
    assert Message.objects.count() == 1


def test_json_strings_and_booleans_are_stored_as_sent(api_keys):
    messages = [{"role": "user", "content": "42", "message_id": "7"}]
    r = _post(api_keys, _body(messages=messages, temporary=False, end_session=True))
    assert r.status_code == 201, r.content
    m = Message.objects.get()
    assert (m.content, m.external_id) == ("42", "7")
    assert m.session.ended_at is not None
