"""Sources, their immutable snapshots and the links between pages, in the admin."""

from django.contrib import admin
from django.db import models

from knowledge.admin.base import ReadOnlyAdmin, ViewOnlyAdmin
from knowledge.models import (
    PageSnapshot,
    SnapshotLink,
    Source,
)


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


@admin.register(SnapshotLink)
class SnapshotLinkAdmin(ViewOnlyAdmin):
    list_display = ["snapshot", "target_path", "anchor_text"]
    search_fields = ["target_path", "anchor_text", "snapshot__source__url"]
    list_select_related = ["snapshot__source"]
    readonly_fields = ["snapshot", "target_path", "anchor_text", "heading_path"]
