from django.contrib import admin
from rest_framework_api_key.admin import APIKeyModelAdmin

from .models import (
    Agent, ContextPack, ExpertSetting, LexicalPosting, MemoryDocument, MemoryItem, MemorySettings, MemoryVector,
    PlatformAPIKey,
)


@admin.register(PlatformAPIKey)
class PlatformAPIKeyAdmin(APIKeyModelAdmin):
    list_display = (*APIKeyModelAdmin.list_display, "scope", "agents")
    list_filter = (*APIKeyModelAdmin.list_filter, "scope")


@admin.register(MemoryVector)
class MemoryVectorAdmin(admin.ModelAdmin):
    """The search index: derived data, rebuilt by services, never edited by hand."""

    list_display = ("user", "source", "kind", "item", "message", "model", "dim", "date")
    list_filter = ("source", "model")
    list_select_related = ("user",)
    raw_id_fields = ("user", "item", "message")
    exclude = ("embedding",)
    search_fields = ("user__username",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LexicalPosting)
class LexicalPostingAdmin(admin.ModelAdmin):
    """The BM25 inverted index (one row per chunk and term): derived data, written with the vectors, read-only."""

    list_display = ("user", "source", "term", "tf", "vector")
    list_filter = ("source",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "vector")
    search_fields = ("user__username",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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
    list_display = ("user", "kind", "key", "value", "valid_from", "valid_until")
    list_filter = ("kind",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "source_session")
    search_fields = ("user__username", "key")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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
