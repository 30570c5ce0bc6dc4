from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from consolidation.api import MessagesView, SessionEndView
from profiles.api import ContextView
from profiles.views import my_memory

from .api import ApiRoot

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", RedirectView.as_view(url="/memory/", permanent=False)),
    path("memory/", my_memory, name="my-memory"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", ApiRoot.as_view(), name="api-root"),
    path("api/v1/messages", MessagesView.as_view(), name="api-messages"),
    path("api/v1/sessions/<str:session_id>/end", SessionEndView.as_view(), name="api-session-end"),
    path("api/v1/context", ContextView.as_view(), name="api-context"),
]
