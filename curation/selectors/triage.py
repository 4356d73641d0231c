"""Reads for the triage screen: open extraction items and the concepts they could go to."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from knowledge.extraction.binding import BindingWeights
from knowledge.models import Concept, ConceptAlias, ExtractionItem

TRIAGE_PER_PAGE = 50


# Candidates are scored by the heuristic binding: a cosine similarity plus bonuses, up to this.
BINDING_CEILING = BindingWeights().ceiling


@dataclass
class TriageCandidate:
    taxonomy_id: str  # as the extraction named it
    score: float  # the binding score, which can pass 1 (a similarity plus bonuses)
    concept: Concept | None  # the active concept it names now (by id or old id), if any

    @property
    def match(self) -> float:
        """The score as a share of the highest it can be, 0 to 1."""
        return min(1.0, max(0.0, self.score / BINDING_CEILING))


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


def item_for_triage(*, item_id: int) -> ExtractionItem:
    """One item, whatever its status. Raises ExtractionItem.DoesNotExist."""
    return ExtractionItem.objects.select_related("snapshot__source").get(pk=item_id)
