"""API root and the JSON error format shared by every endpoint.

Errors are ``{"error": {"code": "...", "message": "...", "field": "..."}}``
with a 4xx status; a validation error names the first offending field. Every API view
(:class:`ApiView`) refuses a repeated query parameter, and platform ids are read with
:class:`ExternalIdField` (never trimmed).
"""

import json

from django.utils import dateparse, timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.renderers import JSONRenderer
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
        field = getattr(exc, "field", None)
        if field is None and isinstance(exc, exceptions.ParseError):
            field = "body"  # the request body itself is malformed
        body = {"code": code, "message": str(getattr(exc, "detail", exc)), "field": field}
    response.data = {"error": body}
    return response


# --------------------------------------------------------------------------
# Platform identifiers and query strings: compared exactly, given once.
# --------------------------------------------------------------------------

SURROUNDING_WHITESPACE = "must not start or end with whitespace (ids are compared exactly, never trimmed)"


class ExternalIdField(serializers.CharField):
    """A platform identifier (user id, session id) in a request: taken exactly as sent.

    DRF's ``CharField`` strips surrounding whitespace by default, which quietly made ``"bob "``
    the account ``bob``. This field never trims: a value that starts or ends with whitespace
    (``str.strip`` semantics, so also tabs, newlines, U+3000) is a 400 naming the field, the same
    rule ``profiles.services.user_ensure`` and ``consolidation.ingest`` apply (issue 14). Case and
    accents are significant everywhere ("Alice" and "alice" are two ids); on MySQL/MariaDB the
    columns are byte-exact (checks bizmemory.E040 / E041).
    """

    def __init__(self, **kwargs):
        kwargs["trim_whitespace"] = False
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(NOT_A_STRING, code="invalid")
        value = super().to_internal_value(data)
        if value != value.strip():
            raise serializers.ValidationError(SURROUNDING_WHITESPACE)
        return value


# --------------------------------------------------------------------------
# JSON bodies: the type the client sent, never a coerced one (issue 15).
# --------------------------------------------------------------------------

NOT_A_STRING = "must be a JSON string"
NOT_A_BOOLEAN = "must be a JSON boolean (true or false)"
NAIVE_DATETIME = "must carry a time zone (e.g. 2026-01-31T09:30:00Z or +08:00)"


class StringOnly:
    """Mixin for a ``CharField`` of a JSON body: only a JSON string is taken.

    DRF's ``CharField`` turns ``42`` into ``"42"``; a platform that sends a number where a
    string belongs has a bug, and the stored text (or a ``message_id`` compared exactly later)
    would quietly differ from what it meant. Any non-string is a 400 naming the field.
    """

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(NOT_A_STRING, code="invalid")
        return super().to_internal_value(data)


class StrictCharField(StringOnly, serializers.CharField):
    """A JSON string (``StringOnly``) with ``CharField``'s length and blank rules."""


class StrictSlugField(StringOnly, serializers.SlugField):
    """A JSON string (``StringOnly``) that is a slug."""


class StrictChoiceField(serializers.ChoiceField):
    """A JSON string that is one of the choices (DRF matches ``str(data)``, so ``1`` could pass as ``"1"``)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(NOT_A_STRING, code="invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` only: DRF's ``BooleanField`` also takes ``"yes"``, ``"on"``,
    ``1`` or ``"0"``, which silently made ``"temporary": "yes"`` a temporary session."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            raise serializers.ValidationError(NOT_A_BOOLEAN, code="invalid")
        return data


NOT_A_QUERY_BOOLEAN = "must be true or false (lowercase; not 1/0, yes/no or True/False)"


class QueryBooleanField(serializers.BooleanField):
    """A query-string flag: exactly ``true`` or ``false``. DRF's ``BooleanField`` also reads
    ``yes``, ``on``, ``1`` and ``True`` as true (and ``no``, ``0``, ``False`` as false), so a
    typo or another convention silently chose a meaning; ingest's JSON flags
    (:class:`StrictBooleanField`) already refuse anything but ``true`` / ``false``. ``1`` / ``0``
    are refused too: the same spelling as the JSON body, one way to say it. Anything else is a
    400 naming the field, an empty value (``?temporary=``) included. The OpenAPI type stays
    ``boolean`` (serialised ``true`` / ``false``)."""

    def get_value(self, dictionary):
        # DRF's BooleanField reads an absent or empty form/query value as False before validation;
        # here absent means the default and empty is a value to refuse.
        return dictionary.get(self.field_name, serializers.empty)

    def to_internal_value(self, data):
        if data == "true":
            return True
        if data == "false":
            return False
        raise serializers.ValidationError(NOT_A_QUERY_BOOLEAN, code="invalid")


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date-time string with a time zone (``Z`` or an offset). A naive one is a 400:
    DRF would read it in the server's time zone, which the platform cannot know."""

    def to_internal_value(self, value):
        if not isinstance(value, str):
            raise serializers.ValidationError(NOT_A_STRING, code="invalid")
        try:
            raw = dateparse.parse_datetime(value.strip())
        except ValueError:
            raw = None  # not a valid date-time at all: DRF's own message below says so
        if raw is not None and timezone.is_naive(raw):
            raise serializers.ValidationError(NAIVE_DATETIME, code="invalid")
        return super().to_internal_value(value)


REPEATED_PARAMETER = "is given more than once; send each query parameter once"


def query_params_single(request) -> None:
    """Refuse a query string that repeats a parameter (``?user=alice&user=bob``).

    Input: a DRF request. Raises ``ValidationError`` (400 ``{"error": {"code": "invalid",
    "field": <name>}}``) naming the first parameter given more than once, whatever the endpoint
    reads: last-wins (DRF's ``QueryDict.get``) would let a proxy and the service disagree on which
    user a request is for (issue 14). Returns None otherwise.
    """
    for name, values in request.query_params.lists():
        if len(values) > 1:
            raise exceptions.ValidationError({name if name.isidentifier() else json.dumps(name): [REPEATED_PARAMETER]})


class SingleQueryValues:
    """Mixin for every API view: after authentication, permissions and throttles (so a missing key
    is still a 403), a repeated query parameter is a 400 naming it (:func:`query_params_single`).
    The error is JSON also on the schema (YAML) and the HTML docs pages."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        try:
            query_params_single(request)
        except exceptions.ValidationError:
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
            raise


class ApiView(SingleQueryValues, APIView):
    """Base of BizMemory's API views: a DRF ``APIView`` refusing repeated query parameters."""


class FieldNotFound(exceptions.NotFound):
    """404 naming the request field whose value was not found (rendered as ``error.field``)."""

    def __init__(self, detail: str, *, field: str):
        super().__init__(detail)
        self.field = field


class ErrorBodyOut(serializers.Serializer):
    """Schema of an error body: ``code`` (e.g. ``invalid``, ``not_found``), ``message``, and the
    offending request ``field`` (null when no single field is at fault)."""

    code = serializers.CharField()
    message = serializers.CharField()
    field = serializers.CharField(allow_null=True)


class ErrorOut(serializers.Serializer):
    """Schema of every API error response: ``{"error": ErrorBodyOut}`` (see ``exception_handler``)."""

    error = ErrorBodyOut()


class ApiRoot(ApiView):
    """Index of API v1 endpoints (no key needed)."""

    permission_classes = []

    @extend_schema(operation_id="api_root", responses={200: OpenApiTypes.OBJECT}, auth=[])
    def get(self, request):
        return Response(
            {
                "version": "v1",
                "endpoints": {
                    "messages": reverse("api-messages", request=request),
                    "context": reverse("api-context", request=request),
                    "memory_search": reverse("api-memory-search", request=request),
                    "memory_get": reverse("api-memory-get", request=request),
                    "memory_items": reverse("api-memory-items", request=request),
                    "tools": reverse("api-tools", request=request),
                    "health": reverse("api-health", request=request),
                    "schema": reverse("api-schema", request=request),
                    "docs": reverse("api-docs", request=request),
                },
                "auth": "X-Api-Key header; scope 'ingest' writes conversations, scope 'read' reads memory",
            },
            status=status.HTTP_200_OK,
        )


class ApiNotFound(APIView):
    """Any other path under ``/api/``: a JSON 404 (``{"error": {"code": "not_found", ...}}``)
    for every method, instead of Django's HTML page. Not part of the schema."""

    permission_classes = []
    authentication_classes = []
    schema = None

    def initial(self, request, *args, **kwargs):
        raise exceptions.NotFound(f"no API endpoint at {request.path}")
