"""gov.uk pages: each source, its fetched versions (snapshots) and their cross-references."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Now

from knowledge.models.base import TimestampedModel


class Source(TimestampedModel):
    class Status(models.TextChoices):
        OK = "ok", "OK"
        CHANGED = "changed", "Changed"
        GONE = "gone", "Gone"
        ERROR = "error", "Error"

    url = models.URLField(max_length=500, unique=True, help_text="Canonical gov.uk address")
    base_path = models.CharField(max_length=400, db_index=True)
    title = models.CharField(max_length=300, blank=True)
    document_type = models.CharField(max_length=64, blank=True)
    public_updated_at = models.DateTimeField(null=True, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    current_snapshot = models.ForeignKey(
        "PageSnapshot", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    last_fetched_at = models.DateTimeField(null=True, blank=True)
    last_changed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OK)
    status_reason = models.TextField(blank=True)
    # Failed fetches in a row and when the first of them was: gone only after enough.
    failures_in_a_row = models.PositiveIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["url"]

    def __str__(self) -> str:
        return self.url


class PageSnapshot(models.Model):
    """One fetched version of a source. Immutable: a database trigger refuses UPDATE."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="snapshots")
    content_hash = models.CharField(max_length=64, help_text="Hash of title + normalised text")
    raw_hash = models.CharField(
        max_length=64, blank=True, help_text="Hash of the page as received: skips re-parsing"
    )
    origin = models.CharField(
        max_length=500, help_text="Where this version came from: an API URL or a page file"
    )
    raw = models.JSONField(help_text="The page as received")
    text = models.TextField(help_text="Normalised text; unit evidence offsets point into it")
    sections = models.JSONField(default=list, help_text="Section tree with heading paths")
    public_updated_at = models.DateTimeField(null=True, blank=True)
    period_hint = models.CharField(
        max_length=64, blank=True, help_text="Period a page file says its figures are for"
    )
    fetched_at = models.DateTimeField(default=Now)
    captured_on = models.DateField(
        null=True,
        blank=True,
        help_text="The day gov.uk showed this version, when not the fetch day (a page file's)",
    )

    class Meta:
        ordering = ["source", "fetched_at"]
        get_latest_by = "fetched_at"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "content_hash"], name="snapshot_unique_source_hash"
            ),
        ]
        indexes = [models.Index(fields=["source", "raw_hash"], name="snapshot_raw_hash_idx")]

    def __str__(self) -> str:
        return f"{self.source.url} @ {self.content_hash[:10]}"


class SnapshotLink(models.Model):
    """A cross-reference from one page version to another gov.uk path."""

    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.CASCADE, related_name="links")
    target_path = models.CharField(max_length=500, db_index=True)
    anchor_text = models.CharField(max_length=500, blank=True)
    heading_path = models.JSONField(default=list)

    class Meta:
        ordering = ["snapshot", "id"]

    def __str__(self) -> str:
        return f"{self.snapshot_id} → {self.target_path}"
