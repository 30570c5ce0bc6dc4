"""API keys: scopes, agent limits and per-key rate limits (429 with a JSON body)."""

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from profiles.models import PlatformAPIKey


@pytest.fixture
def client():
    return APIClient()


def test_a_read_key_cannot_write_and_an_ingest_key_cannot_read(client, api_keys, alice):
    body = {"user": "alice", "session": "s1", "messages": [{"role": "user", "content": "hi"}]}
    assert client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["read"]).status_code == 403
    assert client.post("/api/v1/sessions/s1/end", HTTP_X_API_KEY=api_keys["read"]).status_code == 403
    for path in ("/api/v1/context", "/api/v1/memory", "/api/v1/memory/search", "/api/v1/tools"):
        r = client.get(path, {"user": "alice", "agent": "main", "query": "x"}, HTTP_X_API_KEY=api_keys["ingest"])
        assert r.status_code == 403 and r.json()["error"]["code"] == "permission_denied", path


def test_revoked_and_expired_keys_are_refused(client, alice):
    _, revoked = PlatformAPIKey.objects.create_key(name="r", scope="read", revoked=True)
    _, expired = PlatformAPIKey.objects.create_key(name="e", scope="read", expiry_date=timezone.now() - dt.timedelta(days=1))
    for key in (revoked, expired):
        assert client.get("/api/v1/context", {"user": "alice", "agent": "main"}, HTTP_X_API_KEY=key).status_code == 403


def test_an_agent_limited_key_is_refused_for_other_agents(client, alice):
    _, key = PlatformAPIKey.objects.create_key(name="fin", scope="read", agents=["finance", "travel"])
    for agent, status in (("finance", 200), ("travel", 200), ("main", 403)):
        r = client.get("/api/v1/memory", {"user": "alice", "agent": agent}, HTTP_X_API_KEY=key)
        assert r.status_code == status, agent
    assert r.json()["error"]["field"] == "agent"


def test_the_rate_limit_is_per_key_and_answers_429_json(client, settings, alice):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, API_RATE_READ="3/min")
    _, one = PlatformAPIKey.objects.create_key(name="one", scope="read")
    _, two = PlatformAPIKey.objects.create_key(name="two", scope="read")
    params = {"user": "alice", "agent": "main"}
    for _ in range(3):
        assert client.get("/api/v1/context", params, HTTP_X_API_KEY=one).status_code == 200
    r = client.get("/api/v1/memory", params, HTTP_X_API_KEY=one)
    assert r.status_code == 429 and r.json()["error"]["code"] == "throttled" and "Retry-After" in r.headers
    assert client.get("/api/v1/context", params, HTTP_X_API_KEY=two).status_code == 200
