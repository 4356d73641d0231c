from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.utils import timezone

from navigator.models import AccessEvent, ApiToken, QueryLog
from navigator.services import admin_login_refusal, api_token_create, api_token_revoke
from navigator.throttling import client_ip


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    """Refuses a name and address with too many recent failures before the password is
    checked (failures are counted by the user_login_failed receiver)."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        refusal = admin_login_refusal(username=username, client_address=client_ip(self.request))
        if refusal:
            raise ValidationError(refusal, code="throttled")
        return super().clean()


admin.site.login_form = ThrottledAdminLoginForm


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
        token, raw = api_token_create(name=obj.name, actor=request.user)
        obj.pk, obj.token_hash, obj.token_prefix = token.pk, token.token_hash, token.token_prefix
        obj.raw_token_once = raw  # for response_add; never stored

    def response_add(self, request, obj, post_url_continue=None):
        """The new token on the page that created it: not through the messages framework,
        whose cookie is signed, not encrypted, and not in any cache."""
        context = {**self.admin_site.each_context(request), "token": obj, "opts": self.opts}
        context |= {"raw_token": obj.raw_token_once, "title": f"API token for {obj.name}"}
        response = TemplateResponse(request, "admin/navigator/apitoken/created.html", context)
        response["Cache-Control"] = "no-store"
        return response

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        revoked = [
            token.name
            for token in queryset.filter(revoked_at__isnull=True)
            if api_token_revoke(token=token, actor=request.user)
        ]
        self.message_user(
            request,
            f"Revoked {len(revoked)} at {timezone.now():%Y-%m-%d %H:%M}: {', '.join(revoked)}.",
        )

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: the query log keeps pointing at the token


class AppendOnlyAdmin(admin.ModelAdmin):
    """Read-only, and nothing deleted here: logs lose rows only through their purge job."""

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(QueryLog)
class QueryLogAdmin(AppendOnlyAdmin):
    list_display = [
        "created_at",
        "token",
        "endpoint",
        "status_code",
        "outcome",
        "short_query",
        "repeats",
        "total_ms",
    ]
    list_filter = ["outcome", "status_code", "endpoint", "token"]
    search_fields = ["query", "error"]
    list_select_related = ["token"]

    @admin.display(description="query")
    def short_query(self, obj):
        return obj.query[:80]

    @admin.display(description="ms")
    def total_ms(self, obj):
        return (obj.timings_ms or {}).get("total", "")


@admin.register(AccessEvent)
class AccessEventAdmin(AppendOnlyAdmin):
    list_display = ["created_at", "kind", "actor", "username", "client_address", "detail"]
    list_filter = ["kind"]
    search_fields = ["username", "detail"]
    list_select_related = ["actor"]
