"""Quality job: does each unit belong to its concept?

Each unit is checked against its concept, with the category's active concepts nearest it (by
vector) as the alternatives, by a provider's `check_unit_placement`:
- `heuristic` (offline, labelled as such): a unit whose vector is closer to another active
  concept of its category than to its own concept by at least the margin is flagged
  `misplaced`, with that concept suggested;
- `openai`: the model reads the unit, its concept and the alternatives and says whether it
  belongs, and if not, which alternative (if any) it belongs to. A provider error on one unit
  is counted and the job goes on.
Concept vectors are of the concept's own text (name + description), the same vectors search
uses. A doubt an editor dismissed for the same suggestion is not raised again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import IntegrityError, transaction

from knowledge.embeddings import unit_vectors
from knowledge.models import AtomicUnit, Category, Concept, QualityFlag
from knowledge.providers import (
    ConceptInfo,
    HeuristicProvider,
    Placement,
    Provider,
    ProviderError,
    get_provider,
)

HEURISTIC = "heuristic"
ALTERNATIVES = 5  # the category's concepts nearest a unit that it is compared with
ERRORS_KEPT = 5  # distinct provider errors kept for the report


@dataclass
class QualityReport:
    units_checked: int = 0
    flags_raised: int = 0
    already_open: int = 0
    dismissed_before: int = 0
    by_category: dict[str, int] = field(default_factory=dict)
    provider: str = HEURISTIC
    model: str = ""
    provider_errors: int = 0  # units left unchecked because the provider's answer failed
    errors: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class Doubt:
    unit: AtomicUnit
    suggested: Concept | None
    reason: str
    margin: float | None


def quality_check(
    *,
    category_slug: str | None = None,
    margin: float | None = None,
    provider: str | None = None,
    progress: Callable[[int], None] = lambda done: None,
) -> QualityReport:
    """Flag misplaced units, category by category (one transaction each); idempotent.

    `provider` defaults to the heuristic, not settings.LLM_PROVIDER: each run asks about every
    unit of the knowledge base, which the heuristic answers offline in seconds and an LLM with
    one paid request per unit; an operator asks for `openai` on purpose."""
    margin = settings.QUALITY_MISPLACED_MARGIN if margin is None else margin
    if not 0 < margin < 1:
        raise ValueError("margin: between 0 and 1")
    categories = Category.objects.order_by("order")
    if category_slug:
        categories = categories.filter(slug=category_slug)
        if not categories.exists():
            raise ValueError(f"category: no category {category_slug!r}")
    checker = _checker(provider or HEURISTIC, margin=margin)
    report = QualityReport(provider=checker.name)
    for category in categories:
        raised = _check_category(category, checker=checker, report=report)
        if raised:
            report.by_category[category.slug] = raised
        progress(1)
    return report


def _checker(name: str, *, margin: float) -> Provider:
    if name == HEURISTIC:
        return HeuristicProvider(placement_margin=margin)
    try:
        return get_provider(name)
    except ProviderError as exc:
        raise ValueError(f"provider: {exc.reason}") from exc


def _check_category(category: Category, *, checker: Provider, report: QualityReport) -> int:
    concepts = list(
        Concept.objects.filter(
            category=category, status=Concept.Status.ACTIVE, embedding__isnull=False
        )
    )
    if len(concepts) < 2:
        return 0
    infos = [_concept_info(concept, category) for concept in concepts]
    matrix = unit_vectors([concept.embedding for concept in concepts])
    column = {concept.pk: index for index, concept in enumerate(concepts)}
    units = list(
        AtomicUnit.objects.alive()
        .filter(concept_id__in=column, embedding__isnull=False)
        .select_related("source")
    )
    report.units_checked += len(units)
    if not units:
        return 0
    vectors = unit_vectors([unit.embedding for unit in units])
    similarities = vectors @ matrix.T
    # An LLM is not asked again about a unit an editor has still to look at (it costs); the
    # heuristic is free and keeps counting those doubts when it raises them again.
    asked_already = set() if checker.name == HEURISTIC else _open_doubts(units)
    doubts = []
    for row, unit in enumerate(units):
        if unit.pk in asked_already:
            report.already_open += 1
            continue
        own = column[unit.concept_id]
        nearest = [index for index in np.argsort(-similarities[row]) if index != own]
        alternatives = [infos[index] for index in nearest[:ALTERNATIVES]]
        try:
            placement = checker.check_unit_placement(
                unit=unit.as_unit_text(
                    concept_label=f"{infos[own].taxonomy_id}: {infos[own].name}", vector=True
                ),
                concept=infos[own],
                alternatives=alternatives,
            )
        except ProviderError as exc:
            _count_error(report, exc)
            continue
        _count_usage(report, placement)
        if not placement.belongs:
            suggested = next((c for c in concepts if c.taxonomy_id == placement.suggested), None)
            reason = _reason(checker.name, placement)
            doubts.append(Doubt(unit, suggested, reason, placement.margin))
    return _raise_flags(doubts, raised_by=checker.name, report=report)


def _concept_info(concept: Concept, category: Category) -> ConceptInfo:
    return ConceptInfo(
        taxonomy_id=concept.taxonomy_id,
        name=concept.name,
        description=concept.description,
        category=category.slug,
        vector=tuple(concept.embedding),
    )


def _open_doubts(units: list[AtomicUnit]) -> set[int]:
    return set(
        QualityFlag.objects.filter(
            kind=QualityFlag.Kind.MISPLACED,
            status=QualityFlag.Status.OPEN,
            unit_id__in=[unit.pk for unit in units],
        ).values_list("unit_id", flat=True)
    )


def _count_error(report: QualityReport, exc: ProviderError) -> None:
    report.provider_errors += 1
    if exc.reason not in report.errors and len(report.errors) < ERRORS_KEPT:
        report.errors.append(exc.reason)


def _count_usage(report: QualityReport, placement: Placement) -> None:
    report.model = placement.usage.model or report.model
    report.prompt_tokens += placement.usage.prompt_tokens
    report.completion_tokens += placement.usage.completion_tokens


def _reason(provider: str, placement: Placement) -> str:
    if provider == HEURISTIC:
        return placement.reason  # says itself that it is the heuristic
    return (
        f"LLM ({placement.usage.model}, confidence {placement.confidence:.2f}): {placement.reason}"
    )


def _raise_flags(doubts: list[Doubt], *, raised_by: str, report: QualityReport) -> int:
    dismissed = defaultdict(set)
    for unit_id, concept_id in QualityFlag.objects.filter(
        kind=QualityFlag.Kind.MISPLACED,
        status=QualityFlag.Status.DISMISSED,
        unit_id__in=[doubt.unit.pk for doubt in doubts],
    ).values_list("unit_id", "suggested_concept_id"):
        dismissed[unit_id].add(concept_id)
    raised = 0
    with transaction.atomic():
        for doubt in doubts:
            suggested_id = doubt.suggested.pk if doubt.suggested else None
            if suggested_id in dismissed[doubt.unit.pk]:
                report.dismissed_before += 1
                continue
            try:
                with transaction.atomic():
                    QualityFlag.objects.create(
                        unit=doubt.unit,
                        kind=QualityFlag.Kind.MISPLACED,
                        reason=doubt.reason,
                        suggested_concept=doubt.suggested,
                        raised_by=raised_by,
                        margin=doubt.margin,
                    )
            except IntegrityError:  # an open misplaced flag exists already
                report.already_open += 1
                continue
            raised += 1
    report.flags_raised += raised
    return raised
