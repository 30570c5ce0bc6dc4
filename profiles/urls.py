"""The end-user memory pages, mounted at /memory/ by bizmemory/urls.py (namespace ``memory``)."""

from django.urls import path

from . import views

app_name = "memory"

urlpatterns = [
    path("", views.my_memory, name="home"),
    path("items/<int:pk>/delete", views.item_delete, name="item-delete"),
    path("confirmations/<int:pk>/confirm", views.confirmation_confirm_view, name="confirmation-confirm"),
    path("confirmations/<int:pk>/reject", views.confirmation_reject_view, name="confirmation-reject"),
    path("clear/", views.clear_all, name="clear"),
    path("switches/", views.switches, name="switches"),
    path("history/", views.history, name="history"),
    path("kept-out/", views.kept_out, name="kept-out"),
    path("kept-out/delete", views.kept_out_delete, name="kept-out-delete"),
    path("export.json", views.export, {"fmt": "json"}, name="export-json"),
    path("export.md", views.export, {"fmt": "md"}, name="export-md"),
]
