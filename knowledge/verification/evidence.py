"""The units a claim is checked against: the search's nearest units to what the claim says,
of every date, and every unit that states one of the claim's figures, wherever it sits in
the taxonomy (last year's figure stated for this year is found by its value even when the
search ranks this year's unit first)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from django.db import connection

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
    """`_units_stating` for each list of figures: their ids found in one query (a union of
    each one's, in raw SQL: the ORM took ~10 ms to compile the union it ran in ~1 ms), then
    the units read in one more."""
    parts, params = [], []
    for index, (figures, excluded) in enumerate(zip(figures_each, exclude, strict=True)):
        part = _stating_sql(figures, exclude=excluded, index=index)
        if part is not None:
            parts.append(part[0])
            params += part[1]
    found: list[list[AtomicUnit]] = [[] for _ in figures_each]
    if not parts:
        return found
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        rows = cursor.fetchall()
    units = (
        AtomicUnit.objects.filter(pk__in={unit_id for unit_id, _ in rows})
        .select_related("concept", "source")
        .defer("concept__embedding")  # a concept's vector is never read here
        .with_newer_period_known()  # read by temporal_status_on, not asked one by one
        .in_bulk()
    )
    for unit_id, index in rows:
        found[index].append(units[unit_id])
    return found


def _stating_sql(figures: list[Figure], *, exclude: set[int], index: int):
    """(SQL, parameters) of the ids of the live units stating one of `figures`, each beside
    `index`, in the units' own order (concept, ordinal); None for no money or percent figure.
    Each way a unit states a figure is answered by an index of its own (migration 0015)."""
    stated, params, prints = [], [], []
    for figure in figures:
        if figure.unit in ("GBP", "percent"):
            amount = f"{figure.value.normalize():f}"  # as AtomicUnit.figures holds it
            stated.append("(u.value_amount = %s AND u.value_unit = %s) OR u.figures @> %s::jsonb")
            params += [
                figure.value,
                figure.unit,
                json.dumps([{"amount": amount, "unit": figure.unit}]),
            ]
            prints += printed_forms(figure)
    if not stated:
        return None
    # The expression of the unit_printed_figures_idx index (AtomicUnit.Meta.indexes).
    stated.append("knowledge_printed_figures(u.text) && %s::text[]")
    params.append(prints)
    sql = f"""(
        SELECT u.id, {index:d}
        FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id
        WHERE ({" OR ".join(stated)})
            AND u.deleted_at IS NULL AND c.status = 'active' AND u.embedding IS NOT NULL
            AND NOT (u.id = ANY(%s))
        ORDER BY c.taxonomy_id, u.ordinal
        LIMIT {UNITS_BY_VALUE * len(figures):d}
    )"""
    return sql, [*params, sorted(exclude)]


def printed_forms(figure: Figure) -> list[str]:
    """How a text may print the figure: £12,570 also as £12,570.00, as rate tables print
    whole pounds beside pence (£10.00)."""
    forms = [printed(figure)]
    if figure.unit == "GBP" and figure.value == figure.value.to_integral_value():
        forms.append(f"£{figure.value:,.2f}")
    return forms


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
