"""The taxonomy: categories, the concepts filed under them, and concepts' old ids."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower, Now
from pgvector.django import VectorField

from knowledge.models.base import EMBEDDING_DIMENSIONS, TimestampedModel, hnsw_cosine_index

TAXONOMY_ID_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$"
taxonomy_id_validator = RegexValidator(
    TAXONOMY_ID_PATTERN,
    "A taxonomy id is dotted lowercase words, e.g. isa.junior.eligibility",
)


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
    yearly_figures = models.BooleanField(
        default=False,
        help_text=(
            "Its figures are set each year (uprated each April, or each academic year): a figure"
            " printed with no year holds for the year its page was captured in"
        ),
    )
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
        indexes = [hnsw_cosine_index("concept_embedding_hnsw")]

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


class GlossaryTerm(models.Model):
    """An abbreviation or everyday name people use for a concept or category ("JISA", "the
    dole"). Queries are expanded with `means` before they are embedded; a term with several
    rows is ambiguous ("MA") and each reading is searched."""

    term = models.CharField(max_length=64)
    means = models.CharField(max_length=200, help_text="The words gov.uk uses for it")
    match_case = models.BooleanField(
        default=False, help_text="Match only in these capitals (short acronyms such as PA, MA)"
    )
    concept = models.ForeignKey(
        Concept, on_delete=models.SET_NULL, null=True, blank=True, related_name="glossary_terms"
    )
    category = models.ForeignKey(
        Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="glossary_terms"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["term", "means"]
        constraints = [
            models.UniqueConstraint(
                Lower("term"),
                Lower("means"),
                name="glossary_term_reading_unique",
            ),
            models.CheckConstraint(condition=~Q(term=""), name="glossary_term_not_blank"),
            models.CheckConstraint(condition=~Q(means=""), name="glossary_means_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.term} → {self.means}"


class LifeEvent(models.Model):
    """A life situation ("having a baby", "made redundant") and the 3–5 specific searches a
    broad question about it is expanded into, held as data beside the taxonomy."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    triggers = models.JSONField(
        default=list, help_text="Words or phrases that show a question is about this situation"
    )
    searches = models.JSONField(default=list, help_text="3 to 5 specific searches it expands into")
    suggest_for = models.JSONField(
        default=list,
        blank=True,
        help_text="Who is in this situation, for suggestions before they ask: alternatives, each "
        "of age_min, age_max, employment, benefits, youngest_child_age_max, income_min, "
        "income_max, student_loan; [] suggests it to nobody",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name


class VocabularyChange(models.Model):
    """One row per transaction that changed what the query analysis reads (categories,
    concepts' names, ids and status, the glossary, life events), written by triggers
    (migration 0014) so that every path counts: the admin, services, bulk updates, COPY.
    A process holds the compiled vocabulary until this table's count, latest id or sum of
    changes moves; a transaction only ever updates its own row, so writers never wait for
    each other."""

    id = models.BigAutoField(primary_key=True)
    changed_at = models.DateTimeField(db_default=Now())
    changes = models.PositiveIntegerField(default=1)  # statements (or concept rows) changed

    class Meta:
        db_table = "knowledge_vocabularychange"

    def __str__(self) -> str:
        return f"vocabulary change {self.id} at {self.changed_at:%Y-%m-%d %H:%M:%S}"
