"""Reads for the editors' taxonomy screens: categories, concepts and their units, search,
open quality flags and triage items, bootstrap proposals and the taxonomy audit trail."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, Q, QuerySet

from curation.models import AuditEvent
from curation.presenters import EventView, event_views
from curation.services.taxonomy import EDITOR_ACTIONS
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
FLAG_LIST_LIMIT = 100
TRIAGE_LIST_LIMIT = 50
CHANGE_LOG_LIMIT = 100
_ALIVE = Q(units__deleted_at__isnull=True)


# --- the taxonomy ----------------------------------------------------------------------------


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
        .annotate(unit_count=Count("units", filter=_ALIVE))
        .prefetch_related(Prefetch("aliases", queryset=ConceptAlias.objects.order_by("alias")))
    )
    return sorted(concepts, key=lambda c: (order.get(c.status, 3), c.taxonomy_id))


def concept_get(*, concept_id: int) -> Concept:
    return (
        Concept.objects.select_related("category")
        .prefetch_related(Prefetch("aliases", queryset=ConceptAlias.objects.order_by("alias")))
        .annotate(unit_count=Count("units", filter=_ALIVE))
        .get(pk=concept_id)
    )


def concept_units(*, concept: Concept) -> QuerySet[AtomicUnit]:
    return (
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .select_related("source", "superseded_by")
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
        .annotate(unit_count=Count("units", filter=_ALIVE, distinct=True))
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


# --- quality flags -----------------------------------------------------------------------------


def flags_open(*, kind: str = "", category_slug: str = "") -> QuerySet[QualityFlag]:
    flags = QualityFlag.objects.filter(status=QualityFlag.Status.OPEN).select_related(
        "unit__concept__category", "unit__source", "suggested_concept"
    )
    if kind:
        flags = flags.filter(kind=kind)
    if category_slug:
        flags = flags.filter(unit__concept__category__slug=category_slug)
    return flags.order_by("-created_at", "-pk")


def flag_counts_by_kind() -> dict[str, int]:
    rows = (
        QualityFlag.objects.filter(status=QualityFlag.Status.OPEN)
        .values("kind")
        .annotate(n=Count("pk"))
    )
    return {row["kind"]: row["n"] for row in rows}


# --- triage ------------------------------------------------------------------------------------


@dataclass
class TriageCandidate:
    taxonomy_id: str  # as the extraction named it
    score: float
    concept: Concept | None  # the active concept it names now (by id or old id), if any


def items_open(*, kind: str = "") -> QuerySet[ExtractionItem]:
    items = ExtractionItem.objects.filter(status=ExtractionItem.Status.OPEN).select_related(
        "snapshot__source"
    )
    if kind:
        items = items.filter(kind=kind)
    return items.order_by("-created_at", "-pk")


def item_candidates(*, items: list[ExtractionItem]) -> dict[int, list[TriageCandidate]]:
    """Each item's scored candidate concepts, best first, with the concept they name now (a
    candidate renamed or merged since is followed through its alias)."""
    pairs_by_item = {
        item.pk: sorted(
            (pair for pair in item.candidates or [] if len(pair) == 2),
            key=lambda pair: -float(pair[1]),
        )
        for item in items
    }
    ids = {pair[0] for pairs in pairs_by_item.values() for pair in pairs}
    concepts = {c.taxonomy_id: c for c in Concept.objects.filter(taxonomy_id__in=ids)}
    for alias in ConceptAlias.objects.filter(alias__in=ids).select_related("concept"):
        concepts.setdefault(alias.alias, alias.concept)
    return {
        pk: [
            TriageCandidate(taxonomy_id=tid, score=float(score), concept=_active(concepts, tid))
            for tid, score in pairs
        ]
        for pk, pairs in pairs_by_item.items()
    }


def _active(concepts: dict[str, Concept], taxonomy_id: str) -> Concept | None:
    concept = concepts.get(taxonomy_id)
    return concept if concept and concept.status == Concept.Status.ACTIVE else None


# --- bootstrap ---------------------------------------------------------------------------------


def proposals_by_category() -> dict[int, list[Concept]]:
    """Concepts proposed by bootstrap and waiting for an editor, per category id."""
    grouped: dict[int, list[Concept]] = {}
    proposals = (
        Concept.objects.filter(status=Concept.Status.PROPOSED)
        .annotate(unit_count=Count("units", filter=_ALIVE))
        .order_by("taxonomy_id")
    )
    for concept in proposals:
        grouped.setdefault(concept.category_id, []).append(concept)
    return grouped


# --- the audit trail ---------------------------------------------------------------------------


def taxonomy_changes_recent(*, limit: int = CHANGE_LOG_LIMIT) -> list[EventView]:
    """Editors' changes and their reverts, newest first, each with its field-by-field diff
    (concepts shown by their taxonomy id as it is now)."""
    events = list(
        AuditEvent.objects.filter(_editor_actions())
        .select_related("actor", "reverts", "reverted_by__actor")
        .order_by("-created_at", "-pk")[:limit]
    )
    return event_views(events)


def taxonomy_change_get(*, event_id: int) -> AuditEvent:
    return AuditEvent.objects.filter(_editor_actions()).get(pk=event_id)


def _editor_actions() -> Q:
    match = Q()
    for prefix in EDITOR_ACTIONS:
        match |= Q(action__startswith=prefix)
    return match
