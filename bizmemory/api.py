"""API root and the JSON error format shared by every endpoint.

Errors are ``{"error": {"code": "...", "message": "...", "field": "..."}}``
with a 4xx status; a validation error names the first offending field.
"""

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler


def _first_field(detail, prefix=""):
    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(key, int):  # ListSerializer errors are keyed by item index
                return _first_field(value, f"{prefix}[{key}]")
            name = key if key != "non_field_errors" else ""
            path = f"{prefix}.{name}" if prefix and name else (prefix or name)
            return _first_field(value, path)
    if isinstance(detail, list) and detail:
        if isinstance(detail[0], (dict, list)):
            for i, value in enumerate(detail):
                if value:
                    return _first_field(value, f"{prefix}[{i}]")
        return prefix, str(detail[0])
    return prefix, str(detail)


def exception_handler(exc, context):
    """DRF exception handler producing ``{"error": {"code", "message", "field"}}`` bodies."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message = _first_field(exc.detail)
        body = {"code": "invalid", "message": message, "field": field or None}
    else:
        code = getattr(exc, "default_code", "error")
        body = {"code": code, "message": str(getattr(exc, "detail", exc)), "field": None}
    response.data = {"error": body}
    return response


class ApiRoot(APIView):
    """Index of API v1 endpoints (no key needed)."""

    permission_classes = []

    def get(self, request):
        return Response(
            {
                "version": "v1",
                "endpoints": {
                    "messages": reverse("api-messages", request=request),
                    "context": reverse("api-context", request=request),
                },
                "auth": "X-Api-Key header; scope 'ingest' writes conversations, scope 'read' reads memory",
            },
            status=status.HTTP_200_OK,
        )
