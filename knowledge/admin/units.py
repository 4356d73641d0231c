"""Atomic units, where else each was found, and quality flags, in the admin."""

from django.contrib import admin
from django.utils import timezone

from knowledge.admin.base import SuperuserEditsOnly, ViewOnlyAdmin
from knowledge.domain.temporal import TemporalStatus
from knowledge.models import (
    AtomicUnit,
    Category,
    QualityFlag,
    UnitSighting,
)


class CategoryFilter(admin.SimpleListFilter):
    title = "category"
    parameter_name = "category"

    def lookups(self, request, model_admin):
        return [(category.slug, category.name) for category in Category.objects.all()]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(concept__category__slug=self.value())
        return queryset


class TemporalStatusFilter(admin.SimpleListFilter):
    title = "temporal status (today)"
    parameter_name = "temporal"

    def lookups(self, request, model_admin):
        return [(status.value, status.value) for status in TemporalStatus]

    def queryset(self, request, queryset):
        if self.value() in {status.value for status in TemporalStatus}:
            return queryset.filter(temporal_status=self.value())
        return queryset


class UnitSightingInline(admin.TabularInline):
    model = UnitSighting
    extra = 0
    readonly_fields = ["source", "snapshot", "evidence_quote", "created_at"]
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(AtomicUnit)
class AtomicUnitAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = [
        "concept",
        "ordinal",
        "unit_type",
        "short_text",
        "value",
        "valid_from",
        "valid_to",
        "temporal_status",
        "review_status",
        "provider",
    ]
    list_filter = [
        CategoryFilter,
        "unit_type",
        TemporalStatusFilter,
        "review_status",
        "provider",
        "evidence_verified",
    ]
    search_fields = ["text", "evidence_quote", "concept__taxonomy_id"]
    list_select_related = ["concept"]
    autocomplete_fields = ["concept"]
    exclude = ["embedding"]
    readonly_fields = [
        "source",
        "snapshot",
        "evidence_quote",
        "evidence_start",
        "evidence_end",
        "evidence_verified",
        "provider",
        "provider_model",
        "fingerprint",
        "embedding_model",
        "superseded_by",
        "superseded_date",
        "deleted_at",
        "deleted_by",
        "created_at",
        "updated_at",
    ]
    raw_id_fields = ["example_of"]
    inlines = [UnitSightingInline]

    def get_queryset(self, request):
        today = timezone.localdate()
        return super().get_queryset(request).with_temporal_status(today)

    @admin.display(description="temporal status", ordering="temporal_status")
    def temporal_status(self, obj):
        return obj.temporal_status

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text if len(obj.text) <= 90 else obj.text[:88] + "…"

    @admin.display(description="value")
    def value(self, obj):
        if obj.value_amount is None:
            return ""
        period = f" / {obj.value_period}" if obj.value_period else ""
        return f"{obj.value_amount.normalize():f} {obj.value_unit}{period}"


@admin.register(UnitSighting)
class UnitSightingAdmin(ViewOnlyAdmin):
    list_display = ["unit", "source", "created_at"]
    search_fields = ["unit__text", "source__url"]
    readonly_fields = ["unit", "source", "snapshot", "evidence_quote", "created_at"]


@admin.register(QualityFlag)
class QualityFlagAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "unit", "suggested_concept", "status", "created_at"]
    list_filter = ["kind", "status"]
    search_fields = ["reason", "unit__text"]
    list_select_related = ["unit__concept", "suggested_concept"]
    readonly_fields = ["unit", "kind", "reason", "resolved_by", "resolved_at", "created_at"]
    autocomplete_fields = ["suggested_concept"]

    def has_add_permission(self, request):
        return False
