from django.contrib import admin

from .models import AuditLog, QuarantineRecord, SensitiveWord


class ReadOnlyAdmin(admin.ModelAdmin):
    """Audit and quarantine rows are written by services only."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "action", "actor", "subject_user", "target_type", "target_id")
    list_filter = ("action", "target_type")
    list_select_related = ("actor", "subject_user")
    search_fields = ("action", "target_id", "subject_user__username")

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(QuarantineRecord)
class QuarantineRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "hit_types", "preview", "expires_at")
    list_filter = ("hit_types",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "session")
    exclude = ("original_encrypted",)


@admin.register(SensitiveWord)
class SensitiveWordAdmin(admin.ModelAdmin):
    list_display = ("word", "active", "created_at")
    list_filter = ("active",)
