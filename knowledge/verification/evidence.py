"""The units a claim is checked against: those the question search finds for the claim
turned into the question it answers (its figures taken out, what came before it in the answer
as the conversation it follows, so "It's £26.05 for the first child" is searched as Child
Benefit's), of every date, and every unit that states one of the claim's figures, wherever it
sits in the taxonomy (last year's figure stated for this year is found by its value even when
the search ranks this year's unit first)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.db.models import Max

from knowledge.domain.questions import ConversationTurn
from knowledge.domain.temporal import NEWER_PERIOD, SERVED
from knowledge.embeddings import get_embedder, query_vectors
from knowledge.models import AtomicUnit
from knowledge.query.search import question_search
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import SENTENCE, Claim, Figure
from knowledge.retrieval import (
    SearchParams,
    nearest_units_each,
    thresholds_for_model,
    units_similarities,
)

UNITS_LOOKED_AT = 60
UNITS_BY_VALUE = 20  # per figure
UNITS_NEAREST = 25  # per vector, of every date, whatever their concept


@dataclass(frozen=True)
class _Searched:
    """What one claim is searched with."""

    words: str  # the claim's own words (its sentence, when a clause names no topic)
    masked: str  # the same as the question it answers
    after: str  # the same after the sentence before it
    conversation: tuple[ConversationTurn, ...]


def claim_evidence(
    claim: Claim, day: dt.date, *, answer: str = "", asked: str = ""
) -> list[Evidence]:
    """Nearest first, each unit once, with its status on `day`."""
    return claims_evidence([claim], day, answer=answer, asked=asked)[0]


def claims_evidence(
    claims: list[Claim], day: dt.date, *, answer: str = "", asked: str = ""
) -> list[list[Evidence]]:
    """The candidates of each claim of an answer, nearest first: the question search's for
    the claim as a question (its figures out, the question asked and the answer's sentences
    before it as the conversation), the units nearest its words and nearest its words after
    the sentence before it, of every date and concept, and the units stating its figures.
    The clauses of one sentence share their searches; every text is embedded in one call.
    `answer`: the whole answer; `asked`: the question it answers."""
    searched = [_searched_as(claim, answer, asked) for claim in claims]
    texts = list(dict.fromkeys(t for s in searched for t in (s.words, s.masked, s.after)))
    vectors = dict(zip(texts, query_vectors(texts), strict=True))
    distinct = list(dict.fromkeys(searched))
    ranks = {s: _ranked(s, day) for s in distinct}
    near_texts = list(dict.fromkeys(t for s in distinct for t in (s.words, s.after)))
    floor = thresholds_for_model(get_embedder().name)["floor"]  # as a search's net
    nearest = dict(
        zip(
            near_texts,
            nearest_units_each([vectors[t] for t in near_texts], floor=floor, limit=UNITS_NEAREST),
            strict=True,
        )
    )
    found = {
        s: (ranks[s], [pk for t in dict.fromkeys((s.words, s.after)) for pk in nearest[t]])
        for s in distinct
    }
    stating = _ids_stating_each(
        [claim.figures for claim in claims], exclude=[set(found[s][0]) for s in searched]
    )
    # Every candidate of every claim read in one query, and its similarity to every text
    # searched in another, computed where the vectors are.
    ids = {pk for ranked, near in found.values() for pk in (*ranked, *near)} | {
        pk for by_value in stating for pk in by_value
    }
    units = _units_read(ids)
    similarities = units_similarities(units, [vectors[text] for text in texts])
    column = {text: index for index, text in enumerate(texts)}
    evidence = []
    for s, by_value in zip(searched, stating, strict=True):
        ranks, near = found[s]
        pool = [units[pk] for pk in dict.fromkeys([*ranks, *near, *by_value]) if pk in units]
        evidence.append(_evidence(pool, s, similarities, column, ranks, day))
    return evidence


def _searched_as(claim: Claim, answer: str, asked: str) -> _Searched:
    before = answer[: claim.sentence_start].strip()
    previous = _last_sentence(before) or asked.strip()
    after = f"{previous} {claim.context}" if previous else claim.context
    return _Searched(claim.context, claim.searched, after, tuple(_conversation(before, asked)))


def _last_sentence(text: str) -> str:
    sentences = [m.group().strip() for m in SENTENCE.finditer(text) if m.group().strip()]
    return sentences[-1] if sentences else ""


def _ranked(searched: _Searched, day: dt.date) -> dict[int, int]:
    """Unit id → its concept's rank in the question search for the claim as a question."""
    params = SearchParams(
        query=searched.masked, k=5, min_results=5, as_of=day, include_historical=True
    )
    result = question_search(params=params, conversation=list(searched.conversation)).result
    return {u.unit.pk: rank for rank, hit in enumerate(result.concepts, 1) for u in hit.units}


_NOT_READ = (
    "created_at",
    "updated_at",
    "corrected_at",
    "concept__created_at",
    "concept__updated_at",
    "source__created_at",
    "source__updated_at",
    "source__last_fetched_at",
    "source__last_changed_at",
    "source__failing_since",
    "source__status_reason",
)


def _units_read(ids: set[int]) -> dict[int, AtomicUnit]:
    """The units, each knowing whether its concept holds a newer period (the temporal rule's
    NEWER_PERIOD, told its concept's latest start, read in one grouped query, instead of
    asked as a subquery a unit)."""
    if not ids:
        return {}
    units = (
        AtomicUnit.objects.filter(pk__in=ids, deleted_at__isnull=True)
        .select_related("concept", "source")
        # Vectors are compared in the database (`units_similarities`), never read here; the
        # bookkeeping times no verdict reads cost more to parse than the rest of the rows.
        .defer("embedding", "concept__embedding", *_NOT_READ)
        .in_bulk()
    )
    latest = dict(
        AtomicUnit.objects.filter(
            concept_id__in={unit.concept_id for unit in units.values()}, deleted_at__isnull=True
        )
        .values("concept_id")
        .annotate(latest=Max("valid_from"))
        .values_list("concept_id", "latest")
    )
    for unit in units.values():
        others = [(latest.get(unit.concept_id), True)]
        unit.newer_period_known = NEWER_PERIOD.known(unit.valid_to, others)
    return units


def _evidence(pool, searched: _Searched, similarities, column, ranks, day) -> list[Evidence]:
    """`similarities`: unit id → its similarity to each text searched, in `column` order."""
    own, masked_, after = (column[t] for t in (searched.words, searched.masked, searched.after))
    found = [
        Evidence(
            unit,
            round(similarities[unit.pk][own], 4),
            _status(unit, unit.temporal_status_on(day).value, day),
            masked_similarity=round(similarities[unit.pk][masked_], 4),
            context_similarity=round(similarities[unit.pk][after], 4),
            concept_rank=ranks.get(unit.pk),
        )
        for unit in pool
        if unit.pk in similarities
    ]
    return sorted(found, key=lambda e: -e.similarity)[:UNITS_LOOKED_AT]


def _conversation(before: str, asked: str) -> list[ConversationTurn]:
    """What a claim follows on from: the question it answers, and the answer's sentences
    before it, as the turns before a question."""
    turns = [ConversationTurn("user", asked.strip())] if asked.strip() else []
    if before.strip():
        turns.append(ConversationTurn("assistant", before.strip()))
    return turns


def _units_stating(figures: list[Figure], *, exclude: set[int]) -> list[AtomicUnit]:
    """Live units whose structured value, other figures or text is one of the money or
    percent figures."""
    ids = _ids_stating_each([figures], exclude=[exclude])[0]
    units = _units_read(set(ids))
    return [units[pk] for pk in ids if pk in units]


def _ids_stating_each(
    figures_each: list[list[Figure]], *, exclude: list[set[int]]
) -> list[list[int]]:
    """The ids of the units stating each list of figures, found in one query (a union of
    each one's, in raw SQL: the ORM took ~10 ms to compile the union it ran in ~1 ms)."""
    parts, params = [], []
    for index, (figures, excluded) in enumerate(zip(figures_each, exclude, strict=True)):
        part = _stating_sql(figures, exclude=excluded, index=index)
        if part is not None:
            parts.append(part[0])
            params += part[1]
    found: list[list[int]] = [[] for _ in figures_each]
    if not parts:
        return found
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        for unit_id, index in cursor.fetchall():
            found[index].append(unit_id)
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


def status_on(unit: AtomicUnit, day: dt.date) -> str:
    """The unit's status on `day`, as a claim about that day reads it."""
    return _status(unit, unit.temporal_status_on(day).value, day)


def _status(unit: AtomicUnit, status: str, day: dt.date) -> str:
    """A unit its page stopped stating by `day` is not in force then, whatever its dates."""
    if status in SERVED and unit.unconfirmed_at and unit.unconfirmed_at.date() <= day:
        return "unconfirmed"
    return status
