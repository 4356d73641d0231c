"""Concept retrieval: the database casts the wide net, the application decides.

PostgreSQL finds the nearest concepts (by their own text) and the nearest visible units over
the HNSW indexes, with the floor applied in SQL to 2×k candidates. The application keeps the
concepts at or above the quality threshold, tops up to `min_results` from the best of the
rest (marked below quality), gathers each concept's units grouped by source, and decides a
typed outcome from the concepts and units together, not from a similarity alone.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from knowledge.embeddings import count_tokens_each, get_embedder
from knowledge.models import AtomicUnit, Category, Concept, PageSnapshot, Source
from knowledge.temporal import TemporalStatus
from knowledge.textfacts import STOPWORDS

T = TypeVar("T")
MAX_QUERY_CHARS = 2000
UNITS_PER_CONCEPT = 8
_AMOUNT_QUESTION = re.compile(
    r"\b(how much|worth|what('s| is| was| are| were) the (\w+ ){0,4}(rate|limit|threshold|allowance|"
    r"amount|cap|bonus|charge|penalty|fee|wage))\b",
    re.I,
)  # fmt: skip
_GENERIC_WORDS = STOPWORDS | frozenset(
    ("how", "rules", "rate", "rates", "amount", "eligibility", "overview", "claim", "claiming", "apply")
)  # fmt: skip


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
class UnitHit:
    unit: AtomicUnit
    similarity: float
    temporal_status: str
    part_url: str


@dataclass
class ConceptHit:
    concept: Concept
    score: float
    concept_similarity: float
    unit_similarity: float
    text_rank: float
    below_quality: bool
    units: list[UnitHit] = field(default_factory=list)


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


def thresholds_for_model(model: str) -> dict[str, float]:
    table = settings.RETRIEVAL_THRESHOLDS
    return dict(table.get(model) or table["default"])


# --- the service -----------------------------------------------------------------------------


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
    vector_text = _vector_literal(query_vector)
    category_ids = _category_ids(params.categories)
    limit = 2 * params.k
    concepts_found = _alongside(
        _nearest_concepts_tuned,
        vector_text=vector_text, floor=floor, limit=max(limit, 10), category_ids=category_ids,
    )  # fmt: skip
    with transaction.atomic():
        _tune_index_scans()
        unit_rows = _nearest_units(
            vector_text, floor=floor, limit=limit * 10, category_ids=category_ids,
            day=day if visible_only else None,
        )  # fmt: skip
        text_rows = (
            _text_matches(
                params.query,
                limit=limit * 10,
                category_ids=category_ids,
                day=day if visible_only else None,
            )
            if hybrid
            else []
        )
    concept_rows = concepts_found()
    timings["sql"] = _ms(step)

    step = time.perf_counter()
    ranked = _rank(concept_rows, unit_rows, text_rows, mode=mode, floor=floor)[:limit]
    kept = _apply_quality(ranked, quality=quality, k=params.k, min_results=params.min_results)
    timings["rank"] = _ms(step)

    step = time.perf_counter()
    topic_id = concept_rows[0][0] if concept_rows else None
    hits, topic = _load_hits(
        kept, vector_text, topic_id=topic_id, day=day, visible_only=visible_only
    )
    timings["units"] = _ms(step)

    step = time.perf_counter()
    outcome, reasons = decide_outcome(
        params=params, hits=hits, topic=topic, concept_rows=concept_rows,
        thresholds=thresholds, day=day,
    )  # fmt: skip
    context, tokens = assemble_context(hits, budget=params.token_budget, day=day)
    sources = list(
        dict.fromkeys(
            url
            for hit in hits
            for u in hit.units
            for url in [u.unit.source.url, *u.unit.also_found_in_urls]
        )
    )
    timings["assemble"] = _ms(step)
    timings["total"] = _ms(started)
    return SearchResult(
        outcome=outcome,
        reasons=reasons,
        concepts=hits,
        sources=sources,
        context=context,
        context_tokens=tokens,
        timings_ms=timings,
        thresholds={"floor": floor, "quality": quality, "scope": thresholds["scope"]},
        as_of=day,
        mode=mode + ("+text" if hybrid else ""),
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


# --- SQL: nearest neighbours over HNSW, floor applied to the candidates -----------------------


def _tune_index_scans(ef_search: int | None = None) -> None:
    """Filtered HNSW scans keep searching until enough rows pass the filter (pgvector 0.8).
    Both settings in one round trip, for this transaction only (SET LOCAL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.ef_search', %s, true),"
            " set_config('hnsw.iterative_scan', 'relaxed_order', true)",
            [str(ef_search or settings.RETRIEVAL_EF_SEARCH)],
        )


def _nearest_concepts_tuned(*, vector_text: str, floor: float, limit: int, category_ids):
    # The concept index is a tenth of the unit index and only its top few matter.
    with transaction.atomic():
        _tune_index_scans(settings.RETRIEVAL_CONCEPT_EF_SEARCH)
        return _nearest_concepts(vector_text, floor=floor, limit=limit, category_ids=category_ids)


def _alongside(query: Callable[..., T], **kwargs) -> Callable[[], T]:
    """Start `query` in a database session of its own, on this process's side thread, and
    return a function that waits for its result: the concept and unit index scans are
    independent, so the concepts' (~10 ms at 100× scale) run while the units' do.

    A caller inside a transaction may hold rows no other session can see (a test's data,
    an import's), so then the query runs here, in this session, before the units'."""
    if connection.in_atomic_block:
        result = query(**kwargs)
        return lambda: result
    future = _side_thread().submit(_in_side_session, query, kwargs)
    return future.result


@functools.cache
def _side_thread() -> ThreadPoolExecutor:
    """Made at first use, so in each worker after a fork, never in the parent before it."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="navigator-search-side")


def _in_side_session(query: Callable[..., T], kwargs: dict) -> T:
    """The side thread keeps its own connection from one search to the next (Django's
    request cycle, which ages connections out, never runs on it); a failure closes it, so
    the next search starts a fresh session."""
    try:
        return query(**kwargs)
    except Exception:
        connection.close()
        raise


def side_sessions_close() -> None:
    """Close the side thread's database session (before dropping its database, say)."""
    if _side_thread.cache_info().currsize:
        _side_thread().submit(_close_this_threads_connection).result()


def _close_this_threads_connection() -> None:
    connection.close()  # `connection` is the calling thread's


def _vector_literal(vector: np.ndarray | str) -> str:
    """pgvector's text form; a search computes it once and passes the string on."""
    if isinstance(vector, str):
        return vector
    return "[" + ",".join(map(_SIX_PLACES, vector.tolist())) + "]"


_SIX_PLACES = "{:.6f}".format


def _nearest_concepts(vector, *, floor: float, limit: int, category_ids) -> list[tuple[int, float]]:
    category_filter = "AND category_id = ANY(%(categories)s)" if category_ids else ""
    sql = f"""
        WITH nearest AS MATERIALIZED (
            SELECT id, embedding <=> %(q)s::vector AS distance
            FROM knowledge_concept
            WHERE status = 'active' AND embedding IS NOT NULL {category_filter}
            ORDER BY embedding <=> %(q)s::vector
            LIMIT %(limit)s
        )
        SELECT id, 1 - distance FROM nearest WHERE distance <= 1 - %(floor)s ORDER BY distance
    """
    params = {
        "q": _vector_literal(vector),
        "limit": limit,
        "floor": floor,
        "categories": category_ids,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


VISIBLE_ON_DAY = """
    AND NOT (u.superseded_by_id IS NOT NULL AND (u.superseded_date IS NULL OR u.superseded_date <= %(day)s))
    AND (u.valid_from IS NULL OR u.valid_from <= %(day)s)
    AND (u.valid_to IS NULL OR u.valid_to >= %(day)s)
"""


def _unit_filters(category_ids, day) -> str:
    filters = "u.deleted_at IS NULL AND c.status = 'active'"
    if category_ids:
        filters += " AND c.category_id = ANY(%(categories)s)"
    if day is not None:
        filters += VISIBLE_ON_DAY
    return filters


def _nearest_units(
    vector, *, floor: float, limit: int, category_ids, day
) -> list[tuple[int, int, float]]:
    sql = f"""
        WITH nearest AS MATERIALIZED (
            SELECT u.id, u.concept_id, u.embedding <=> %(q)s::vector AS distance
            FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id
            WHERE u.embedding IS NOT NULL AND {_unit_filters(category_ids, day)}
            ORDER BY u.embedding <=> %(q)s::vector
            LIMIT %(limit)s
        )
        SELECT id, concept_id, 1 - distance FROM nearest WHERE distance <= 1 - %(floor)s ORDER BY distance
    """
    params = {
        "q": _vector_literal(vector),
        "limit": limit,
        "floor": floor,
        "categories": category_ids,
        "day": day,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]


def _text_matches(query: str, *, limit: int, category_ids, day) -> list[tuple[int, int, float]]:
    """PostgreSQL full-text matches (for hybrid ranking): (unit id, concept id, rank)."""
    sql = f"""
        SELECT u.id, u.concept_id, ts_rank_cd(to_tsvector('english', u.text), q) AS rank
        FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id,
             to_tsquery('english', %(query)s) q
        WHERE to_tsvector('english', u.text) @@ q AND {_unit_filters(category_ids, day)}
        ORDER BY rank DESC LIMIT %(limit)s
    """
    words = re.findall(r"[a-z0-9]+", query.lower())
    if not words:
        return []
    any_word = " | ".join(words)  # a question's words are alternatives, not all required
    with connection.cursor() as cursor:
        cursor.execute(
            sql, {"query": any_word, "limit": limit, "categories": category_ids, "day": day}
        )
        return [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]


# --- ranking --------------------------------------------------------------------------------

RRF_K = 60


def _rank(concept_rows, unit_rows, text_rows, *, mode: str, floor: float) -> list[dict]:
    concept_sim = dict(concept_rows)
    unit_sim: dict[int, float] = {}
    for _, concept_id, similarity in unit_rows:
        unit_sim[concept_id] = max(unit_sim.get(concept_id, 0.0), similarity)
    text_rank: dict[int, int] = {}
    for position, (_, concept_id, _) in enumerate(text_rows):
        text_rank.setdefault(concept_id, position + 1)
    ids = set(concept_sim) | set(unit_sim) | set(text_rank)
    rows = []
    for concept_id in ids:
        c, u = concept_sim.get(concept_id, 0.0), unit_sim.get(concept_id, 0.0)
        score = {"concept": c, "units": u, "both": max(u, (c + u) / 2 if u else c)}[mode]
        rows.append({"id": concept_id, "score": score, "concept": c, "unit": u, "text": 0.0})
    if text_rows:
        _fuse_text_ranks(rows, text_rank)
    rows = [row for row in rows if row["score"] >= floor]
    return sorted(rows, key=lambda row: row["score"], reverse=True)


def _fuse_text_ranks(rows: list[dict], text_rank: dict[int, int]) -> None:
    """Reciprocal rank fusion of the vector order with the full-text order."""
    by_vector = sorted(rows, key=lambda row: row["score"], reverse=True)
    for position, row in enumerate(by_vector, start=1):
        fused = 1 / (RRF_K + position)
        if row["id"] in text_rank:
            fused += 1 / (RRF_K + text_rank[row["id"]])
            row["text"] = 1 / text_rank[row["id"]]
        row["fused"] = fused
    order = sorted(rows, key=lambda row: row["fused"], reverse=True)
    scores = sorted((row["score"] for row in rows), reverse=True)
    for row, score in zip(order, scores, strict=True):
        row["score"] = score  # keep the similarity scale the thresholds speak


def _apply_quality(ranked: list[dict], *, quality: float, k: int, min_results: int) -> list[dict]:
    good = [dict(row, below=False) for row in ranked if row["score"] >= quality][:k]
    if len(good) < min_results:
        rest = [dict(row, below=True) for row in ranked if row["score"] < quality]
        good += rest[: min_results - len(good)]
    return good


# --- units for the chosen concepts ------------------------------------------------------------


def _load_hits(
    kept: list[dict], vector, *, topic_id: int | None, day: dt.date, visible_only: bool
) -> tuple[list[ConceptHit], TopicFacts | None]:
    """The kept concepts with their units, and what the knowledge base holds on the topic
    (the concept nearest the question), which the outcome weighs: one query for both."""
    if not kept:
        return [], None
    shown = _concepts_with_best_units(
        vector,
        concept_ids=[row["id"] for row in kept],
        topic_id=topic_id,
        day=day if visible_only else None,
    )
    concepts, units = shown.concepts, shown.units
    by_concept: dict[int, list[UnitHit]] = defaultdict(list)
    for unit, part_url in units:
        status = unit.temporal_status_on(day).value
        similarity = round(1 - unit.distance, 4)
        by_concept[unit.concept_id].append(UnitHit(unit, similarity, status, part_url))
    hits = []
    for row in kept:
        hit = ConceptHit(
            concept=concepts[row["id"]], score=round(row["score"], 4),
            concept_similarity=round(row["concept"], 4), unit_similarity=round(row["unit"], 4),
            text_rank=round(row["text"], 4), below_quality=row["below"],
        )  # fmt: skip
        hit.units = by_concept.get(row["id"], [])
        hits.append(hit)
    return hits, shown.topic


# What a search shows of a unit: vectors and page texts stay in the database (parsing a
# vector costs more than the rest of the row).
UNIT_COLUMNS_SHOWN = (
    "id", "concept_id", "unit_type", "text", "value_amount", "value_unit", "value_period",
    "valid_from", "valid_to", "superseded_by_id", "superseded_date", "evidence_quote",
    "evidence_start", "evidence_end", "evidence_verified", "provider", "review_status",
    "source_id", "snapshot_id",
)  # fmt: skip
CONCEPT_COLUMNS_SHOWN = ("id", "taxonomy_id", "name", "category_id")
CATEGORY_COLUMNS_SHOWN = ("id", "slug", "name")
# The innermost section of the unit's page that holds its quote (sections are in text
# order, so the last one holding the offset), as knowledge.parsing.section_at finds it:
# the section list stays in the database.
_PART_URL_SQL = """
    COALESCE(NULLIF((
        SELECT section->>'url' FROM jsonb_array_elements(ps.sections) WITH ORDINALITY AS s(section, n)
        WHERE (section->>'start')::int <= ranked.evidence_start AND ranked.evidence_start <= (section->>'end')::int
        ORDER BY n DESC LIMIT 1
    ), ''), src.url)
"""  # fmt: skip


@dataclass
class TopicFacts:
    """What the knowledge base holds on the question's topic: how many units (visible or
    not) and its threshold units, whatever their dates."""

    concept: Concept
    unit_count: int
    thresholds: list[AtomicUnit]


@dataclass
class _Shown:
    concepts: dict[int, Concept]
    units: list[tuple[AtomicUnit, str]]  # with its part URL
    topic: TopicFacts | None


THRESHOLD_COLUMNS = ("id", "valid_from", "valid_to", "superseded_by_id", "superseded_date")


def _concepts_with_best_units(
    vector, *, concept_ids: list[int], topic_id: int | None, day
) -> _Shown:
    """The concepts shown, and each one's units nearest the query (the top few a concept,
    ranked and cut by PostgreSQL) with their page, part URL, snapshot date and other pages,
    and the topic's facts: one query, so that only what is shown leaves the database. Plain
    SQL: the ORM spent longer building these queries than PostgreSQL spends running them."""
    visible = VISIBLE_ON_DAY if day is not None else ""
    unit_columns = ", ".join(f"u.{name}" for name in UNIT_COLUMNS_SHOWN)
    threshold_columns = ", ".join(f"t.{name}" for name in THRESHOLD_COLUMNS)
    sql = f"""
        WITH best AS MATERIALIZED (  -- ranked once, whatever the join order below
            SELECT ranked.*, src.url, ps.fetched_at, {_PART_URL_SQL},
                   ARRAY(SELECT other.url FROM knowledge_unitsighting seen
                         JOIN knowledge_source other ON other.id = seen.source_id
                         WHERE seen.unit_id = ranked.id ORDER BY other.url)
            FROM (
                SELECT {unit_columns}, u.embedding <=> %(q)s::vector AS distance,
                       row_number() OVER (
                           PARTITION BY u.concept_id ORDER BY u.embedding <=> %(q)s::vector, u.id
                       ) AS place
                FROM knowledge_atomicunit u
                WHERE u.concept_id = ANY(%(concepts)s) AND u.deleted_at IS NULL
                  AND u.embedding IS NOT NULL {visible}
            ) ranked  -- the topic's units are not shown unless the topic is kept
            JOIN knowledge_source src ON src.id = ranked.source_id
            JOIN knowledge_pagesnapshot ps ON ps.id = ranked.snapshot_id
            WHERE ranked.place <= %(per_concept)s
        )
        SELECT c.id, c.taxonomy_id, c.name, c.category_id, cat.slug, cat.name,
               CASE WHEN c.id = %(topic)s THEN (
                   SELECT count(*) FROM knowledge_atomicunit alive
                   WHERE alive.concept_id = c.id AND alive.deleted_at IS NULL
               ) END,
               CASE WHEN c.id = %(topic)s THEN (
                   SELECT json_agg(json_build_array({threshold_columns}) ORDER BY t.id)
                   FROM knowledge_atomicunit t
                   WHERE t.concept_id = c.id AND t.deleted_at IS NULL AND t.unit_type = 'threshold'
               ) END,
               best.*
        FROM knowledge_concept c
        JOIN knowledge_category cat ON cat.id = c.category_id
        LEFT JOIN best ON best.concept_id = c.id
        WHERE c.id = ANY(%(concepts)s) OR c.id = %(topic)s
        ORDER BY c.id, best.distance
    """
    params = {"q": _vector_literal(vector), "concepts": concept_ids, "topic": topic_id,
              "day": day, "per_concept": UNITS_PER_CONCEPT}  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return _rows_shown(rows, topic_id=topic_id)


def _rows_shown(rows: list[tuple], *, topic_id: int | None) -> _Shown:
    """Model instances of the shown columns (the rest deferred), one per concept, category,
    source and snapshot however many shown units share it."""
    concept_width = len(CONCEPT_COLUMNS_SHOWN) + len(CATEGORY_COLUMNS_SHOWN) - 1
    unit_start = concept_width + 2  # after the topic's unit count and thresholds
    unit_width = len(UNIT_COLUMNS_SHOWN)
    topic = None
    concepts: dict[int, Concept] = {}
    categories: dict[int, Category] = {}
    sources: dict[int, Source] = {}
    snapshots: dict[int, PageSnapshot] = {}
    units: list[tuple[AtomicUnit, str]] = []
    for row in rows:
        if row[0] not in concepts:
            concepts[row[0]] = _concept_loaded(row[:concept_width], categories)
            if row[0] == topic_id:
                topic = _topic_loaded(concepts[row[0]], *row[concept_width:unit_start])
        unit_values = row[unit_start : unit_start + unit_width]
        if unit_values[0] is None:  # a concept without a unit to show
            continue
        unit = _loaded(AtomicUnit, zip(UNIT_COLUMNS_SHOWN, unit_values, strict=True))
        distance, _place, url, fetched_at, part_url, also_found_in = row[unit_start + unit_width :]
        unit.distance = distance
        if unit.source_id not in sources:
            sources[unit.source_id] = _loaded(Source, (("id", unit.source_id), ("url", url)))
        unit.source = sources[unit.source_id]
        if unit.snapshot_id not in snapshots:
            snapshots[unit.snapshot_id] = _loaded(
                PageSnapshot, (("id", unit.snapshot_id), ("fetched_at", fetched_at))
            )
        unit.snapshot = snapshots[unit.snapshot_id]
        unit.also_found_in_urls = list(also_found_in)
        units.append((unit, part_url))
    return _Shown(concepts, units, topic)


def _topic_loaded(concept: Concept, unit_count: int, thresholds) -> TopicFacts:
    thresholds = json.loads(thresholds) if isinstance(thresholds, str) else thresholds or []
    return TopicFacts(
        concept=concept,
        unit_count=unit_count,
        thresholds=[
            _loaded(AtomicUnit, _threshold_values(values), unit_type="threshold")
            for values in thresholds
        ],
    )


def _threshold_values(values: list) -> list[tuple[str, object]]:
    """THRESHOLD_COLUMNS from JSON, where dates are ISO strings."""
    dates = ("valid_from", "valid_to", "superseded_date")
    return [
        (name, dt.date.fromisoformat(value) if name in dates and value else value)
        for name, value in zip(THRESHOLD_COLUMNS, values, strict=True)
    ]


def _concept_loaded(values: tuple, categories: dict[int, Category]) -> Concept:
    """A Concept from (id, taxonomy_id, name, category_id, category slug, category name)."""
    concept = _loaded(Concept, zip(CONCEPT_COLUMNS_SHOWN, values[:4], strict=True))
    if concept.category_id not in categories:
        category_values = (concept.category_id, *values[4:])
        categories[concept.category_id] = _loaded(
            Category, zip(CATEGORY_COLUMNS_SHOWN, category_values, strict=True)
        )
    concept.category = categories[concept.category_id]
    return concept


def _loaded(model, values, **more):
    """A model instance as the ORM loads one with only these fields (the rest deferred):
    `values` are (attname, value) pairs; Model.from_db takes them in the model's field order."""
    values = dict(values, **more)
    attnames = _field_order(model, tuple(values))
    return model.from_db(connection.alias, attnames, [values[name] for name in attnames])


@functools.cache
def _field_order(model, attnames: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f.attname for f in model._meta.concrete_fields if f.attname in attnames)


# --- outcome --------------------------------------------------------------------------------


NO_FACTS_GAP = 0.30  # the topic beats every concept that holds facts by this much
TOPIC_WORDS_SHARE = 2 / 3


def decide_outcome(*, params, hits, topic: TopicFacts | None, concept_rows, thresholds, day):
    """ok / low_confidence / no_match with machine-readable reasons, from the taxonomy (what
    topics exist), the units (what is known, and when) and the similarities together.

    The topic is the concept whose own text is nearest the question. A question near no
    concept is out of scope. A topic without units is refused when the facts found belong
    to concepts far from the question; an amount question needs a threshold that names its
    topic (facts are sometimes filed under a neighbouring concept, and those still answer).
    `topic` is loaded with the hits, so it is there whenever a concept is in scope and hits are."""
    best_concept = concept_rows[0][1] if concept_rows else 0.0
    if best_concept < thresholds["scope"]:
        return "no_match", ["out_of_scope"]
    if not hits:
        return "no_match", ["nothing_above_floor"]
    bearing = [hit for hit in hits if hit.units]
    if not bearing:
        return "no_match", ["no_rule_in_force_on_date" if params.as_of else "only_historical"]
    if (
        not topic.unit_count
        and best_concept - max(hit.concept_similarity for hit in bearing) >= NO_FACTS_GAP
    ):
        return "no_match", ["no_facts_for_concept"]
    good = [hit for hit in bearing if not hit.below_quality]
    if not good:
        return "low_confidence", ["below_quality"]
    if _AMOUNT_QUESTION.search(params.query):
        thresholds_found = _thresholds_for_topic(topic, good, day=day)
        if not thresholds_found:
            if params.as_of and topic.thresholds:
                return "no_match", ["no_rule_in_force_on_date"]
            return "low_confidence", ["no_amount_in_kb"]
        if params.as_of and not any(
            unit.valid_from and unit.valid_from <= day for unit in thresholds_found
        ):
            return "no_match", ["no_rule_in_force_on_date"]
    return "ok", []


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'s", ""))
    return {
        word[:4]
        for word in words
        if word not in _GENERIC_WORDS and (len(word) > 2 or word.isdigit())
    }


def _thresholds_for_topic(topic: TopicFacts, good, *, day) -> list[AtomicUnit]:
    """Threshold units, in force on `day`, that answer an amount question about `topic`.

    When the topic holds facts, its own thresholds decide: facts without an amount mean the
    amount is not known. When it holds none, its facts were filed under a neighbouring
    concept: thresholds among the best results that name the topic answer."""
    if topic.unit_count:
        return [
            unit
            for unit in topic.thresholds
            if unit.temporal_status_on(day) == TemporalStatus.CURRENT
        ]
    distinct = _stems(topic.concept.name) - _stems(topic.concept.category.name)
    found = []
    for hit in good[:5]:
        for unit_hit in hit.units:
            unit = unit_hit.unit
            words = _stems(f"{unit.text} {hit.concept.name}")
            if unit.unit_type == "threshold" and len(distinct & words) >= TOPIC_WORDS_SHARE * len(
                distinct
            ):
                found.append(unit)
    return found


# --- context ----------------------------------------------------------------------------------


def assemble_context(hits: list[ConceptHit], *, budget: int, day: dt.date) -> tuple[str, int]:
    """Concepts in rank order, their units grouped by source, each with its citation, cut to
    whole lines within the token budget."""
    candidates: list[str] = []
    for hit in hits:
        if not hit.units:
            continue
        candidates.append(f"## {hit.concept.name} [{hit.concept.taxonomy_id}]")
        by_source: dict[str, list[UnitHit]] = defaultdict(list)
        for unit in hit.units:
            by_source[unit.part_url].append(unit)
        for url, units in by_source.items():
            candidates.append(f"Source: {url}")
            candidates.extend(f"- {_unit_line(unit, day)}" for unit in units)
    lines: list[str] = []
    used = 0
    for line, tokens in zip(candidates, count_tokens_each(candidates), strict=True):
        cost = tokens + 1  # the newline
        if used + cost > budget:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines), used


def _unit_line(hit: UnitHit, day: dt.date) -> str:
    unit = hit.unit
    validity = ""
    if unit.valid_from or unit.valid_to:
        validity = f" (valid {unit.valid_from or '…'} to {unit.valid_to or 'now'})"
    status = "" if hit.temporal_status == "current" else f" [{hit.temporal_status} on {day}]"
    return f"{unit.text}{validity}{status}"
