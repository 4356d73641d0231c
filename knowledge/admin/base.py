"""What the knowledge base's admin lets whom do: view-only records, records nothing may
delete, and the knowledge itself, which only superusers edit here."""

from django.contrib import admin


class ViewOnlyAdmin(admin.ModelAdmin):
    """Records written by jobs and services only: staff look here and may delete, not edit."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(ViewOnlyAdmin):
    """Records that other records or the audit trail depend on: not even deleted here."""

    def has_delete_permission(self, request, obj=None):
        return False


class SuperuserEditsOnly:
    """The knowledge base itself (categories, concepts, aliases, units): editors and experts
    change it through the audited services of their screens (renames keep an alias, sign-off
    is the experts'), so here they may only look. Superusers keep the admin's full rights."""

    def has_add_permission(self, request, *args) -> bool:
        return request.user.is_superuser and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser and super().has_delete_permission(request, obj)
