"""Exceptions of the client. Every API error is an :class:`ApiError` carrying what the server
said: HTTP ``status``, ``code``, ``message`` and the request ``field`` it named (BizMemory's error
body is ``{"error": {"code", "message", "field"}}``); a subclass per status family lets callers
catch what they can handle."""

from __future__ import annotations

import email.utils
import time


class BizMemoryError(Exception):
    """Base class of every error this client raises."""


class ConnectionFailed(BizMemoryError):
    """The server could not be reached or did not answer (the ``httpx`` error is the cause)."""


class ApiError(BizMemoryError):
    """The server answered with an error status.

    Attributes: ``status`` (int), ``code`` (e.g. ``invalid``, ``permission_denied``,
    ``not_found``, ``conflict``, ``throttled``, ``database_unavailable``), ``message``,
    ``field`` (the request field at fault as the server names it, e.g. ``messages[0].role``,
    ``user``, ``item_id``, ``agent``; None when no single field is), ``retry_after`` (seconds
    from the ``Retry-After`` header, or None) and ``body`` (the decoded JSON, or the raw text when
    the answer was not JSON).
    """

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 retry_after: float | None = None, body: object = None):
        self.status, self.code, self.message, self.field = status, code, message, field
        self.retry_after, self.body = retry_after, body
        where = f" (field {field})" if field else ""
        super().__init__(f"HTTP {status} {code}: {message}{where}")


class BadRequest(ApiError):
    """400: a parameter or body field is malformed or not allowed; ``field`` names it."""


class PermissionDenied(ApiError):
    """401 / 403: no valid key, a key of the other scope (``ingest`` vs ``read``), or a key limited
    to other agents (``field`` is then ``agent``)."""


class NotFound(ApiError):
    """404: an unknown session (``field`` ``session``), memory item (``item_id``) or path."""


class Conflict(ApiError):
    """409: a ``message_id`` the session holds names a different message; nothing was stored."""


class RateLimited(ApiError):
    """429: the key's rate limit; ``retry_after`` says when to try again."""


class ServiceUnavailable(ApiError):
    """503: the server's database is unavailable for now; ``retry_after`` says when to retry."""


class ServerError(ApiError):
    """Any other 5xx."""


_BY_STATUS = {400: BadRequest, 401: PermissionDenied, 403: PermissionDenied, 404: NotFound, 409: Conflict,
              429: RateLimited, 503: ServiceUnavailable}


def retry_after_seconds(header: str | None, *, now: float | None = None) -> float | None:
    """The ``Retry-After`` header (delay-seconds or an HTTP date, RFC 9110 §10.2.3) as seconds
    from now, ≥ 0; None when absent or unreadable."""
    if not header:
        return None
    header = header.strip()
    if header.isdigit():
        return float(header)
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def api_error(status: int, body: object, retry_after: float | None) -> ApiError:
    """The :class:`ApiError` subclass for ``status`` with the server's ``{"error": {...}}`` body
    read into it; a body of another shape (a proxy's HTML page) keeps ``code`` ``http_error``."""
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        code, message, field = str(err.get("code") or "error"), str(err.get("message") or ""), err.get("field")
    else:
        code, message, field = "http_error", str(body)[:200], None
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return cls(status, code, message, field, retry_after=retry_after, body=body)
