"""Reads for the editors' taxonomy screens: categories, concepts and their units, search, the
open work waiting for an editor, and the concepts bootstrap proposed."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, Q, QuerySet

from knowledge.models import (
    AtomicUnit,
    Category,
    Concept,
    ConceptAlias,
    ExtractionItem,
    QualityFlag,
)
from knowledge.selectors import concept_resolve

SEARCH_LIMIT = 25
ALIVE_UNITS = Q(units__deleted_at__isnull=True)


def categories_with_counts() -> QuerySet[Category]:
    """Every category with its concepts counted by status (retired ones apart)."""
    return Category.objects.order_by("order", "name").annotate(
        active=Count("concepts", filter=Q(concepts__status=Concept.Status.ACTIVE)),
        proposed=Count("concepts", filter=Q(concepts__status=Concept.Status.PROPOSED)),
        retired=Count("concepts", filter=Q(concepts__status=Concept.Status.RETIRED)),
    )


def category_get(*, slug: str) -> Category:
    return Category.objects.get(slug=slug)


def category_concepts(*, category: Category) -> list[Concept]:
    """Its concepts, proposals first (they wait for an editor), then active, then retired;
    each with `unit_count` (living units) and its aliases."""
    order = {Concept.Status.PROPOSED: 0, Concept.Status.ACTIVE: 1, Concept.Status.RETIRED: 2}
    concepts = (
        Concept.objects.filter(category=category)
        .annotate(unit_count=Count("units", filter=ALIVE_UNITS))
        .prefetch_related(Prefetch("aliases", queryset=ConceptAlias.objects.order_by("alias")))
    )
    return sorted(concepts, key=lambda c: (order.get(c.status, 3), c.taxonomy_id))


def concept_get(*, concept_id: int) -> Concept:
    return (
        Concept.objects.select_related("category")
        .prefetch_related(Prefetch("aliases", queryset=ConceptAlias.objects.order_by("alias")))
        .annotate(unit_count=Count("units", filter=ALIVE_UNITS))
        .get(pk=concept_id)
    )


def concept_units(*, concept: Concept) -> QuerySet[AtomicUnit]:
    return (
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .select_related("source", "superseded_by", "corrected_by")
        .order_by("ordinal", "pk")
    )


def concept_by_taxonomy_id(*, taxonomy_id: str) -> Concept | None:
    """The concept an editor typed, by its id or an old id kept as an alias."""
    found, _ = concept_resolve(taxonomy_id=(taxonomy_id or "").strip())
    return found


def concepts_for_picker() -> QuerySet[Concept]:
    """Concepts that may receive units, for the target pickers."""
    return Concept.objects.filter(status=Concept.Status.ACTIVE).only("taxonomy_id", "name")


@dataclass
class SearchResults:
    query: str
    concepts: list[Concept] = field(default_factory=list)
    units: list[AtomicUnit] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.concepts or self.units)


def taxonomy_search(*, query: str, limit: int = SEARCH_LIMIT) -> SearchResults:
    """Concepts whose id, old id or name contains the words, and living units whose text does."""
    query = " ".join((query or "").split())
    results = SearchResults(query=query)
    if len(query) < 2:
        return results
    words = query.split()
    concept_match, unit_match = Q(), Q()
    for word in words:
        concept_match &= (
            Q(taxonomy_id__icontains=word)
            | Q(name__icontains=word)
            | Q(aliases__alias__icontains=word)
        )
        unit_match &= Q(text__icontains=word)
    results.concepts = list(
        Concept.objects.filter(concept_match)
        .select_related("category")
        .annotate(unit_count=Count("units", filter=ALIVE_UNITS, distinct=True))
        .distinct()
        .order_by("taxonomy_id")[:limit]
    )
    results.units = list(
        AtomicUnit.objects.alive()
        .filter(unit_match)
        .select_related("concept", "source")
        .order_by("concept__taxonomy_id", "ordinal")[:limit]
    )
    return results


def categories_ordered() -> QuerySet[Category]:
    return Category.objects.order_by("order", "name")


def category_slug(*, category_id: int) -> str:
    return Category.objects.values_list("slug", flat=True).get(pk=category_id)


def concept_plain_get(*, concept_id: int) -> Concept:
    """The concept alone, for a change to act on. Raises Concept.DoesNotExist."""
    return Concept.objects.get(pk=concept_id)


def open_work_counts() -> dict[str, int]:
    """What waits for an editor: open flags, open triage items, proposed concepts."""
    return {
        "flags": QualityFlag.objects.filter(status=QualityFlag.Status.OPEN).count(),
        "items": ExtractionItem.objects.filter(status=ExtractionItem.Status.OPEN).count(),
        "proposals": Concept.objects.filter(status=Concept.Status.PROPOSED).count(),
    }


def proposals_by_category() -> dict[int, list[Concept]]:
    """Concepts proposed by bootstrap and waiting for an editor, per category id."""
    grouped: dict[int, list[Concept]] = {}
    proposals = (
        Concept.objects.filter(status=Concept.Status.PROPOSED)
        .annotate(unit_count=Count("units", filter=ALIVE_UNITS))
        .order_by("taxonomy_id")
    )
    for concept in proposals:
        grouped.setdefault(concept.category_id, []).append(concept)
    return grouped
