"""Database outage → 503 JSON (bizmemory.middleware), then recovery with no manual step.

The outage is simulated with Django's own query hook (``connection.execute_wrapper``):
every query raises ``OperationalError`` as a dropped connection would. The end-to-end
version (a TCP proxy cut between gunicorn and the database) is in
tests/e2e/test_reliability_faults.py.
"""

import pytest
from django.core.handlers.exception import convert_exception_to_response
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpResponse
from django.test import RequestFactory

from bizmemory.middleware import DatabaseUnavailableMiddleware
from consolidation.models import Message

pytestmark = pytest.mark.django_db


def _outage(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


BODY = {"user": "alice", "session": "s-db", "messages": [{"role": "user", "content": "I live in Leeds."}]}


def test_it_answers_503_json_when_the_database_is_down_then_recovers(client, api_keys):
    headers = {"HTTP_X_API_KEY": api_keys["ingest"]}
    with connection.execute_wrapper(_outage):
        r = client.post("/api/v1/messages", BODY, content_type="application/json", **headers)
    assert r.status_code == 503
    assert r["Content-Type"] == "application/json"
    assert r.json()["error"]["code"] == "database_unavailable"
    assert int(r["Retry-After"]) > 0
    r = client.post("/api/v1/messages", BODY, content_type="application/json", **headers)
    assert r.status_code == 201, r.content
    assert Message.objects.count() == 1


def test_it_answers_503_on_read_endpoints_and_pages(client, api_keys):
    with connection.execute_wrapper(_outage):
        api = client.get("/api/v1/context", {"user": "alice", "agent": "main"}, HTTP_X_API_KEY=api_keys["read"])
        page = client.post("/accounts/login/", {"username": "alice", "password": "x"})
    assert api.status_code == 503 and api.json()["error"]["code"] == "database_unavailable"
    assert page.status_code == 503


def test_it_replaces_the_500_of_a_database_error_raised_outside_the_view():
    def inner(request):
        raise InterfaceError("connection already closed")

    mw = DatabaseUnavailableMiddleware(convert_exception_to_response(inner))
    r = mw(RequestFactory().get("/memory/"))
    assert r.status_code == 503
    assert b"database_unavailable" in r.content


def test_it_leaves_other_errors_alone():
    def inner(request):
        raise ValueError("a bug")

    mw = DatabaseUnavailableMiddleware(convert_exception_to_response(inner))
    r = mw(RequestFactory().get("/memory/"))
    assert r.status_code == 500

    ok = DatabaseUnavailableMiddleware(lambda request: HttpResponse("fine"))(RequestFactory().get("/"))
    assert ok.status_code == 200


def test_it_answers_400_json_for_a_json_body_nested_too_deeply(client, api_keys):
    body = '{"user": ' + "[" * 100000 + "]" * 100000 + "}"
    r = client.post("/api/v1/messages", body, content_type="application/json", HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "parse_error"
    assert not Message.objects.exists()


def test_it_answers_413_json_for_an_oversized_body(client, api_keys, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"user": "alice", "session": "s", "messages": [{"role": "user", "content": "' + "x" * 2000 + '"}]}'
    r = client.post("/api/v1/messages", body, content_type="application/json", HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 413
    assert r.json()["error"]["code"] == "too_large"
    assert not Message.objects.exists()


class _DriverError(Exception):
    def __init__(self, sqlstate):
        super().__init__(f"terminating connection ({sqlstate})")
        self.sqlstate = sqlstate


@pytest.mark.parametrize("sqlstate, status", [("25P03", 503), ("57P01", 503), ("23505", 500)])
def test_a_session_the_server_ended_is_a_503_and_other_internal_errors_stay_500(sqlstate, status):
    # psycopg raises InternalError for a session ended by idle_in_transaction_session_timeout
    # (DB_IDLE_IN_TRANSACTION_TIMEOUT; SQLSTATE 25P03), found by tests/test_database_timeouts_postgresql.py.
    from django.db import InternalError

    def inner(request):
        try:
            raise _DriverError(sqlstate)
        except _DriverError as exc:
            raise InternalError(str(exc)) from exc

    r = DatabaseUnavailableMiddleware(convert_exception_to_response(inner))(RequestFactory().get("/memory/"))
    assert r.status_code == status
