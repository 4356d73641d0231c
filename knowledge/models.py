"""The knowledge base: taxonomy (categories, concepts), sources and their snapshots, units.

Invariants that matter for trust are enforced by PostgreSQL, not only by forms: unique
taxonomy ids and aliases, validity ranges, per-concept ordinals, evidence offsets, and the
immutability of page snapshots (a trigger in migration 0002).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Now
from pgvector.django import HnswIndex, VectorField

from knowledge.temporal import TemporalStatus, temporal_status

TAXONOMY_ID_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$"
taxonomy_id_validator = RegexValidator(
    TAXONOMY_ID_PATTERN,
    "A taxonomy id is dotted lowercase words, e.g. isa.junior.eligibility",
)
EMBEDDING_DIMENSIONS = 384


def _hnsw_cosine(name: str) -> HnswIndex:
    return HnswIndex(
        name=name, fields=["embedding"], m=16, ef_construction=64, opclasses=["vector_cosine_ops"]
    )


class TimestampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Category(TimestampedModel):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128, unique=True)
    description = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Concept(TimestampedModel):
    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PROPOSED = "proposed", "Proposed (bootstrap)"
        RETIRED = "retired", "Retired"

    taxonomy_id = models.CharField(max_length=128, unique=True, validators=[taxonomy_id_validator])
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="concepts")
    name = models.CharField(max_length=200)
    description = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    embedding_text_hash = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["taxonomy_id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(taxonomy_id__regex=TAXONOMY_ID_PATTERN),
                name="concept_taxonomy_id_dotted",
            ),
        ]
        indexes = [_hnsw_cosine("concept_embedding_hnsw")]

    def __str__(self) -> str:
        return self.taxonomy_id


class ConceptAlias(models.Model):
    """An old or alternative taxonomy id that keeps resolving to its concept."""

    alias = models.CharField(max_length=128, unique=True, validators=[taxonomy_id_validator])
    concept = models.ForeignKey(Concept, on_delete=models.CASCADE, related_name="aliases")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["alias"]
        verbose_name_plural = "concept aliases"
        constraints = [
            models.CheckConstraint(
                condition=Q(alias__regex=TAXONOMY_ID_PATTERN), name="concept_alias_dotted"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.alias} → {self.concept_id}"


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


class AtomicUnitQuerySet(models.QuerySet):
    def with_sightings(self) -> AtomicUnitQuerySet:
        """Annotate `also_found_in_urls`: the other pages that state each unit, in the same
        query (a correlated array over the sightings' unit index)."""
        urls = (
            UnitSighting.objects.filter(unit=models.OuterRef("pk"))
            .order_by("source__url")
            .values("source__url")
        )
        return self.annotate(also_found_in_urls=ArraySubquery(urls))

    def alive(self) -> AtomicUnitQuerySet:
        """Units in the knowledge base (not removed by a flag-for-deletion decision)."""
        return self.filter(deleted_at__isnull=True)

    def with_temporal_status(self, as_of: dt.date) -> AtomicUnitQuerySet:
        """Annotate `temporal_status` exactly as `knowledge.temporal.temporal_status` decides."""
        day = Value(as_of)
        return self.annotate(
            temporal_status=Case(
                When(
                    Q(superseded_by__isnull=False)
                    & (Q(superseded_date__isnull=True) | Q(superseded_date__lte=day)),
                    then=Value(TemporalStatus.HISTORICAL.value),
                ),
                When(valid_from__gt=day, then=Value(TemporalStatus.UPCOMING.value)),
                When(valid_to__lt=day, then=Value(TemporalStatus.HISTORICAL.value)),
                default=Value(TemporalStatus.CURRENT.value),
                output_field=models.CharField(),
            )
        )

    def in_force(self, as_of: dt.date) -> AtomicUnitQuerySet:
        return self.with_temporal_status(as_of).filter(temporal_status=TemporalStatus.CURRENT.value)


class AtomicUnit(TimestampedModel):
    class Type(models.TextChoices):
        RULE = "rule", "Rule"
        THRESHOLD = "threshold", "Threshold"
        DEFINITION = "definition", "Definition"
        PROCEDURE = "procedure", "Procedure"
        ELIGIBILITY = "eligibility", "Eligibility"
        EXAMPLE = "example", "Example"

    class ValueUnit(models.TextChoices):
        GBP = "GBP", "£"
        PERCENT = "percent", "%"
        COUNT = "count", "count"
        YEARS = "years", "years"
        WEEKS = "weeks", "weeks"
        DAYS = "days", "days"
        HOURS = "hours", "hours"

    class Period(models.TextChoices):
        YEAR = "year", "a year"
        MONTH = "month", "a month"
        FOUR_WEEKS = "four_weeks", "every 4 weeks"
        WEEK = "week", "a week"
        DAY = "day", "a day"
        HOUR = "hour", "an hour"
        ONE_OFF = "one_off", "one-off"

    class ReviewStatus(models.TextChoices):
        PENDING = "pending", "Pending sign-off"
        APPROVED = "approved", "Signed off"
        REJECTED = "rejected", "Rejected"

    class Provider(models.TextChoices):
        HEURISTIC = "heuristic", "Heuristic (rule-based, no LLM)"
        OPENAI = "openai", "LLM (OpenAI-compatible)"
        MANUAL = "manual", "Entered by an editor"

    concept = models.ForeignKey(Concept, on_delete=models.PROTECT, related_name="units")
    ordinal = models.PositiveIntegerField(
        null=True, blank=True, help_text="1..n inside the concept; empty once deleted"
    )
    unit_type = models.CharField(max_length=16, choices=Type.choices)
    text = models.TextField()
    value_amount = models.DecimalField(max_digits=16, decimal_places=4, null=True, blank=True)
    value_unit = models.CharField(max_length=16, choices=ValueUnit.choices, blank=True)
    value_period = models.CharField(max_length=16, choices=Period.choices, blank=True)
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="supersedes"
    )
    superseded_date = models.DateField(null=True, blank=True)
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="units")
    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.PROTECT, related_name="units")
    evidence_quote = models.TextField()
    evidence_start = models.IntegerField()
    evidence_end = models.IntegerField()
    evidence_verified = models.BooleanField(default=False)
    also_found_in = models.ManyToManyField(
        Source, through="UnitSighting", related_name="also_units", blank=True
    )
    example_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="examples"
    )
    review_status = models.CharField(
        max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    provider = models.CharField(max_length=16, choices=Provider.choices)
    provider_model = models.CharField(max_length=100, blank=True)
    extraction_run = models.ForeignKey(
        "ExtractionRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="units"
    )
    validity_basis = models.CharField(
        max_length=40, blank=True, help_text="Where the validity dates came from"
    )
    fingerprint = models.CharField(
        max_length=64, db_index=True, help_text="Hash of the normalised text"
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    embedding_text_hash = models.CharField(max_length=64, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = AtomicUnitQuerySet.as_manager()

    class Meta:
        ordering = ["concept", "ordinal"]
        permissions = [("signoff_atomicunit", "Can sign off extracted units")]
        constraints = [
            # Deferred so that renumbering 1..n inside one transaction may pass through clashes.
            models.UniqueConstraint(
                fields=["concept", "ordinal"],
                name="unit_ordinal_unique_in_concept",
                deferrable=models.Deferrable.DEFERRED,
            ),
            models.CheckConstraint(
                condition=Q(deleted_at__isnull=False) | Q(ordinal__isnull=False, ordinal__gte=1),
                name="unit_alive_has_ordinal",
            ),
            models.CheckConstraint(
                condition=Q(valid_from__isnull=True)
                | Q(valid_to__isnull=True)
                | Q(valid_from__lte=F("valid_to")),
                name="unit_valid_from_before_to",
            ),
            models.CheckConstraint(
                condition=Q(evidence_start__gte=0) & Q(evidence_end__gt=F("evidence_start")),
                name="unit_evidence_offsets_ordered",
            ),
            models.CheckConstraint(
                condition=Q(superseded_date__isnull=True) | Q(superseded_by__isnull=False),
                name="unit_superseded_date_needs_successor",
            ),
            models.CheckConstraint(
                condition=~Q(superseded_by=F("id")), name="unit_not_superseded_by_itself"
            ),
            # Superseding links form chains (each unit replaces at most one); the trigger of
            # migration 0007 keeps a chain's validity periods in order and free of cycles.
            models.UniqueConstraint(
                fields=["superseded_by"],
                condition=Q(superseded_by__isnull=False),
                name="unit_replaces_at_most_one",
            ),
            models.CheckConstraint(
                condition=Q(value_amount__isnull=True) | ~Q(value_unit=""),
                name="unit_amount_has_unit",
            ),
        ]
        indexes = [
            _hnsw_cosine("unit_embedding_hnsw"),
            models.Index(fields=["unit_type"], name="unit_type_idx"),
            models.Index(fields=["valid_from", "valid_to"], name="unit_validity_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.concept_id}#{self.ordinal} {self.unit_type}: {self.text[:60]}"

    def temporal_status_on(self, as_of: dt.date) -> TemporalStatus:
        return temporal_status(
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            superseded_date=self.superseded_date,
            is_superseded=self.superseded_by_id is not None,
            as_of=as_of,
        )


class UnitSighting(models.Model):
    """Another page that states the same unit (kept when duplicates merge)."""

    unit = models.ForeignKey(AtomicUnit, on_delete=models.CASCADE, related_name="sightings")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="sightings")
    snapshot = models.ForeignKey(PageSnapshot, on_delete=models.PROTECT, related_name="+")
    evidence_quote = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["unit", "source"], name="sighting_unique_unit_source"),
        ]

    def __str__(self) -> str:
        return f"unit {self.unit_id} also in {self.source_id}"


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


class QualityFlag(models.Model):
    """A doubt about a unit for editors: misplaced, unverified, stale, superseded page."""

    class Kind(models.TextChoices):
        MISPLACED = "misplaced", "Misplaced unit"
        UNVERIFIED_EVIDENCE = "unverified_evidence", "Unverified evidence"
        STALE_SOURCE = "stale_source", "Source changed since extraction"
        SUPERSEDED_SNAPSHOT = "superseded_snapshot", "From an older version of its page"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        DISMISSED = "dismissed", "Dismissed"

    unit = models.ForeignKey(AtomicUnit, on_delete=models.CASCADE, related_name="flags")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    reason = models.TextField()
    suggested_concept = models.ForeignKey(
        Concept, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    raised_by = models.CharField(
        max_length=32, blank=True, help_text="What raised it: extraction, heuristic, openai"
    )
    margin = models.FloatField(
        null=True, blank=True, help_text="How much closer the suggested concept is (misplaced)"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["unit", "kind"],
                condition=Q(status="open"),
                name="flag_one_open_per_unit_and_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} on unit {self.unit_id}"
