"""GET /api/v1/health (issue 17): no key, 200 when database, broker and worker are ok, 503 naming
what is not, never cached, not redirected to HTTPS, in the OpenAPI schema. The checks themselves
are tests/test_health.py."""

import pytest

from tests.health_helpers import fresh_health_state, heartbeat, redis_broker  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)  # the checks run in threads with connections of their own


def test_it_answers_200_without_a_key_when_all_three_are_ok(client, redis_broker):
    heartbeat()
    resp = client.get("/api/v1/health")
    assert resp.status_code == 200 and resp["Content-Type"] == "application/json", resp.content
    assert resp["Cache-Control"] == "no-store"
    body = resp.json()
    assert body["status"] == "ok" and body["failing"] == []
    assert {name: c["status"] for name, c in body["checks"].items()} == {"database": "ok", "broker": "ok", "worker": "ok"}


def test_it_answers_503_naming_the_worker_when_no_cluster_reports(client, redis_broker):
    resp = client.get("/api/v1/health")
    assert resp.status_code == 503 and resp["Cache-Control"] == "no-store"
    body = resp.json()
    assert body["status"] == "error" and body["failing"] == ["worker"]
    assert body["checks"]["worker"]["reason"] == "no_heartbeat"
    assert body["checks"]["database"]["status"] == body["checks"]["broker"]["status"] == "ok"


def test_a_load_balancer_probing_over_plain_http_is_answered_not_redirected(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    heartbeat()
    assert client.get("/api/v1/health").status_code == 200
    assert client.head("/api/v1/health").status_code == 200
    assert client.get("/api/v1/").status_code == 301  # everything else still goes to HTTPS


def test_it_is_listed_in_the_index_and_documented_in_the_schema(client):
    assert client.get("/api/v1/").json()["endpoints"]["health"] == "http://testserver/api/v1/health"
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    op = schema["paths"]["/api/v1/health"]["get"]
    assert {"200", "503"} <= set(op["responses"]) and op["security"] == [{}]  # no key
    body = schema["components"]["schemas"][op["responses"]["503"]["content"]["application/json"]["schema"]["$ref"]
                                           .rsplit("/", 1)[1]]
    assert set(body["properties"]) == {"status", "failing", "checks"}


def test_the_web_scope_serves_a_load_balancer_while_the_workers_are_down(client, redis_broker):
    """?scope=web: database and broker gate the status; the stopped worker is still reported."""
    resp = client.get("/api/v1/health?scope=web")
    assert resp.status_code == 200
    body = resp.json()
    assert body["status"] == "ok" and body["failing"] == []
    assert body["checks"]["worker"]["status"] == "error" and body["checks"]["worker"]["reason"] == "no_heartbeat"
    assert client.get("/api/v1/health?scope=all").status_code == 503


def test_an_unknown_scope_is_a_400_naming_it(client):
    resp = client.get("/api/v1/health?scope=everything")
    assert resp.status_code == 400
    assert "scope" in resp.content.decode()
