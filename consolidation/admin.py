from django.contrib import admin

from .models import JournalEntry, Message, Session, Snapshot


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Session)
class SessionAdmin(ReadOnly):
    list_display = ("external_id", "user", "agent", "kind", "temporary", "started_at", "ended_at", "watermark")
    list_filter = ("kind", "temporary")
    list_select_related = ("user", "agent")


@admin.register(Message)
class MessageAdmin(ReadOnly):
    list_display = ("id", "session", "role", "expert", "created_at")
    list_filter = ("role",)
    list_select_related = ("session", "expert")
    raw_id_fields = ("session",)


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnly):
    list_display = ("id", "user", "kind", "key", "status", "tokens", "created_at")
    list_filter = ("status", "kind")
    list_select_related = ("user",)
    raw_id_fields = ("user", "session")


@admin.register(Snapshot)
class SnapshotAdmin(ReadOnly):
    list_display = ("user", "version", "reason", "created_at")
    list_filter = ("reason",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
