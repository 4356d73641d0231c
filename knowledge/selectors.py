"""Reads of the knowledge base, shared by the screens, the API and the CLI."""

from __future__ import annotations

from django.db import models
from django.db.models import Count, Q

from knowledge.domain.temporal import SERVED
from knowledge.models import AtomicUnit, Category, Concept, ConceptAlias, PageSnapshot, Source
from knowledge.text.evidence import evidence_matches


def knowledge_base_counts() -> dict[str, int]:
    return {
        "categories": Category.objects.count(),
        "concepts": Concept.objects.filter(status=Concept.Status.ACTIVE).count(),
        "sources": Source.objects.count(),
        "units": AtomicUnit.objects.alive().count(),
    }


def concept_counts_by_category() -> list[tuple[str, int]]:
    """(category name, active concepts) in taxonomy order."""
    rows = Category.objects.annotate(
        active=Count("concepts", filter=Q(concepts__status=Concept.Status.ACTIVE))
    ).order_by("order", "name")
    return [(row.name, row.active) for row in rows]


def snapshots_to_extract(*, source_url: str | None = None, only_current: bool = False):
    """Snapshot ids in a stable order (by source, oldest version first)."""

    snapshots = PageSnapshot.objects.all()
    if source_url:
        snapshots = snapshots.filter(source__url=source_url.rstrip("/"))
    if only_current:
        snapshots = snapshots.filter(source__current_snapshot=models.F("pk"))
    return list(snapshots.order_by("source__url", "fetched_at", "pk").values_list("pk", flat=True))


def evidence_mismatches() -> tuple[int, list[tuple[int, str]]]:
    """(units checked, [(unit id, why)]) for units whose quote is not at its offsets."""

    mismatches = []
    checked = 0
    units = (
        AtomicUnit.objects.alive()
        .select_related("snapshot")
        .only("id", "evidence_quote", "evidence_start", "evidence_end", "snapshot__text")
    )
    for unit in units.iterator(chunk_size=500):
        checked += 1
        if not evidence_matches(
            text=unit.snapshot.text,
            start=unit.evidence_start,
            end=unit.evidence_end,
            quote=unit.evidence_quote,
        ):
            mismatches.append((unit.pk, f"quote not at {unit.evidence_start}..{unit.evidence_end}"))
    return checked, mismatches


def concept_resolve(*, taxonomy_id: str):
    """(concept, alias used or None) for an id or an old id kept as an alias; None if unknown."""

    concept = Concept.objects.select_related("category").filter(taxonomy_id=taxonomy_id).first()
    if concept is not None:
        return concept, None
    alias = (
        ConceptAlias.objects.select_related("concept__category").filter(alias=taxonomy_id).first()
    )
    if alias is None:
        return None, None
    return alias.concept, alias.alias


def concept_units(*, concept, as_of, include_historical: bool):
    """(unit, temporal status) pairs of a concept in ordinal order; by default only units
    current on `as_of` (or the newest held past their period: outdated, marked so) that
    their page's current version still stated then."""

    units = (
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .select_related("source", "snapshot", "corrected_by")
        .defer("snapshot__raw", "snapshot__text")
        .with_sightings()
        .with_newer_period_known()
        .order_by("ordinal")
    )
    pairs = [(unit, unit.temporal_status_on(as_of).value) for unit in units]
    if include_historical:
        return pairs
    return [
        (unit, status) for unit, status in pairs if status in SERVED and not unit.unconfirmed_at
    ]


def categories_with_counts():
    return Category.objects.annotate(
        active=Count("concepts", filter=Q(concepts__status=Concept.Status.ACTIVE))
    ).order_by("order")
