"""A query parameter given more than once is a 400 naming it on every /api/ endpoint (issue 14):
``?user=alice&user=bob`` used to be read as bob (last wins)."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from consolidation.models import Message, Session
from tests.helpers import post_turns

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
READS = ["/api/v1/context", "/api/v1/memory/search", "/api/v1/memory", "/api/v1/tools"]
PUBLIC = ["/api/v1/", "/api/v1/schema/", "/api/v1/docs/", "/api/v1/redoc/"]


@pytest.fixture
def seeded(db, alice, bob):
    post_turns("alice", "s1", [("user", "我住在上海")], start=T0)
    post_turns("bob", "s1", [("user", "我住在北京")], start=T0)


def _error(r):
    assert r.status_code == 400 and r["Content-Type"] == "application/json", (r.status_code, r.content[:200])
    return r.json()["error"]


@pytest.mark.parametrize("path", READS)
@pytest.mark.parametrize("name", ["user", "agent", "session"])
def test_a_read_with_a_repeated_parameter_is_a_400_naming_it(api_keys, seeded, path, name):
    params = {"user": "alice", "agent": "main", "query": "住", "session": "s1"}
    query = "&".join(f"{k}={v}" for k, v in params.items()) + f"&{name}={'bob' if name != 'agent' else 'finance'}"
    err = _error(APIClient().get(f"{path}?{query}", HTTP_X_API_KEY=api_keys["read"]))
    assert err["field"] == name and err["code"] == "invalid" and "more than once" in err["message"]
    # the same request given once is answered
    once = APIClient().get(path, params, HTTP_X_API_KEY=api_keys["read"])
    assert once.status_code == 200, (path, once.content[:200])


def test_repeated_values_are_refused_even_when_equal_and_without_a_key_it_is_still_403(api_keys, seeded):
    err = _error(APIClient().get("/api/v1/context?user=alice&user=alice&agent=main", HTTP_X_API_KEY=api_keys["read"]))
    assert err["field"] == "user"
    r = APIClient().get("/api/v1/context?user=alice&user=bob&agent=main")
    assert r.status_code == 403  # the key is checked first: nothing is said to a caller without one


def test_an_ingest_with_a_repeated_parameter_is_a_400_and_stores_nothing(api_keys, seeded):
    before = Message.objects.count()
    body = {"user": "alice", "session": "s2", "messages": [{"role": "user", "content": "hi"}]}
    r = APIClient().post("/api/v1/messages?user=alice&user=bob", body, format="json", HTTP_X_API_KEY=api_keys["ingest"])
    assert _error(r)["field"] == "user"
    assert Message.objects.count() == before and not Session.objects.filter(external_id="s2").exists()


def test_a_session_end_with_a_repeated_parameter_is_a_400_and_ends_nothing(api_keys, seeded):
    r = APIClient().post("/api/v1/sessions/s1/end?user=alice&user=bob", {"user": "alice"}, format="json",
                         HTTP_X_API_KEY=api_keys["ingest"])
    assert _error(r)["field"] == "user"
    assert not Session.objects.filter(ended_at__isnull=False).exists()


@pytest.mark.parametrize("path", PUBLIC)
def test_the_root_schema_and_docs_refuse_it_too_with_a_json_body(db, path):
    err = _error(APIClient().get(f"{path}?lang=en&lang=zh-hans"))  # the schema reads ?lang=
    assert err["field"] == "lang"
    assert APIClient().get(path).status_code == 200


TEMPORARY_READS = {"/api/v1/context": {}, "/api/v1/memory/search": {"query": "住"}, "/api/v1/memory": {},
                   "/api/v1/memory/items": {}}


@pytest.mark.parametrize("path", TEMPORARY_READS)
@pytest.mark.parametrize("value", ["yes", "no", "on", "1", "0", "True", "FALSE", "", " true", "true "])
def test_temporary_is_exactly_true_or_false_on_every_read(api_keys, seeded, path, value):
    """Only ``true`` / ``false`` (issue 17: ``yes`` was read as true, DRF's lenient boolean)."""
    params = {"user": "alice", "agent": "main", **TEMPORARY_READS[path], "temporary": value}
    err = _error(APIClient().get(path, params, HTTP_X_API_KEY=api_keys["read"]))
    assert err["field"] == "temporary" and err["code"] == "invalid" and "true or false" in err["message"]


@pytest.mark.parametrize("path", TEMPORARY_READS)
def test_temporary_true_reads_nothing_and_false_or_absent_reads_as_usual(api_keys, seeded, path):
    def reason(**extra):
        r = APIClient().get(path, {"user": "alice", "agent": "main", **TEMPORARY_READS[path], **extra},
                            HTTP_X_API_KEY=api_keys["read"])
        assert r.status_code == 200, r.content[:300]
        return r.json()["reason"]

    assert reason(temporary="true") == "temporary_session"
    assert reason(temporary="false") == reason() != "temporary_session"
