"""API-key permissions: a key carries exactly one scope (``ingest`` or ``read``)."""

from rest_framework_api_key.permissions import BaseHasAPIKey

from .models import APIKeyScope, PlatformAPIKey


class _HasScopedKey(BaseHasAPIKey):
    model = PlatformAPIKey
    scope: str = ""
    message = "A valid API key with the right scope is required (X-Api-Key header)."

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        key = self.get_key(request)
        try:
            api_key = self.model.objects.get_from_key(key)
        except self.model.DoesNotExist:
            return False
        return api_key.scope == self.scope


class HasIngestKey(_HasScopedKey):
    """Allows requests with a valid ``ingest``-scope key only."""

    scope = APIKeyScope.INGEST


class HasReadKey(_HasScopedKey):
    """Allows requests with a valid ``read``-scope key only."""

    scope = APIKeyScope.READ
