"""The units a claim is checked against: the search's nearest units to what the claim says,
of every date, and every unit that states one of the claim's figures, wherever it sits in
the taxonomy (last year's figure stated for this year is found by its value even when the
search ranks this year's unit first)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from django.db.models import Q, Value

from knowledge.domain.temporal import SERVED
from knowledge.embeddings import query_vectors
from knowledge.models import AtomicUnit
from knowledge.retrieval import SearchParams, concept_search
from knowledge.verification.claims import Claim, Figure

UNITS_LOOKED_AT = 40
UNITS_BY_VALUE = 20  # per figure


@dataclass
class Evidence:
    unit: AtomicUnit
    similarity: float
    temporal_status: str


def claim_evidence(claim: Claim, day: dt.date) -> list[Evidence]:
    """Nearest first, each unit once, with its status on `day`."""
    return claims_evidence([claim], day)[0]


def claims_evidence(claims: list[Claim], day: dt.date) -> list[list[Evidence]]:
    """`claim_evidence` for each claim of an answer: their words embedded in one call and
    searched once (the clauses of one sentence share theirs), then the units stating their
    figures read in one query."""
    contexts = list(dict.fromkeys(claim.context for claim in claims))
    vectors = dict(zip(contexts, query_vectors(contexts), strict=True))
    searched = {context: _nearest(context, day, vector) for context, vector in vectors.items()}
    found = [dict(searched[claim.context]) for claim in claims]
    stating = _units_stating_each(
        [claim.figures for claim in claims], exclude=[set(near) for near in found]
    )
    for claim, near, units in zip(claims, found, stating, strict=True):
        for unit in units:
            status = _status(unit, unit.temporal_status_on(day).value, day)
            similarity = _cosine(vectors[claim.context], unit.embedding)
            near[unit.pk] = Evidence(unit, similarity, status)
    return [sorted(near.values(), key=lambda e: -e.similarity)[:UNITS_LOOKED_AT] for near in found]


def _nearest(context: str, day: dt.date, vector: np.ndarray) -> dict[int, Evidence]:
    """The search's units for a claim's words, of every date, by id."""
    params = SearchParams(query=context, k=5, min_results=5, as_of=day, include_historical=True)
    return {
        u.unit.pk: Evidence(u.unit, u.similarity, _status(u.unit, u.temporal_status, day))
        for hit in concept_search(params=params, query_vector=vector, with_context=False).concepts
        for u in hit.units
    }


def _units_stating(figures: list[Figure], *, exclude: set[int]) -> list[AtomicUnit]:
    """Live units whose structured value, other figures or text is one of the money or
    percent figures."""
    return _units_stating_each([figures], exclude=[exclude])[0]


def _units_stating_each(
    figures_each: list[list[Figure]], *, exclude: list[set[int]]
) -> list[list[AtomicUnit]]:
    """`_units_stating` for each list of figures, in one query: a union of each one's."""
    queries = [
        query
        for index, (figures, excluded) in enumerate(zip(figures_each, exclude, strict=True))
        if (query := _stating_query(figures, exclude=excluded, index=index)) is not None
    ]
    found: list[list[AtomicUnit]] = [[] for _ in figures_each]
    if queries:
        first, *rest = queries
        for unit in first.union(*rest, all=True) if rest else first:
            found[unit.figures_of].append(unit)
    return found


def _stating_query(figures: list[Figure], *, exclude: set[int], index: int):
    """The units stating one of `figures`, marked `figures_of=index`; None for no money or
    percent figure."""
    wanted = Q()
    for figure in figures:
        if figure.unit in ("GBP", "percent"):
            wanted |= Q(value_amount=figure.value, value_unit=figure.unit)
            amount = f"{figure.value.normalize():f}"  # as AtomicUnit.figures holds it
            wanted |= Q(figures__contains=[{"amount": amount, "unit": figure.unit}])
            wanted |= Q(text__contains=printed(figure))
    if not wanted:
        return None
    units = (
        AtomicUnit.objects.filter(wanted, deleted_at__isnull=True, concept__status="active")
        .exclude(pk__in=exclude)
        .exclude(embedding__isnull=True)
        .select_related("concept", "source")
        .defer("concept__embedding")  # a concept's vector is never read here
        .with_newer_period_known()  # read by temporal_status_on, not asked one by one
        .annotate(figures_of=Value(index))
    )
    return units[: UNITS_BY_VALUE * len(figures)]


def printed(figure: Figure) -> str:
    """The figure as gov.uk prints it: £1,739.37, £12,570, 8.75%."""
    value = figure.value
    if figure.unit == "percent":
        return f"{value.normalize():f}%"
    whole = value == value.to_integral_value()
    return f"£{value:,.0f}" if whole else f"£{value.quantize(Decimal('0.01')):,}"


def _cosine(vector: np.ndarray, other) -> float:
    other = np.asarray(other, dtype=float)
    denominator = float(np.linalg.norm(vector) * np.linalg.norm(other)) or 1.0
    return round(float(np.dot(vector, other)) / denominator, 4)


def _status(unit: AtomicUnit, status: str, day: dt.date) -> str:
    """A unit its page stopped stating by `day` is not in force then, whatever its dates."""
    if status in SERVED and unit.unconfirmed_at and unit.unconfirmed_at.date() <= day:
        return "unconfirmed"
    return status
