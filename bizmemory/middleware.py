"""Database outage → a clean 503 JSON answer instead of a 500 page.

When the database is unreachable (server restarting, network cut, pool exhausted),
Django raises ``django.db.OperationalError`` or ``InterfaceError``. Clients — the
platform's ingest job, agents — should see a retryable, machine-readable answer:
HTTP 503 with ``Retry-After`` and the body
``{"error": {"code": "database_unavailable", "message": ..., "field": null}}``.
Nothing needs resetting afterwards: Django closes a connection that raised at the
end of the request (``close_old_connections``), so the first request after the
database is back opens a fresh one. Issue #8 ("database restart while serving →
clean 503s, then recovery without manual steps").

Put :class:`DatabaseUnavailableMiddleware` first in ``MIDDLEWARE``: its
``process_exception`` answers for errors raised by views, and a
``got_request_exception`` receiver marks requests whose error came from another
middleware (e.g. saving the session), whose 500 the outermost layer then replaces.
It also answers 400 JSON (``parse_error``) for a JSON body nested too deeply for Python's
parser (a ``RecursionError``, otherwise a 500) and 413 JSON (``too_large``) for a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (otherwise Django's HTML 400 page) — both found by
tests/e2e/test_reliability_bad_input.py.
"""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.core.signals import got_request_exception
from django.db import InterfaceError, InternalError, OperationalError
from django.dispatch import receiver
from django.http import JsonResponse

log = logging.getLogger("bizmemory.db")

RETRY_AFTER_SECONDS = 5
DB_ERRORS = (OperationalError, InterfaceError)
# SQLSTATEs of a connection the server ended, raised as InternalError by psycopg: 25P03
# idle_in_transaction_session_timeout (DB_IDLE_IN_TRANSACTION_TIMEOUT ended a stalled session),
# 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now.
_GONE_SQLSTATES = {"25P03", "57P01", "57P02", "57P03"}


def database_gone(exc: BaseException | None) -> bool:
    """True when ``exc`` means the database could not be used (answer 503, not 500): Django's
    ``OperationalError``/``InterfaceError``, or an ``InternalError`` whose driver error carries
    one of the SQLSTATEs of a server-ended connection (``_GONE_SQLSTATES``)."""
    if isinstance(exc, DB_ERRORS):
        return True
    if isinstance(exc, InternalError):
        cause = exc.__cause__
        return getattr(cause, "sqlstate", None) in _GONE_SQLSTATES or getattr(cause, "pgcode", None) in _GONE_SQLSTATES
    return False
_MARK = "_bizmemory_database_unavailable"


def database_unavailable_response() -> JsonResponse:
    """The 503 answer: JSON error body (code ``database_unavailable``) and ``Retry-After`` in seconds."""
    response = JsonResponse(
        {"error": {"code": "database_unavailable", "message": "the database is unavailable; retry shortly", "field": None}},
        status=503,
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


@receiver(got_request_exception, dispatch_uid="bizmemory.middleware.mark_database_errors")
def _mark_database_errors(sender, request=None, **kwargs):
    # Django sends this from response_for_exception, inside the `except` block that
    # caught the error: sys.exc_info() is that error.
    import sys

    exc = sys.exc_info()[1]
    if request is not None and database_gone(exc):
        setattr(request, _MARK, True)


class DatabaseUnavailableMiddleware:
    """Answer 503 JSON (``database_unavailable``) when the request failed on a database error.

    Input: any request. Output: the inner response, or :func:`database_unavailable_response`
    when a view raised ``OperationalError``/``InterfaceError`` or an inner middleware's
    database error produced a 500; a 400 ``parse_error`` for a JSON body too deeply nested
    to parse; a 413 ``too_large`` for a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``. Other errors
    are left to Django.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 500 and getattr(request, _MARK, False):
            return database_unavailable_response()
        return response

    def process_exception(self, request, exception):
        if database_gone(exception):
            log.warning("database unavailable for %s %s: %s", request.method, request.path, exception)
            return database_unavailable_response()
        if isinstance(exception, RequestDataTooBig):
            # Django's own answer would be an HTML 400 page; API clients get JSON.
            return JsonResponse(
                {"error": {"code": "too_large", "message": "request body too large", "field": None}}, status=413
            )
        if isinstance(exception, RecursionError) and "json" in (request.content_type or ""):
            # Python's json parser recurses per nesting level; DRF's JSONParser only maps
            # ValueError to a parse error, so `[[[[…` 100k deep would otherwise be a 500.
            return JsonResponse(
                {"error": {"code": "parse_error", "message": "JSON nested too deeply", "field": None}}, status=400
            )
        return None
