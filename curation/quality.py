"""Quality job: does each unit belong to its concept?

`heuristic` (offline, labelled as such): a unit whose vector is closer to another active
concept of its category than to its own concept by at least the margin is flagged
`misplaced`, with that concept suggested. Concept vectors are of the concept's own text
(name + description), the same vectors search uses. A doubt an editor dismissed for the same
suggestion is not raised again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import IntegrityError, transaction

from knowledge.models import AtomicUnit, Category, Concept, QualityFlag

HEURISTIC = "heuristic"


@dataclass
class QualityReport:
    units_checked: int = 0
    flags_raised: int = 0
    already_open: int = 0
    dismissed_before: int = 0
    by_category: dict[str, int] = field(default_factory=dict)


def quality_check(
    *, category_slug: str | None = None, margin: float | None = None,
    progress: Callable[[int], None] = lambda done: None,
) -> QualityReport:  # fmt: skip
    """Flag misplaced units, category by category (one transaction each); idempotent."""
    margin = settings.QUALITY_MISPLACED_MARGIN if margin is None else margin
    if not 0 < margin < 1:
        raise ValueError("margin: between 0 and 1")
    categories = Category.objects.order_by("order")
    if category_slug:
        categories = categories.filter(slug=category_slug)
        if not categories.exists():
            raise ValueError(f"category: no category {category_slug!r}")
    report = QualityReport()
    for category in categories:
        raised = _check_category(category, margin=margin, report=report)
        if raised:
            report.by_category[category.slug] = raised
        progress(1)
    return report


def _check_category(category: Category, *, margin: float, report: QualityReport) -> int:
    concepts = list(
        Concept.objects.filter(
            category=category, status=Concept.Status.ACTIVE, embedding__isnull=False
        )
    )
    if len(concepts) < 2:
        return 0
    matrix = np.stack([np.asarray(c.embedding, dtype=np.float32) for c in concepts])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    column = {concept.pk: index for index, concept in enumerate(concepts)}
    units = list(
        AtomicUnit.objects.alive()
        .filter(concept_id__in=column, embedding__isnull=False)
        .only("id", "concept_id", "embedding")
    )
    report.units_checked += len(units)
    if not units:
        return 0
    vectors = np.stack([np.asarray(u.embedding, dtype=np.float32) for u in units])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    similarities = vectors @ matrix.T
    doubts = []
    for row, unit in enumerate(units):
        own = similarities[row, column[unit.concept_id]]
        ranked = np.argsort(-similarities[row])
        best = next(index for index in ranked if concepts[index].pk != unit.concept_id)
        if similarities[row, best] - own >= margin:
            doubts.append((unit, concepts[best], float(own), float(similarities[row, best])))
    return _raise_flags(doubts, concepts_by_pk={c.pk: c for c in concepts}, report=report)


def _raise_flags(doubts, *, concepts_by_pk: dict, report: QualityReport) -> int:
    dismissed = defaultdict(set)
    for unit_id, concept_id in QualityFlag.objects.filter(
        kind=QualityFlag.Kind.MISPLACED, status=QualityFlag.Status.DISMISSED,
        unit_id__in=[unit.pk for unit, *_ in doubts],
    ).values_list("unit_id", "suggested_concept_id"):  # fmt: skip
        dismissed[unit_id].add(concept_id)
    raised = 0
    with transaction.atomic():
        for unit, suggested, own, other in doubts:
            if suggested.pk in dismissed[unit.pk]:
                report.dismissed_before += 1
                continue
            current = concepts_by_pk[unit.concept_id]
            reason = (
                f"Heuristic (embedding similarity, no LLM): closer to {suggested.taxonomy_id} "
                f"({other:.2f}) than to its concept {current.taxonomy_id} ({own:.2f})"
            )
            try:
                with transaction.atomic():
                    QualityFlag.objects.create(
                        unit=unit, kind=QualityFlag.Kind.MISPLACED, reason=reason,
                        suggested_concept=suggested, raised_by=HEURISTIC, margin=round(other - own, 4),
                    )  # fmt: skip
            except IntegrityError:  # an open misplaced flag exists already
                report.already_open += 1
                continue
            raised += 1
    report.flags_raised += raised
    return raised
