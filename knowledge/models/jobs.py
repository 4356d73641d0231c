"""Ingestion and extraction jobs: what ran, on which page, and what came of it."""

from __future__ import annotations

from django.db import models

from knowledge.models.sources import PageSnapshot, Source


class IngestJob(models.Model):
    """One ingestion batch (a directory, a list of gov.uk paths, a freshness check)."""

    class Kind(models.TextChoices):
        DIRECTORY = "directory", "Local directory"
        GOVUK = "govuk", "gov.uk Content API"
        REFRESH = "refresh", "Freshness check"

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    params = models.JSONField(default=dict)
    refs = models.JSONField(default=list, help_text="File names or gov.uk paths, in order")
    total = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"ingest job {self.pk} ({self.kind}, {self.total} pages)"


class IngestItem(models.Model):
    """The outcome for one page of a job. Its unique (job, ref) row is the task's claim."""

    class Outcome(models.TextChoices):
        NEW = "new", "New source"
        CHANGED = "changed", "Changed"
        UNCHANGED = "unchanged", "Unchanged"
        GONE = "gone", "Gone"
        FAILED = "failed", "Failed"

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="items")
    ref = models.CharField(max_length=500)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    reason = models.TextField(blank=True)
    source = models.ForeignKey(Source, on_delete=models.SET_NULL, null=True, blank=True)
    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.SET_NULL, null=True, blank=True)
    seconds = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job", "id"]
        constraints = [
            models.UniqueConstraint(fields=["job", "ref"], name="ingest_item_unique_job_ref"),
        ]

    def __str__(self) -> str:
        return f"{self.ref}: {self.outcome}"


class ExtractionJob(models.Model):
    """A batch of extraction runs started together (the jobs screen's unit of progress)."""

    provider = models.CharField(max_length=16)
    total = models.PositiveIntegerField()
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"extraction job {self.pk} ({self.provider}, {self.total} pages)"


class ExtractionRun(models.Model):
    """Both passes of one snapshot by one provider and prompt version; exactly one per triple."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.CASCADE, related_name="runs")
    job = models.ForeignKey(
        ExtractionJob, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    provider = models.CharField(max_length=16)
    model = models.CharField(max_length=100, blank=True)
    prompt_version = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    context = models.JSONField(default=dict, blank=True, help_text="Pass 1: page context")
    units_made = models.PositiveIntegerField(default=0)
    units_rejected = models.PositiveIntegerField(default=0)
    units_unassigned = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    error = models.TextField(blank=True)
    timings = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(
        default=dict,
        blank=True,
        help_text="Extraction again: units found again, kept for experts, retired",
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "provider", "prompt_version"], name="run_unique_per_version"
            ),
        ]

    def __str__(self) -> str:
        return (
            f"run {self.pk}: snapshot {self.snapshot_id} by {self.provider} {self.prompt_version}"
        )


class ExtractionItem(models.Model):
    """A proposed unit that did not enter the knowledge base: rejected by validation, or
    valid but not confidently bound to a concept (the unassigned triage list)."""

    class Kind(models.TextChoices):
        REJECTED = "rejected", "Rejected"
        UNASSIGNED = "unassigned", "Unassigned (triage)"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ASSIGNED = "assigned", "Assigned to a concept"
        DISCARDED = "discarded", "Discarded"

    run = models.ForeignKey(ExtractionRun, on_delete=models.CASCADE, related_name="items")
    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    reason_code = models.CharField(max_length=40)
    reason = models.TextField()
    proposal = models.JSONField(help_text="What the provider proposed, as received")
    evidence_start = models.IntegerField(null=True, blank=True)
    evidence_end = models.IntegerField(null=True, blank=True)
    candidates = models.JSONField(default=list, blank=True, help_text="Best concepts, scored")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    resolution_note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "id"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.reason_code}"
