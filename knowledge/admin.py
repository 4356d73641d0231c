from django.contrib import admin
from django.db import models
from django.db.models import Count
from django.utils import timezone

from knowledge.domain.temporal import TemporalStatus
from knowledge.models import (
    AtomicUnit,
    Category,
    Concept,
    ConceptAlias,
    ExtractionItem,
    ExtractionJob,
    ExtractionRun,
    IngestItem,
    IngestJob,
    PageSnapshot,
    QualityFlag,
    SnapshotLink,
    Source,
    UnitSighting,
)


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


@admin.register(Category)
class CategoryAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["order", "name", "slug", "concept_count"]
    list_display_links = ["name"]
    search_fields = ["name", "slug", "description"]
    readonly_fields = ["created_at", "updated_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(concept_count=Count("concepts"))

    @admin.display(description="concepts", ordering="concept_count")
    def concept_count(self, obj):
        return obj.concept_count


class ConceptAliasInline(SuperuserEditsOnly, admin.TabularInline):
    model = ConceptAlias
    extra = 0
    readonly_fields = ["created_at"]


@admin.register(Concept)
class ConceptAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["taxonomy_id", "name", "category", "status", "unit_count"]
    list_filter = ["category", "status"]
    search_fields = ["taxonomy_id", "name", "description", "aliases__alias"]
    list_select_related = ["category"]
    exclude = ["embedding"]
    readonly_fields = ["embedding_model", "embedding_text_hash", "created_at", "updated_at"]
    inlines = [ConceptAliasInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(unit_count=Count("units"))

    @admin.display(description="units", ordering="unit_count")
    def unit_count(self, obj):
        return obj.unit_count


@admin.register(ConceptAlias)
class ConceptAliasAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["alias", "concept", "created_at"]
    search_fields = ["alias", "concept__taxonomy_id"]
    autocomplete_fields = ["concept"]


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["url", "title", "document_type", "status", "last_fetched_at", "last_changed_at"]
    list_filter = ["status", "document_type"]
    search_fields = ["url", "title", "base_path"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # gov.uk is https
    readonly_fields = [
        "content_hash",
        "current_snapshot",
        "public_updated_at",
        "last_fetched_at",
        "last_changed_at",
        "status",
        "status_reason",
        "created_at",
        "updated_at",
    ]


@admin.register(PageSnapshot)
class PageSnapshotAdmin(ReadOnlyAdmin):
    """Snapshots are evidence: viewable, never editable (the database refuses updates too)."""

    list_display = ["source", "content_hash_short", "public_updated_at", "fetched_at", "origin"]
    list_filter = ["source__document_type"]
    search_fields = ["source__url", "content_hash", "origin"]
    list_select_related = ["source"]
    readonly_fields = [
        "source",
        "content_hash",
        "origin",
        "public_updated_at",
        "fetched_at",
        "text",
        "sections",
        "raw",
    ]

    @admin.display(description="hash")
    def content_hash_short(self, obj):
        return obj.content_hash[:12]


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


@admin.register(SnapshotLink)
class SnapshotLinkAdmin(ViewOnlyAdmin):
    list_display = ["snapshot", "target_path", "anchor_text"]
    search_fields = ["target_path", "anchor_text", "snapshot__source__url"]
    list_select_related = ["snapshot__source"]
    readonly_fields = ["snapshot", "target_path", "anchor_text", "heading_path"]


class IngestItemInline(admin.TabularInline):
    model = IngestItem
    extra = 0
    fields = ["ref", "outcome", "reason", "source", "seconds"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "progress", "failed", "created_at", "finished_at"]
    list_filter = ["kind", "status"]
    readonly_fields = ["kind", "params", "refs", "total", "status", "created_at", "finished_at"]
    inlines = [IngestItemInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                done=Count("items"),
                failed_count=Count("items", filter=models.Q(items__outcome="failed")),
            )
        )

    @admin.display(description="done / total")
    def progress(self, obj):
        return f"{obj.done} / {obj.total}"

    @admin.display(description="failed", ordering="failed_count")
    def failed(self, obj):
        return obj.failed_count

    def has_add_permission(self, request):
        return False


@admin.register(IngestItem)
class IngestItemAdmin(ViewOnlyAdmin):
    list_display = ["ref", "job", "outcome", "reason", "source", "seconds"]
    list_filter = ["outcome", "job__kind"]
    search_fields = ["ref", "reason"]
    readonly_fields = ["job", "ref", "outcome", "reason", "source", "snapshot", "seconds"]


class ProviderLabelMixin:
    @admin.display(description="provider")
    def provider_label(self, obj):
        return "heuristic (rule-based, no LLM)" if obj.provider == "heuristic" else obj.provider


@admin.register(ExtractionJob)
class ExtractionJobAdmin(ProviderLabelMixin, admin.ModelAdmin):
    list_display = ["id", "provider_label", "total", "created_by", "created_at"]
    readonly_fields = ["provider", "total", "created_by", "created_at"]

    def has_add_permission(self, request):
        return False


class ExtractionItemInline(admin.TabularInline):
    model = ExtractionItem
    extra = 0
    fields = ["kind", "reason_code", "reason", "status"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ExtractionRun)
class ExtractionRunAdmin(ProviderLabelMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "snapshot",
        "provider_label",
        "prompt_version",
        "status",
        "units_made",
        "units_rejected",
        "units_unassigned",
        "prompt_tokens",
        "cost",
    ]
    list_filter = ["status", "provider", "prompt_version"]
    search_fields = ["snapshot__source__url", "error"]
    list_select_related = ["snapshot__source"]
    readonly_fields = [f.name for f in ExtractionRun._meta.fields]
    inlines = [ExtractionItemInline]

    def has_add_permission(self, request):
        return False


@admin.register(ExtractionItem)
class ExtractionItemAdmin(admin.ModelAdmin):
    """Rejected proposals and the unassigned triage list, with their reasons, for editors."""

    list_display = ["id", "kind", "reason_code", "short_text", "source_url", "status"]
    list_filter = ["kind", "reason_code", "status", "run__provider"]
    search_fields = ["reason", "proposal", "snapshot__source__url"]
    list_select_related = ["snapshot__source"]
    readonly_fields = [
        "run",
        "snapshot",
        "kind",
        "reason_code",
        "reason",
        "proposal",
        "evidence_start",
        "evidence_end",
        "candidates",
        "created_at",
    ]

    @admin.display(description="proposed text")
    def short_text(self, obj):
        text = str(obj.proposal.get("text", ""))
        return text if len(text) <= 90 else text[:88] + "…"

    @admin.display(description="source")
    def source_url(self, obj):
        return obj.snapshot.source.url

    def has_add_permission(self, request):
        return False


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
