from django.contrib import admin
from django.contrib.admin.models import DELETION, LogEntry
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import APIKey

from bizmemory.admin_base import ReadOnlyAdmin, ServiceOwnedAdmin

from .models import (
    Agent, ConfirmationRequest, ContextPack, ExpertSetting, LexicalPosting, MemoryDocument, MemoryItem, MemorySettings,
    MemoryVector, MemoryVersion, PlatformAPIKey, PlatformIdentity, Snapshot,
)
from .services import memory_items_delete_by_staff


# The library registers its own APIKey model when its admin module is imported (above). Those
# keys have no scope, so every endpoint refuses them (403): a second "API keys" entry only made
# keys that never work. Ours (PlatformAPIKey, "Profiles › Platform API keys") is the only one.
if admin.site.is_registered(APIKey):
    admin.site.unregister(APIKey)


@admin.register(PlatformAPIKey)
class PlatformAPIKeyAdmin(APIKeyModelAdmin):
    list_display = (*APIKeyModelAdmin.list_display, "scope", "agents")
    list_filter = (*APIKeyModelAdmin.list_filter, "scope")


@admin.register(MemoryVector)
class MemoryVectorAdmin(ReadOnlyAdmin):
    """The search index: derived data, rebuilt by services, never edited by hand."""

    list_display = ("user", "source", "kind", "item", "message_id", "model", "dim", "date")
    list_filter = ("source", "model")
    list_select_related = ("user",)
    raw_id_fields = ("user", "item")
    exclude = ("embedding",)
    search_fields = ("user__username",)


@admin.register(PlatformIdentity)
class PlatformIdentityAdmin(ReadOnlyAdmin):
    """Which account holds a platform user id (issue 14): made by ingest, never edited by hand
    (changing a link would file one user's memory under another)."""

    list_display = ("external_id", "user", "created_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("external_id", "user__username")


@admin.register(LexicalPosting)
class LexicalPostingAdmin(ReadOnlyAdmin):
    """The BM25 inverted index (one row per chunk and term): derived data, written with the vectors, read-only."""

    list_display = ("user", "source", "term", "tf", "vector")
    list_filter = ("source",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "vector")
    search_fields = ("user__username",)


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "is_entry")


@admin.register(MemorySettings)
class MemorySettingsAdmin(admin.ModelAdmin):
    list_display = ("user", "memory_enabled", "extraction_policy", "last_extraction_at", "last_consolidation_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)


@admin.register(ExpertSetting)
class ExpertSettingAdmin(admin.ModelAdmin):
    list_display = ("user", "agent", "memory_enabled", "excluded_from_extraction")
    list_select_related = ("user", "agent")
    raw_id_fields = ("user",)


@admin.register(MemoryItem)
class MemoryItemAdmin(admin.ModelAdmin):
    """Memory items, read-only. A delete here goes through the one write path
    (``profiles.services.memory_items_delete_by_staff``: MEMORY.md, snapshots, index, audit), and
    the admin log records the item's id, never its value (issue 14, "admin deletes")."""

    list_display = ("user", "kind", "key", "value", "valid_from", "valid_until")
    list_filter = ("kind",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("user__username", "key")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def delete_model(self, request, obj):
        memory_items_delete_by_staff(item_ids=[obj.pk], actor=request.user)

    def delete_queryset(self, request, queryset):
        memory_items_delete_by_staff(item_ids=list(queryset.values_list("pk", flat=True)), actor=request.user)

    def log_deletions(self, request, queryset):
        return LogEntry.objects.log_actions(
            user_id=request.user.pk, queryset=[_IdOnly(obj) for obj in queryset], action_flag=DELETION,
        )


class _IdOnly:
    """An item as the admin log may name it: its id and model, never its value."""

    def __init__(self, obj):
        self.pk = obj.pk
        self._meta = obj._meta
        self._obj = obj

    def __str__(self) -> str:
        return f"memory item {self.pk}"


@admin.register(MemoryDocument)
class MemoryDocumentAdmin(admin.ModelAdmin):
    list_display = ("user", "tokens", "version", "updated_at")
    list_select_related = ("user",)
    readonly_fields = ("user", "markdown", "tokens", "version")

    def has_add_permission(self, request):
        return False


@admin.register(ContextPack)
class ContextPackAdmin(admin.ModelAdmin):
    """The context hot-path cache: read-only (rebuilt from items on the next read; deleting one is safe)."""

    list_display = ("user", "memory_version", "lang", "built_at")
    search_fields = ("user__username",)
    readonly_fields = ("user", "memory_version", "lang", "sections", "built_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Snapshot)
class SnapshotAdmin(ReadOnlyAdmin):
    list_display = ("user", "version", "reason", "created_at")
    list_filter = ("reason",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)


@admin.register(MemoryVersion)
class MemoryVersionAdmin(ServiceOwnedAdmin):
    """The per-user change counter the services bump; never edited by hand."""

    list_display = ("user", "version", "updated_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("user__username",)


@admin.register(ConfirmationRequest)
class ConfirmationRequestAdmin(ServiceOwnedAdmin):
    """Resolved by the user on their memory page (``confirmation_confirm`` / ``_reject``)."""

    list_display = ("id", "user", "key", "status", "created_at", "resolved_at")
    list_filter = ("status",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "old_item", "new_item")
    search_fields = ("user__username", "key")
    date_hierarchy = "created_at"
