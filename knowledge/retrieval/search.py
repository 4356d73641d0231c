"""The search service: validate the request, let the database cast the wide net, rank,
load what is shown, decide the outcome and assemble the context, timing each stage."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from knowledge.band_table import person_on
from knowledge.embeddings import get_embedder
from knowledge.models import Category
from knowledge.retrieval.applies import nothing_for_this_person, profile_label
from knowledge.retrieval.context import assemble_context
from knowledge.retrieval.hits import UNITS_PER_CONCEPT, ConceptHit, load_hits
from knowledge.retrieval.outcome import decide_outcome
from knowledge.retrieval.params import SearchParams
from knowledge.retrieval.ranking import apply_quality, rank
from knowledge.retrieval.sql import (
    alongside,
    nearest_concepts_tuned,
    nearest_units,
    text_matches,
    unit_ef_search,
    vector_literal,
)


class SearchError(ValueError):
    """A search request that cannot be answered as asked; `field` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass
class SearchResult:
    outcome: str
    reasons: list[str]
    concepts: list[ConceptHit]
    sources: list[str]
    context: str
    context_tokens: int
    timings_ms: dict[str, float]
    thresholds: dict[str, float]
    as_of: dt.date
    mode: str
    confidence: float | None = None
    signals: dict[str, float] = field(default_factory=dict)
    # Refused whatever the confidence (`outcome.Decision.decisive`).
    refusal_decisive: bool = False


def thresholds_for_model(model: str) -> dict[str, float]:
    table = settings.RETRIEVAL_THRESHOLDS
    return dict(table.get(model) or table["default"])


def concept_search(
    *,
    params: SearchParams,
    query_vector: np.ndarray | None = None,
    with_context: bool = True,
    units_read: int | None = None,
) -> SearchResult:
    """One search, stage by stage. `with_context=False` leaves the context and sources
    empty, for a caller that merges several searches and assembles the context once.
    `units_read`: how many of each concept's units nearest the words are read (a suggestion
    reads more), UNITS_PER_CONCEPT shown; for a person, those naming them join them.

    With `min_review` "signed_off" only reviewed units are searched; when none answers, the
    search runs again over every unit to tell `not_reviewed` (facts are held, none of them
    reviewed) from `no_match` (none are held)."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    thresholds = thresholds_for_model(get_embedder().name)
    floor = thresholds["floor"] if params.floor is None else params.floor
    quality = thresholds["quality"] if params.quality is None else params.quality
    _validate(floor, quality)
    mode = params.mode or settings.RETRIEVAL_MODE
    hybrid = settings.RETRIEVAL_HYBRID if params.hybrid is None else params.hybrid
    day = params.day()
    visible_only = not params.include_historical
    reviewed_only = params.min_review == "signed_off"
    timings["validate"] = _ms(started)

    if query_vector is None:
        step = time.perf_counter()
        query_vector = get_embedder().embed([params.query.strip()])[0]
        timings["embed"] = _ms(step)

    step = time.perf_counter()
    vector_text = vector_literal(query_vector)
    concept_rows, unit_rows, text_rows = _candidates(
        params,
        vector_text,
        floor=floor,
        hybrid=hybrid,
        day=day if visible_only else None,
        reviewed_only=reviewed_only,
    )
    timings["sql"] = _ms(step)

    step = time.perf_counter()
    limit = 2 * params.k
    ranked = rank(concept_rows, unit_rows, text_rows, mode=mode, floor=floor)[:limit]
    kept = apply_quality(ranked, quality=quality, k=params.k, min_results=params.min_results)
    timings["rank"] = _ms(step)

    step = time.perf_counter()
    topic_id = concept_rows[0][0] if concept_rows else None
    person = person_on(params.profile, day) if params.profile is not None else None
    hits, topic = load_hits(
        kept,
        vector_text,
        topic_id=topic_id,
        day=day,
        visible_only=visible_only,
        reviewed_only=reviewed_only,
        # For a person, the nearest few units naming them are read too, however far down
        # their concept (profile_label keeps those that single them out).
        per_concept=units_read or UNITS_PER_CONCEPT,
        person=person,
    )
    timings["units"] = _ms(step)

    if params.profile is not None:
        step = time.perf_counter()
        profile_label(hits, person, shown=UNITS_PER_CONCEPT)
        timings["profile"] = _ms(step)

    step = time.perf_counter()
    decision = decide_outcome(
        params=params,
        hits=hits,
        topic=topic,
        concept_rows=concept_rows,
        thresholds=thresholds,
        day=day,
    )
    context, tokens = "", 0
    if with_context:
        context, tokens = assemble_context(hits, budget=params.token_budget, day=day)
    sources = source_urls(hits) if with_context else []
    timings["assemble"] = _ms(step)
    timings["total"] = _ms(started)
    result = SearchResult(
        outcome=decision.outcome,
        reasons=decision.reasons,
        confidence=decision.confidence,
        signals=decision.signals,
        refusal_decisive=decision.decisive,
        concepts=hits,
        sources=sources,
        context=context,
        context_tokens=tokens,
        timings_ms=timings,
        thresholds={"floor": floor, "quality": quality, "scope": thresholds["scope"]},
        as_of=day,
        mode=mode + ("+text" if hybrid else ""),
    )
    if reviewed_only and _nothing_answers(result):
        return _unreviewed_or_absent(result, params=params, query_vector=query_vector)
    return result


# The reason of a refusal whose facts are all for other people (another nation, age, income).
NOT_FOR_THIS_PROFILE = "not_for_this_profile"
ANSWERED = ("ok", "outdated", "low_confidence")


def for_this_person(result: SearchResult, params: SearchParams) -> SearchResult:
    """With a profile: the answer, or, when the concept answering best holds facts for
    other people only (another nation, age, income, circumstance), a refusal that says so,
    serving nothing (those facts would be another person's answer). Decided once for a
    question, on its merged result: one aspect of a broad situation that is not for this
    person is labelled and ranked last, not refused."""
    if params.profile is None or result.outcome not in ANSWERED:
        return result
    if not nothing_for_this_person(result.concepts):
        return result
    return dataclasses.replace(
        result,
        outcome="no_match",
        reasons=[NOT_FOR_THIS_PROFILE],
        concepts=[],
        sources=[],
        context="",
        context_tokens=0,
    )


# The reason of a `not_reviewed` outcome.
ONLY_UNREVIEWED = "only_unreviewed"


def _nothing_answers(result: SearchResult) -> bool:
    return result.outcome == "no_match" or not any(hit.units for hit in result.concepts)


def _unreviewed_or_absent(
    reviewed: SearchResult, *, params: SearchParams, query_vector: np.ndarray
) -> SearchResult:
    """A search of reviewed units that nothing answers: `not_reviewed` when the same search
    over every unit finds facts, else `no_match` for the reasons that search gives. Either
    way a refusal: nothing is served (the reviewed search's weak hits below the quality
    threshold would be facts about something else)."""
    everything = concept_search(
        params=params.model_copy(update={"min_review": "none"}),
        query_vector=query_vector,
        with_context=False,
    )
    timings = dict(reviewed.timings_ms, unreviewed=everything.timings_ms["total"])
    timings["total"] = round(reviewed.timings_ms["total"] + timings["unreviewed"], 2)
    refused = dataclasses.replace(
        reviewed, concepts=[], sources=[], context="", context_tokens=0, timings_ms=timings
    )
    if everything.outcome == "no_match":
        return dataclasses.replace(refused, outcome="no_match", reasons=everything.reasons)
    return dataclasses.replace(refused, outcome="not_reviewed", reasons=[ONLY_UNREVIEWED])


def _candidates(
    params: SearchParams,
    vector_text: str,
    *,
    floor: float,
    hybrid: bool,
    day,
    reviewed_only: bool,
):
    """(concept rows, unit rows, full-text rows): 2×k candidates, ten times that of units,
    the concepts' scan running beside the units' (`day` None: historical units too;
    `reviewed_only`: reviewed units and the concepts holding one)."""
    category_ids = _category_ids(params.categories)
    limit = 2 * params.k
    concepts_found = alongside(
        nearest_concepts_tuned,
        vector_text=vector_text,
        floor=floor,
        limit=max(limit, 10),
        category_ids=category_ids,
        reviewed_only=reviewed_only,
    )
    scope = {"category_ids": category_ids, "day": day, "reviewed_only": reviewed_only}
    unit_rows = nearest_units(
        vector_text, floor=floor, limit=limit * 10, ef_search=unit_ef_search(), **scope
    )
    # Untuned: full-text matching may rightly read the whole table.
    text_rows = text_matches(params.query, limit=limit * 10, **scope) if hybrid else []
    return concepts_found(), unit_rows, text_rows


def source_urls(hits: list[ConceptHit]) -> list[str]:
    """Every page the shown units come from or are also found in, in order of first mention."""
    return list(
        dict.fromkeys(
            url
            for hit in hits
            for u in hit.units
            for url in [u.unit.source.url, *u.unit.also_found_in_urls]
        )
    )


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)


def _validate(floor: float, quality: float) -> None:
    """The one check the request model cannot make: a threshold sent beside the other's
    default (which depends on the embedding model) must keep floor <= quality."""
    if floor > quality:
        raise SearchError("floor", f"must not be above quality ({quality})")


def _category_ids(slugs: list[str]) -> list[int] | None:
    if not slugs:
        return None
    found = dict(Category.objects.filter(slug__in=slugs).values_list("slug", "pk"))
    unknown = sorted(set(slugs) - set(found))
    if unknown:
        raise SearchError("categories", f"unknown category {', '.join(unknown)}")
    return list(found.values())
