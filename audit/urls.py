"""Staff review pages, mounted at /review/ by bizmemory/urls.py."""

from django.urls import path

from . import views

app_name = "audit"

urlpatterns = [
    path("", views.quarantine_list_view, name="quarantine-list"),
    path("<int:pk>/", views.quarantine_detail_view, name="quarantine-detail"),
    path("<int:pk>/reveal", views.quarantine_reveal_view, name="quarantine-reveal"),
    path("<int:pk>/delete", views.quarantine_delete_view, name="quarantine-delete"),
    path("<int:pk>/false-positive", views.quarantine_false_positive_view, name="quarantine-false-positive"),
]
