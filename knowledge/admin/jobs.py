"""Ingest and extraction jobs, runs and items, in the admin."""

from django.contrib import admin
from django.db import models
from django.db.models import Count

from knowledge.admin.base import ViewOnlyAdmin
from knowledge.models import (
    ExtractionItem,
    ExtractionJob,
    ExtractionRun,
    IngestItem,
    IngestJob,
)


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
