"""Admin base classes shared by every app (a foundation module: it imports no domain app)."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by services only: no add and no change in the admin (delete as the subclass says)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ServiceOwnedAdmin(ReadOnlyAdmin):
    """Rows only services write or delete: no add, change or delete in the admin."""

    def has_delete_permission(self, request, obj=None):
        return False
