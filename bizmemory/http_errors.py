"""JSON for every error Django itself answers under ``/api/`` (issue 15).

DRF renders the errors its views raise (``bizmemory.api.exception_handler``); what it never sees
is answered by Django with an HTML page: a ``SuspiciousOperation`` such as
``TooManyFieldsSent`` (400, more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` query parameters), an
``Http404`` or ``PermissionDenied`` raised outside a DRF view, and the 500 page. The
``handler400/403/404/500`` below answer those in the API's format, ``{"error": {"code",
"message", "field"}}``, for paths under ``/api/`` and leave every other page to Django's
defaults. :class:`ApiQueryStringLimitMiddleware` refuses an over-long query string under
``/api/`` with a JSON 414 before anything parses it.

What the front server answers never reaches Django: gunicorn refuses a request line longer than
``limit_request_line`` with its own plain-text 400 (``gunicorn.conf.py`` sets it to 0, unlimited,
so this module's 414 is the answer), and ``runserver`` (Python's ``http.server``) an HTML 414 for
a request line over 64 KiB.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

# Longest query string an /api/ request may carry, in bytes as sent (percent-encoded). A
# maximal legitimate read (a 2000-character `query` of 4-byte characters, 12 bytes each
# encoded, plus user, session and agent) stays under 32 KiB.
API_MAX_QUERY_STRING = 32 * 1024


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def api_error(status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    """An error response in the API's format."""
    return JsonResponse({"error": {"code": code, "message": message, "field": field}}, status=status)


def bad_request(request, exception, template_name=defaults.ERROR_400_TEMPLATE_NAME):
    """handler400: e.g. TooManyFieldsSent (too many query parameters) or another SuspiciousOperation."""
    if _is_api(request):
        return api_error(400, "bad_request", str(exception) or "bad request")
    return defaults.bad_request(request, exception, template_name)


def permission_denied(request, exception, template_name=defaults.ERROR_403_TEMPLATE_NAME):
    """handler403."""
    if _is_api(request):
        return api_error(403, "permission_denied", "You do not have permission to perform this action.")
    return defaults.permission_denied(request, exception, template_name)


def page_not_found(request, exception, template_name=defaults.ERROR_404_TEMPLATE_NAME):
    """handler404."""
    if _is_api(request):
        return api_error(404, "not_found", f"no API endpoint at {request.path}")
    return defaults.page_not_found(request, exception, template_name)


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """handler500: never the exception text (it may quote data); the traceback is logged by Django."""
    if _is_api(request):
        return api_error(500, "server_error", "internal server error")
    return defaults.server_error(request, template_name)


class ApiQueryStringLimitMiddleware:
    """Under ``/api/``, a query string over :data:`API_MAX_QUERY_STRING` bytes is a JSON 414
    (``{"error": {"code": "uri_too_long", "field": null}}``); other paths are left alone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _is_api(request) and len(request.META.get("QUERY_STRING", "")) > API_MAX_QUERY_STRING:
            return api_error(
                414, "uri_too_long",
                f"query string over {API_MAX_QUERY_STRING} bytes; send each parameter once and keep query short",
            )
        return self.get_response(request)
