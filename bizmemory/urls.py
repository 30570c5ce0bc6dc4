from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from consolidation.api import MessagesView, SessionEndView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from profiles.api import MemoryGetView, MemoryItemsView, MemorySearchView, ToolsView
from profiles.views import my_memory

from .api import ApiNotFound, ApiRoot, SingleQueryValues
from .context_api import ContextView
from .health_api import HealthView


# The schema and docs pages read query parameters too (?format=, ?lang=): given once, like every API view.
class SchemaView(SingleQueryValues, SpectacularAPIView):
    pass


class SwaggerView(SingleQueryValues, SpectacularSwaggerView):
    pass


class RedocView(SingleQueryValues, SpectacularRedocView):
    pass


urlpatterns = [
    path("admin/", admin.site.urls),
    path("", RedirectView.as_view(url="/memory/", permanent=False)),
    path("memory/", my_memory, name="my-memory"),
    path("memory/", include("profiles.urls")),  # the user's memory pages (namespace "memory")
    path("staff/", include("bizmemory.staff_views")),  # versions, audit log, guardrails (namespace "staff")
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the language switcher
    path("accounts/", include("django.contrib.auth.urls")),
    path("review/", include("audit.urls")),
    path("api/v1/", ApiRoot.as_view(), name="api-root"),
    path("api/v1/messages", MessagesView.as_view(), name="api-messages"),
    path("api/v1/sessions/<str:session_id>/end", SessionEndView.as_view(), name="api-session-end"),
    path("api/v1/context", ContextView.as_view(), name="api-context"),
    path("api/v1/memory/search", MemorySearchView.as_view(), name="api-memory-search"),
    path("api/v1/memory/items", MemoryItemsView.as_view(), name="api-memory-items"),
    path("api/v1/memory", MemoryGetView.as_view(), name="api-memory-get"),
    path("api/v1/tools", ToolsView.as_view(), name="api-tools"),
    path("api/v1/health", HealthView.as_view(), name="api-health"),  # load balancers: no key
    path("api/v1/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/v1/docs/", SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/redoc/", RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    re_path(r"^api/", ApiNotFound.as_view(), name="api-not-found"),  # last: unknown API paths get a JSON 404
]

# Errors Django answers itself (SuspiciousOperation such as too many query parameters, Http404 or
# PermissionDenied outside a DRF view, the 500 page) are JSON under /api/, HTML elsewhere.
handler400 = "bizmemory.http_errors.bad_request"
handler403 = "bizmemory.http_errors.permission_denied"
handler404 = "bizmemory.http_errors.page_not_found"
handler500 = "bizmemory.http_errors.server_error"
