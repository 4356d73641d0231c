"""The search service: validate the request, let the database cast the wide net, rank,
load what is shown, decide the outcome and assemble the context, timing each stage."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from knowledge.embeddings import get_embedder
from knowledge.models import Category
from knowledge.retrieval.context import assemble_context
from knowledge.retrieval.hits import ConceptHit, load_hits
from knowledge.retrieval.outcome import decide_outcome
from knowledge.retrieval.ranking import apply_quality, rank
from knowledge.retrieval.sql import (
    alongside,
    nearest_concepts_tuned,
    nearest_units,
    text_matches,
    tune_index_scans,
    vector_literal,
)

MAX_QUERY_CHARS = 2000


class SearchError(ValueError):
    """A search request that cannot be answered as asked; `field` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass
class SearchParams:
    query: str
    k: int = 5
    floor: float | None = None
    quality: float | None = None
    min_results: int = 3
    categories: list[str] = field(default_factory=list)
    include_historical: bool = False
    as_of: dt.date | None = None
    token_budget: int = 8000
    mode: str = ""  # "concept" | "units" | "both"; default from settings
    hybrid: bool | None = None


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


def thresholds_for_model(model: str) -> dict[str, float]:
    table = settings.RETRIEVAL_THRESHOLDS
    return dict(table.get(model) or table["default"])


def concept_search(*, params: SearchParams, query_vector: np.ndarray | None = None) -> SearchResult:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    thresholds = thresholds_for_model(get_embedder().name)
    floor = thresholds["floor"] if params.floor is None else params.floor
    quality = thresholds["quality"] if params.quality is None else params.quality
    _validate(params, floor, quality)
    mode = params.mode or settings.RETRIEVAL_MODE
    hybrid = settings.RETRIEVAL_HYBRID if params.hybrid is None else params.hybrid
    day = params.as_of or timezone.localdate()
    visible_only = not params.include_historical
    timings["validate"] = _ms(started)

    if query_vector is None:
        step = time.perf_counter()
        query_vector = get_embedder().embed([params.query.strip()])[0]
        timings["embed"] = _ms(step)

    step = time.perf_counter()
    vector_text = vector_literal(query_vector)
    concept_rows, unit_rows, text_rows = _candidates(
        params, vector_text, floor=floor, hybrid=hybrid, day=day if visible_only else None
    )
    timings["sql"] = _ms(step)

    step = time.perf_counter()
    limit = 2 * params.k
    ranked = rank(concept_rows, unit_rows, text_rows, mode=mode, floor=floor)[:limit]
    kept = apply_quality(ranked, quality=quality, k=params.k, min_results=params.min_results)
    timings["rank"] = _ms(step)

    step = time.perf_counter()
    topic_id = concept_rows[0][0] if concept_rows else None
    hits, topic = load_hits(
        kept, vector_text, topic_id=topic_id, day=day, visible_only=visible_only
    )
    timings["units"] = _ms(step)

    step = time.perf_counter()
    decision = decide_outcome(
        params=params, hits=hits, topic=topic, concept_rows=concept_rows,
        thresholds=thresholds, day=day,
    )  # fmt: skip
    context, tokens = assemble_context(hits, budget=params.token_budget, day=day)
    sources = source_urls(hits)
    timings["assemble"] = _ms(step)
    timings["total"] = _ms(started)
    return SearchResult(
        outcome=decision.outcome,
        reasons=decision.reasons,
        confidence=decision.confidence,
        signals=decision.signals,
        concepts=hits,
        sources=sources,
        context=context,
        context_tokens=tokens,
        timings_ms=timings,
        thresholds={"floor": floor, "quality": quality, "scope": thresholds["scope"]},
        as_of=day,
        mode=mode + ("+text" if hybrid else ""),
    )


def _candidates(params: SearchParams, vector_text: str, *, floor: float, hybrid: bool, day):
    """(concept rows, unit rows, full-text rows): 2×k candidates, ten times that of units,
    the concepts' scan running beside the units' (`day` None: historical units too)."""
    category_ids = _category_ids(params.categories)
    limit = 2 * params.k
    concepts_found = alongside(
        nearest_concepts_tuned,
        vector_text=vector_text, floor=floor, limit=max(limit, 10), category_ids=category_ids,
    )  # fmt: skip
    with transaction.atomic():
        tune_index_scans()
        unit_rows = nearest_units(
            vector_text, floor=floor, limit=limit * 10, category_ids=category_ids, day=day
        )
        text_rows = (
            text_matches(params.query, limit=limit * 10, category_ids=category_ids, day=day)
            if hybrid
            else []
        )
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


def _validate(params: SearchParams, floor: float, quality: float) -> None:
    if not params.query or not params.query.strip():
        raise SearchError("query", "must not be empty")
    if len(params.query) > MAX_QUERY_CHARS:
        raise SearchError("query", f"must be at most {MAX_QUERY_CHARS} characters")
    if not 1 <= params.k <= 50:
        raise SearchError("k", "must be between 1 and 50")
    for name, value in (("floor", floor), ("quality", quality)):
        if not 0.0 <= value <= 1.0:
            raise SearchError(name, "must be between 0 and 1")
    if floor > quality:
        raise SearchError("floor", f"must not be above quality ({quality})")
    if not 0 <= params.min_results <= params.k:
        raise SearchError("min_results", f"must be between 0 and k ({params.k})")
    if not 100 <= params.token_budget <= 100_000:
        raise SearchError("token_budget", "must be between 100 and 100000")
    if params.as_of and not dt.date(1990, 1, 1) <= params.as_of <= dt.date(2100, 12, 31):
        raise SearchError("as_of", "must be between 1990-01-01 and 2100-12-31")
    if params.mode and params.mode not in ("concept", "units", "both"):
        raise SearchError("mode", "must be concept, units or both")


def _category_ids(slugs: list[str]) -> list[int] | None:
    if not slugs:
        return None
    found = dict(Category.objects.filter(slug__in=slugs).values_list("slug", "pk"))
    unknown = sorted(set(slugs) - set(found))
    if unknown:
        raise SearchError("categories", f"unknown category {', '.join(unknown)}")
    return list(found.values())
