"""API keys: scope permissions, per-key agent limits and per-key rate limits.

A key (djangorestframework-api-key, header ``X-Api-Key``) carries one scope,
``ingest`` or ``read``, and optionally the agent slugs it may act for
(``PlatformAPIKey.agents``; empty = all). The key is looked up once per request
and kept on the request. Rate limits count in the shared cache (``profiles.ratelimit``).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import BaseThrottle
from rest_framework_api_key.permissions import KeyParser

from .models import APIKeyScope, PlatformAPIKey
from .ratelimit import rate_limit_hit

_key_parser = KeyParser()


def api_key_get(key: str) -> PlatformAPIKey | None:
    """The valid (not revoked, not expired) key whose plain text is ``key``, or None."""
    if not key:
        return None
    try:
        found = PlatformAPIKey.objects.get_from_key(key)
    except PlatformAPIKey.DoesNotExist:
        return None
    return None if found.has_expired else found


def request_api_key(request) -> PlatformAPIKey | None:
    """The valid (not revoked, not expired) key sent with ``request``, or None; cached on the request."""
    if not hasattr(request, "_bizmemory_api_key"):
        request._bizmemory_api_key = api_key_get(_key_parser.get(request) or "")
    return request._bizmemory_api_key


class _HasScopedKey:
    scope: str = ""
    message = "A valid API key with the right scope is required (X-Api-Key header)."

    def has_permission(self, request, view) -> bool:
        key = request_api_key(request)
        return key is not None and key.scope == self.scope

    def has_object_permission(self, request, view, obj) -> bool:
        return self.has_permission(request, view)


class HasIngestKey(_HasScopedKey):
    """Allows requests with a valid ``ingest``-scope key only."""

    scope = APIKeyScope.INGEST


class HasReadKey(_HasScopedKey):
    """Allows requests with a valid ``read``-scope key only."""

    scope = APIKeyScope.READ


class FieldPermissionDenied(exceptions.PermissionDenied):
    """403 naming the request field that was refused (rendered as ``error.field``)."""

    def __init__(self, detail: str, *, field: str):
        super().__init__(detail)
        self.field = field


def require_agent_allowed(request, agent_slug: str) -> None:
    """Raise :class:`FieldPermissionDenied` (403, field ``agent``) when the request's key is limited
    to other agents than ``agent_slug``."""
    key = request_api_key(request)
    if key is None or not key.allows_agent(agent_slug):
        raise FieldPermissionDenied(f"this API key may not act for agent {agent_slug!r}", field="agent")


def read_key_refusal(key: PlatformAPIKey | None, agent_slug: str) -> tuple[str, str] | None:
    """Why ``key`` (from :func:`api_key_get`) may not read memory as ``agent_slug``, as
    ``(field, message)`` — ``("key", …)`` for no valid key or another scope, ``("agent", …)`` for a
    key limited to other agents — or None when it may. The MCP server's rule; the HTTP API
    applies the same through :class:`HasReadKey` and :func:`require_agent_allowed`."""
    if key is None:
        return "key", "not a valid API key (unknown, revoked or expired)"
    if key.scope != APIKeyScope.READ:
        return "key", "a valid read-scope key is required"
    if not key.allows_agent(agent_slug):
        return "agent", f"this API key may not act for agent {agent_slug!r}"
    return None


class ApiKeyRateThrottle(BaseThrottle):
    """Per-key rate limit, keyed by the key's scope and prefix, counted in the shared cache
    (:func:`profiles.ratelimit.rate_limit_hit`), so it holds across gunicorn workers and servers.

    Rates come from ``BIZMEMORY['API_RATE_READ']`` / ``['API_RATE_INGEST']`` (``"600/min"``; empty =
    unlimited) and are read per request, so settings changes apply without a restart. Requests
    without a valid key are not throttled here (they are refused). Over the limit DRF answers 429
    with ``Retry-After`` (:meth:`wait`); the error body is JSON.
    """

    def allow_request(self, request, view) -> bool:
        self._wait = None
        key = request_api_key(request)
        rate = settings.BIZMEMORY[f"API_RATE_{key.scope.upper()}"] if key is not None else ""
        if rate:
            self._wait = key_rate_limit_hit(key, rate)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


def key_rate_limit_hit(key: PlatformAPIKey, rate: str) -> float | None:
    """Count one request of ``key`` against ``rate``: None when allowed, else seconds to wait.
    The HTTP API's throttle and the MCP server's tool calls share the count."""
    return rate_limit_hit(ident=f"{key.scope}:{key.prefix}", rate=rate)
