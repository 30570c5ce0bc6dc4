"""API v1: ingest and context, key scopes, JSON errors."""

import pytest
from rest_framework.test import APIClient

from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import Message, Session


@pytest.fixture
def client():
    return APIClient()


def _post(client, key, body):
    return client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=key)


BODY = {
    "user": "u1",
    "session": "s1",
    "messages": [
        {"role": "user", "content": "I'm a data engineer based in Manchester."},
        {"role": "assistant", "content": "Hello!"},
    ],
}


def test_ingest_key_posts_messages(client, api_keys):
    r = _post(client, api_keys["ingest"], BODY)
    assert r.status_code == 201, r.content
    assert len(r.json()["message_ids"]) == 2
    assert Message.objects.count() == 2


def test_read_key_cannot_write(client, api_keys):
    r = _post(client, api_keys["read"], BODY)
    assert r.status_code == 403
    assert r.json()["error"]["code"] == "permission_denied"
    assert not Message.objects.exists()


def test_ingest_key_cannot_read_memory(client, api_keys):
    _post(client, api_keys["ingest"], BODY)
    r = client.get("/api/v1/context", {"user": "u1", "agent": "main"}, HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 403


def test_no_key_and_a_wrong_key_are_refused(client, api_keys):
    assert client.get("/api/v1/context", {"user": "u1", "agent": "main"}).status_code == 403
    r = client.get("/api/v1/context", {"user": "u1", "agent": "main"}, HTTP_X_API_KEY="nope.nope")
    assert r.status_code == 403


def test_bad_input_names_the_field_and_stores_nothing(client, api_keys):
    body = dict(BODY, messages=[{"role": "robot", "content": "x"}])
    r = _post(client, api_keys["ingest"], body)
    assert r.status_code == 400
    assert r.json()["error"]["field"] == "messages[0].role"
    assert not Session.objects.exists()


def test_context_unknown_user_has_no_memory_and_budget_is_validated(client, api_keys):
    r = client.get("/api/v1/context", {"user": "ghost", "agent": "main"}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200 and r.json()["reason"] == "no_memory"  # tests/test_api_unknown_users.py
    r = client.get("/api/v1/context", {"user": "ghost", "agent": "main", "budget": 0}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 400 and r.json()["error"]["field"] == "budget"


def test_ingest_extract_consolidate_context_through_the_api_and_the_job_services(client, api_keys):
    """The whole path in process: the API, and the services the jobs call, called directly
    (no worker; the end-to-end run with gunicorn and qcluster is tests/e2e/test_lifecycle_worker.py)."""
    r = _post(client, api_keys["ingest"], dict(BODY, end_session=True))
    assert r.status_code == 201
    session = Session.objects.get(external_id="s1")
    assert extraction_run(session_id=session.pk, trigger="session_end").journal_written >= 1
    assert consolidation_run(user_id=session.user_id, force=True).status == "done"
    r = client.get("/api/v1/context", {"user": "u1", "agent": "main", "budget": 200}, HTTP_X_API_KEY=api_keys["read"])
    body = r.json()
    assert r.status_code == 200
    assert "Manchester" in body["text"]
    assert body["tokens"] <= 200 and body["item_ids"]
    tiny = client.get("/api/v1/context", {"user": "u1", "agent": "main", "budget": 25}, HTTP_X_API_KEY=api_keys["read"]).json()
    assert tiny["tokens"] <= 25


def test_switched_off_memory_gives_empty_context_with_reason(client, api_keys):
    from profiles.services import memory_settings_update, user_ensure

    _post(client, api_keys["ingest"], BODY)
    memory_settings_update(user=user_ensure(external_id="u1"), memory_enabled=False)
    r = client.get("/api/v1/context", {"user": "u1", "agent": "main"}, HTTP_X_API_KEY=api_keys["read"])
    assert r.json()["text"] == "" and r.json()["reason"] == "memory_off"


def test_api_root_lists_endpoints(client, db):
    assert "context" in client.get("/api/v1/").json()["endpoints"]


def test_unknown_fields_are_refused_naming_them(client, api_keys):
    r = _post(client, api_keys["ingest"], dict(BODY, usr="typo"))
    assert r.status_code == 400 and r.json()["error"]["field"] == "usr"
    body = dict(BODY, messages=[{"role": "user", "content": "hi", "contnet": "x"}])
    r = _post(client, api_keys["ingest"], body)
    assert r.status_code == 400 and r.json()["error"]["field"] == "messages[0].contnet"
    assert not Message.objects.exists()


def test_a_malformed_body_names_the_body(client, api_keys):
    r = client.post("/api/v1/messages", data="{not json", content_type="application/json", HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 400
    assert r.json()["error"]["field"] == "body"


def test_a_budget_that_fits_only_the_instruction_gives_an_empty_context_with_the_reason(client, api_keys):
    _post(client, api_keys["ingest"], dict(BODY, end_session=True))
    session = Session.objects.get(external_id="s1")
    extraction_run(session_id=session.pk, trigger="session_end")
    consolidation_run(user_id=session.user_id, force=True)
    body = client.get("/api/v1/context", {"user": "u1", "agent": "main", "budget": 22}, HTTP_X_API_KEY=api_keys["read"]).json()
    assert body["text"] == "" and body["reason"] == "budget_too_small" and body["tokens"] == 0


def test_an_empty_unknown_key_is_still_named(client, api_keys):
    r = _post(client, api_keys["ingest"], dict(BODY, **{"": 1}))
    assert r.status_code == 400 and r.json()["error"]["field"] == '""'


def test_unknown_api_paths_are_a_json_404_for_every_method(client):
    for method in ("get", "post", "delete"):
        r = getattr(client, method)("/api/v1/nope")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", method
    assert client.get("/api/v2/context").json()["error"]["code"] == "not_found"


def test_the_redoc_page_loads_nothing_from_other_hosts(client):
    html = client.get("/api/v1/redoc/").content.decode()
    assert "redoc.standalone.js" in html and "googleapis" not in html and "gstatic" not in html
    assert "https://" not in html


def test_the_schema_documents_the_error_responses(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/context", "/api/v1/memory/search", "/api/v1/memory"):
        assert {"200", "400", "403", "404", "429"} <= set(schema["paths"][path]["get"]["responses"]), path
    assert {"201", "400", "403", "409"} <= set(schema["paths"]["/api/v1/messages"]["post"]["responses"])
    assert {"202", "403", "404"} <= set(schema["paths"]["/api/v1/sessions/{session_id}/end"]["post"]["responses"])
