from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from bizmemory.admin_base import ReadOnlyAdmin, ServiceOwnedAdmin

from .models import AuditLog, QuarantineRecord, SensitiveWord
from .services import QuarantineGone, quarantine_delete


@admin.register(AuditLog)
class AuditLogAdmin(ServiceOwnedAdmin):
    list_display = ("created_at", "action", "actor", "subject_user", "target_type", "target_id")
    list_filter = ("action", "target_type")
    list_select_related = ("actor", "subject_user")
    search_fields = ("action", "target_id", "subject_user__username")


@admin.register(QuarantineRecord)
class QuarantineRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "hit_types", "preview", "expires_at", "review")
    list_filter = ("hit_types",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    exclude = ("original_encrypted",)

    # Deleting here is allowed (deleting a user cascades to their records) but goes through
    # the service so that it is audited like the review page's "delete now", and needs the same
    # permission (the model's default delete permission alone does not do).
    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("audit.delete_quarantine_now")

    def delete_model(self, request, obj):
        quarantine_delete(record_id=obj.pk, actor=request.user)

    def delete_queryset(self, request, queryset):
        for pk in list(queryset.values_list("pk", flat=True)):
            try:
                quarantine_delete(record_id=pk, actor=request.user)
            except QuarantineGone:
                pass  # purged or deleted by someone else meanwhile

    @admin.display(description="review")
    def review(self, obj):
        return format_html('<a href="{}">review</a>', reverse("audit:quarantine-detail", args=[obj.pk]))


@admin.register(SensitiveWord)
class SensitiveWordAdmin(admin.ModelAdmin):
    list_display = ("word", "active", "created_at")
    list_filter = ("active",)
