"""POST /api/v1/sessions/<session>/end names the user (issue 14): session ids are unique per user,
so only that user's session is ended, and another user's id is answered like an unknown one."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from consolidation.models import Message, Session
from tests.helpers import post_turns

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def client():
    return APIClient()


def _end(client, key, session, body=None):
    return client.post(f"/api/v1/sessions/{session}/end", body, format="json", HTTP_X_API_KEY=key)


def test_it_requires_the_user_and_ends_nothing_without_it(client, api_keys, db):
    post_turns("u1", "s1", [("user", "hi")], start=T0)
    for body in (None, {}, {"user": ""}):
        r = _end(client, api_keys["ingest"], "s1", body)
        assert r.status_code == 400 and r.json()["error"]["field"] == "user", (body, r.content)
    assert Session.objects.get().ended_at is None


def test_it_ends_only_the_named_users_session_of_that_id(client, api_keys, db):
    mine, _ = post_turns("u1", "s1", [("user", "hi")], start=T0)
    theirs, _ = post_turns("u2", "s1", [("user", "hello")], start=T0)
    r = _end(client, api_keys["ingest"], "s1", {"user": "u2"})
    assert r.status_code == 202, r.content
    assert r.json()["session"] == "s1" and r.json()["ended_at"]
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert theirs.ended_at is not None and mine.ended_at is None
    assert Message.objects.count() == 2  # nothing else moved


def test_another_users_session_and_an_unknown_user_are_answered_like_an_unknown_session(client, api_keys, db):
    post_turns("u1", "only-u1", [("user", "hi")], start=T0)
    answers = [
        _end(client, api_keys["ingest"], "only-u1", {"user": "u2"}),        # another user's id
        _end(client, api_keys["ingest"], "no-such-session", {"user": "u1"}),  # unknown id
        _end(client, api_keys["ingest"], "only-u1", {"user": "nobody"}),     # unknown user
    ]
    assert [r.status_code for r in answers] == [404, 404, 404]
    assert answers[0].json() == answers[1].json() == answers[2].json()
    assert answers[0].json()["error"]["field"] == "session"
    assert Session.objects.get().ended_at is None


@pytest.mark.parametrize("bad", ["u1 ", " u1", "u1\t"])
def test_a_user_with_surrounding_whitespace_is_a_400_never_trimmed(client, api_keys, db, bad):
    post_turns("u1", "s1", [("user", "hi")], start=T0)
    r = _end(client, api_keys["ingest"], "s1", {"user": bad})
    assert r.status_code == 400 and r.json()["error"]["field"] == "user"
    assert Session.objects.get().ended_at is None


def test_an_unknown_body_field_is_a_400_naming_it(client, api_keys, db):
    post_turns("u1", "s1", [("user", "hi")], start=T0)
    r = _end(client, api_keys["ingest"], "s1", {"user": "u1", "usr": "u1"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "usr"


def test_the_schema_documents_the_required_user(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    op = schema["paths"]["/api/v1/sessions/{session_id}/end"]["post"]
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    component = schema["components"]["schemas"][ref]
    assert component["required"] == ["user"] and "never trimmed" in component["properties"]["user"]["description"]
    assert {"202", "400", "403", "404"} <= set(op["responses"])
