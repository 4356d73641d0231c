from django.contrib import admin, messages
from django.utils import timezone

from navigator.models import ApiToken, QueryLog
from navigator.services import api_token_create, api_token_revoke


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "token_prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "token_prefix"]
    fields = ["name", "token_prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["token_prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        token, raw = api_token_create(name=obj.name)
        obj.pk, obj.token_hash, obj.token_prefix = token.pk, token.token_hash, token.token_prefix
        self.message_user(
            request,
            f"API token for {token.name}: {raw} — copy it now, it is not shown again.",
            level=messages.WARNING,
        )

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        for token in queryset.filter(revoked_at__isnull=True):
            api_token_revoke(token=token)
        self.message_user(request, f"Revoked at {timezone.now():%Y-%m-%d %H:%M}.")

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: the query log keeps pointing at the token


@admin.register(QueryLog)
class QueryLogAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "token",
        "endpoint",
        "status_code",
        "outcome",
        "short_query",
        "total_ms",
    ]
    list_filter = ["outcome", "status_code", "endpoint", "token"]
    search_fields = ["query", "error"]
    list_select_related = ["token"]
    readonly_fields = [f.name for f in QueryLog._meta.fields]

    @admin.display(description="query")
    def short_query(self, obj):
        return obj.query[:80]

    @admin.display(description="ms")
    def total_ms(self, obj):
        return (obj.timings_ms or {}).get("total", "")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
