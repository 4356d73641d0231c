"""Atomic units (the facts of the knowledge base), where else each is stated, and editors'
doubts about them."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import F, Func, Q
from pgvector.django import VectorField

from knowledge.domain.extraction import UnitText
from knowledge.domain.temporal import (
    NEWER_PERIOD,
    TemporalStatus,
    temporal_status,
    temporal_status_expression,
)
from knowledge.models.base import EMBEDDING_DIMENSIONS, TimestampedModel, hnsw_cosine_index
from knowledge.models.sources import PageSnapshot, Source
from knowledge.models.taxonomy import Concept


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
        """Annotate `temporal_status` by the rule of `knowledge.domain.temporal`."""
        return self.annotate(
            temporal_status=temporal_status_expression(as_of, units=AtomicUnit.objects)
        )

    def with_newer_period_known(self) -> AtomicUnitQuerySet:
        """Annotate `newer_period_known` (the temporal rule's NEWER_PERIOD), which
        `AtomicUnit.temporal_status_on` then reads instead of asking the database."""
        return self.annotate(newer_period_known=NEWER_PERIOD.q(AtomicUnit.objects))

    def in_force(self, as_of: dt.date) -> AtomicUnitQuerySet:
        return self.with_temporal_status(as_of).filter(temporal_status=TemporalStatus.CURRENT.value)


def printed_figures(field: str) -> Func:
    """The money and percent figures a text prints, as printed ("£12,570", "£20.50", "8%"):
    the SQL function of migration 0015, whose GIN index answers "which units print £20.50"
    without reading every text."""
    return Func(
        F(field), function="knowledge_printed_figures", output_field=ArrayField(models.TextField())
    )


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
    figures = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            "The statement's other figures with their roles, e.g. a charge of 1% (the value)"
            " per £200 (role 'per') above £60,000 (role 'above')"
        ),
    )
    applicability = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "Who the unit is for, where its words, headings or page say: nations, age_min,"
            " age_max, state_pension_age, income_min, income_max (£ a year), employment,"
            " partner, children, benefits, student_loan_plans, tax_bands, any_of (ways in of a"
            " list of alternatives); {} is everyone, UK-wide"
        ),
    )
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
    # Freshness: when the unit's quote was last found in its page's current version, and
    # since when that version no longer holds it (then it is not served as current).
    confirmed_at = models.DateTimeField(null=True, blank=True)
    unconfirmed_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # An expert's correction (curation.services.units): who made the last one and when, and
    # the machine's own version of the unit as it was before the first, so that the screens
    # show what the expert changed and later runs of the machine know whose word stands.
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    corrected_at = models.DateTimeField(null=True, blank=True)
    machine_version = models.JSONField(
        default=dict, blank=True, help_text="The machine's fields before the first correction"
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
            hnsw_cosine_index("unit_embedding_hnsw"),
            models.Index(fields=["unit_type"], name="unit_type_idx"),
            models.Index(fields=["valid_from", "valid_to"], name="unit_validity_idx"),
            # The three ways a unit states a figure, each indexed, so that finding the units
            # that state a claim's figure reads a few index pages at any size (verification).
            models.Index(fields=["value_amount"], name="unit_value_amount_idx"),
            GinIndex(fields=["figures"], opclasses=["jsonb_path_ops"], name="unit_figures_idx"),
            GinIndex(printed_figures("text"), name="unit_printed_figures_idx"),
            # A profile's nation, benefits or plan finds the units narrowed to it.
            GinIndex(
                fields=["applicability"],
                opclasses=["jsonb_path_ops"],
                name="unit_applicability_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.concept_id}#{self.ordinal} {self.unit_type}: {self.text[:60]}"

    def as_unit_text(self, *, concept_label: str | None = None, vector: bool = False) -> UnitText:
        """What a model (or the heuristic adjudicator) is shown of this unit. `concept_label`
        spares loading the concept when the caller has it."""
        return UnitText(
            unit_type=self.unit_type,
            text=self.text,
            concept=concept_label
            if concept_label is not None
            else f"{self.concept.taxonomy_id}: {self.concept.name}",
            value_amount=self.value_amount,
            value_unit=self.value_unit,
            value_period=self.value_period,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            source_url=self.source.url,
            vector=tuple(self.embedding) if vector else None,
        )

    def temporal_status_on(
        self, as_of: dt.date, *, newer_period_known: bool | None = None
    ) -> TemporalStatus:
        """`newer_period_known`: NEWER_PERIOD holds for this unit; when not given, read from
        the annotation of `with_newer_period_known`, else asked of the database (only for a
        unit whose period has ended by `as_of`, the one case it decides)."""
        if newer_period_known is None:
            newer_period_known = self._newer_period_known(as_of)
        return temporal_status(
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            superseded_date=self.superseded_date,
            is_superseded=self.superseded_by_id is not None,
            newer_period_known=newer_period_known,
            as_of=as_of,
        )

    def _newer_period_known(self, as_of: dt.date) -> bool:
        annotated = getattr(self, "newer_period_known", None)
        if annotated is not None:
            return annotated
        if self.valid_to is None or self.valid_to >= as_of:
            return False
        return (
            AtomicUnit.objects.filter(pk=self.pk)
            .filter(NEWER_PERIOD.q(AtomicUnit.objects))
            .exists()
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
