"""Search benchmark: the raw nearest-neighbour SQL, the search service and the HTTP API, HNSW
recall and index cost, on synthetic knowledge bases at multiples of production size.

Runs in a throwaway database (the `bench_search` command creates and drops it). At 1× the
synthetic base has the shape of the production system this design comes from: 746 concepts
and 7,753 units in 23 categories. Units cluster around their concept (VECTOR_MODELS), a
quarter are historical, and every row passes the same constraints as real data. Rows go in
with binary COPY and the HNSW indexes are built afterwards, so the build is timed on its own.

Recall depends on how the vectors spread far more than on anything in the database: random
isotropic directions in 384 dimensions (the `isotropic` model) give HNSW no gradient to
follow between clusters, while text embeddings have a low intrinsic dimension (`calibrated`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import resource
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal

import httpx
import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo

from knowledge import retrieval
from knowledge.embeddings import DIMENSIONS, get_embedder
from knowledge.models import AtomicUnit, Category, Concept, PageSnapshot, Source
from navigator.bench.serve import ServedApi, api_served

PRODUCTION_CONCEPTS = 746
PRODUCTION_UNITS = 7_753
CATEGORY_COUNT = 23
CONCEPTS_PER_SOURCE = 3  # ~30 units a page; the real gov.uk corpus has ~23
SOURCES_PER_BATCH = 300  # ~9,000 units a COPY transaction: bounded memory at any scale
K = 5
UNIT_LIMIT = 2 * K * 10  # what concept_search asks nearest_units for
FAR_QUERY_SHARE = 0.05
WARMUP_CALLS = 5
BENCH_TOKEN = "bench-search"
KNOWLEDGE_TABLES = [
    "knowledge_atomicunit",
    "knowledge_pagesnapshot",
    "knowledge_source",
    "knowledge_concept",
    "knowledge_category",
]
API_TABLES = ["navigator_querylog", "navigator_apitoken"]
# Unit life cycle: (kind, share). Expired and superseded units are the ~25% historical ones.
LIFE_SHARES = (("current", 0.73), ("expired", 0.15), ("superseded", 0.10),
               ("upcoming", 0.01), ("deleted", 0.01))  # fmt: skip
UNIT_TYPES = (("rule", 0.3), ("threshold", 0.25), ("eligibility", 0.15),
              ("definition", 0.12), ("procedure", 0.13), ("example", 0.05))  # fmt: skip
_VOCABULARY_TEXT = """allowance tax relief income pension state personal savings isa junior lifetime bonus
    rate threshold band basic higher additional earnings national insurance contributions class
    credit universal benefit child care free hours working family claim apply eligible you your
    partner spouse civil married couple blind person marriage transfer inheritance estate gift
    capital gains dividend interest property rental mortgage stamp duty land first time buyer
    student loan repayment plan postgraduate salary employer employee self employed trading
    profit loss carry forward year april january deadline return online paper penalty late
    payment account bank building society limit maximum minimum weekly monthly annual amount
    pounds percent over under age born before after live resident domicile scotland wales
    england northern ireland council band discount single occupant disabled carer attendance
    living independence payment housing support statutory sick maternity paternity adoption
    redundancy notice holiday minimum wage apprentice"""
VOCABULARY = tuple(_VOCABULARY_TEXT.split())
_WORD_COSTS = np.array([len(word) + 1 for word in VOCABULARY])  # the word and its space

Progress = Callable[[str], None]


@dataclass(frozen=True)
class VectorModel:
    """How the synthetic vectors spread around each concept's topic direction."""

    shaped: bool  # noise on a decaying spectrum (like text embeddings) rather than isotropic
    concept_cosine: tuple[float, float] | None  # concept to topic; None: the concept is the topic
    unit_cosine: tuple[float, float]  # unit to topic


VECTOR_MODELS = {
    # Random directions in all 384 dimensions, units at cosine 0.6–0.8 to their concept.
    "isotropic": VectorModel(shaped=False, concept_cosine=None, unit_cosine=(0.6, 0.8)),
    # Matches the real MiniLM vectors of the development database (1,408 units, 268
    # concepts): mean cosine unit–unit 0.24 (0.21 here), same concept 0.73 (0.74), same
    # category 0.43 (0.43), other category 0.21 (0.20), unit to own concept 0.73 (0.73), PCA
    # participation ratio 31 (29). A shared direction, a direction per category and a
    # 1/i variance spectrum give text embeddings' low intrinsic dimension.
    "calibrated": VectorModel(shaped=True, concept_cosine=(0.82, 0.89), unit_cosine=(0.82, 0.89)),
}
SHARED_WEIGHT, CATEGORY_WEIGHT = 0.29, 0.30  # shares of a calibrated topic's variance
SPECTRUM = 1 / np.arange(1, DIMENSIONS + 1)
SPECTRUM /= SPECTRUM.sum()
QUERY_COSINE = (0.8, 0.9)  # a question to its topic: ~0.6–0.75 to the topic's units


@dataclass(frozen=True)
class BenchOptions:
    queries: int = 200
    repeats: int = 3
    embedded_queries: int = 50
    seed: int = 0
    maintenance_work_mem: str = "2GB"
    vectors: str = "isotropic"
    recall_ef: tuple[int, ...] = ()  # ef_search values for recall; () is the setting's alone


@dataclass
class SyntheticBase:
    topics: np.ndarray  # per concept, the direction its units and questions gather around
    concepts: int
    units: int
    sources: int
    historical: int
    load_seconds: float
    unit_index_seconds: float
    concept_index_seconds: float


@dataclass
class BenchQueries:
    texts: list[str]
    vectors: np.ndarray
    near: np.ndarray  # False for the few drawn far from every concept


@dataclass
class Latencies:
    raw_sql_ms: list[float]
    service_ms: list[float]
    http_ms: list[float]
    http_embedded_ms: list[float]
    endpoint_ms: list[float]  # the endpoint's own `timings_ms.http`, embedding excluded
    embed_ms: list[float]  # the model's share of the embedding-included requests
    service_stages_ms: dict[str, list[float]]  # concept_search's own timings
    api_peak_mb: float = float("nan")  # the largest API worker's peak resident size
    api_model_peak_mb: float = float("nan")  # the same with the embedding model loaded


@dataclass
class ScaleResult:
    scale: float
    base: SyntheticBase
    latencies: Latencies
    recall_at_10: dict[int, list[float]]  # by ef_search
    recall_near: np.ndarray
    service_recall_at_10: list[float]
    unit_index_bytes: int
    concept_index_bytes: int
    unit_query_plan: str
    shared_buffers: str
    bench_peak_mb: float  # this process: the synthetic base's arrays, the client
    seconds: float


def p50(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


# --- one scale, end to end ---------------------------------------------------------------


def scale_run(*, scale: float, options: BenchOptions, progress: Progress) -> ScaleResult:
    """Build the synthetic base at `scale`× production in the current (throwaway) database,
    then measure. Empties the knowledge and API tables first."""
    started = time.perf_counter()
    rng = np.random.default_rng(options.seed)
    base = base_build(scale=scale, rng=rng, options=options, progress=progress)
    drawn = queries_draw(
        topics=base.topics,
        count=options.queries,
        shaped=VECTOR_MODELS[options.vectors].shaped,
        rng=rng,
    )
    floor = retrieval.thresholds_for_model(get_embedder().name)["floor"]
    day = timezone.localdate()
    progress(f"{scale:g}×: latencies ({options.queries} queries × {options.repeats} repeats)")
    plan = unit_query_plan(vector=drawn.vectors[0], floor=floor, day=day)
    latencies = latencies_measure(
        queries=drawn, options=options, floor=floor, day=day, progress=progress
    )
    bench_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    progress(f"{scale:g}×: recall against exact search")
    recall = recall_measure(
        vectors=drawn.vectors, ef_values=options.recall_ef or (settings.RETRIEVAL_EF_SEARCH,)
    )
    service_recall = service_recall_measure(vectors=drawn.vectors, floor=floor, day=day)
    return ScaleResult(
        scale=scale,
        base=base,
        latencies=latencies,
        recall_at_10=recall,
        recall_near=drawn.near,
        service_recall_at_10=service_recall,
        unit_index_bytes=_relation_bytes("unit_embedding_hnsw"),
        concept_index_bytes=_relation_bytes("concept_embedding_hnsw"),
        unit_query_plan=plan,
        shared_buffers=_setting("shared_buffers"),
        bench_peak_mb=bench_peak_mb,
        seconds=time.perf_counter() - started,
    )


# --- the synthetic knowledge base --------------------------------------------------------


def base_build(
    *, scale: float, rng: np.random.Generator, options: BenchOptions, progress: Progress
) -> SyntheticBase:
    concepts = max(1, round(PRODUCTION_CONCEPTS * scale))
    units = max(concepts, round(PRODUCTION_UNITS * scale))
    model = VECTOR_MODELS[options.vectors]
    progress(
        f"{scale:g}×: loading {concepts:,} concepts and {units:,} units ({options.vectors} vectors)"
    )
    _tables_empty()
    _hnsw_drop()
    started = time.perf_counter()
    categories = rng.integers(0, CATEGORY_COUNT, concepts)
    topics = _topics(rng, categories=categories, model=model)
    concept_vectors = (
        topics
        if model.concept_cosine is None
        else _near(rng, topics, model.concept_cosine, shaped=True)
    )
    names = _concepts_load(
        vectors=concept_vectors, categories=categories, category_ids=_categories_load(), rng=rng
    )
    del concept_vectors  # up to 115 MB at 100×, not needed again
    counts = _units_per_concept(rng, concepts=concepts, units=units)
    layout = _Layout.of(names=names, counts=counts)
    historical = _units_load(layout=layout, topics=topics, model=model, rng=rng, progress=progress)
    _vacuum_analyze()
    load_seconds = time.perf_counter() - started
    progress(f"{scale:g}×: loaded in {load_seconds:.1f} s; building the HNSW indexes")
    work_mem = options.maintenance_work_mem
    unit_seconds = _hnsw_build(AtomicUnit, "unit_embedding_hnsw", work_mem, progress)
    concept_seconds = _hnsw_build(Concept, "concept_embedding_hnsw", work_mem, progress)
    return SyntheticBase(
        topics=topics,
        concepts=concepts,
        units=units,
        sources=layout.sources,
        historical=historical,
        load_seconds=load_seconds,
        unit_index_seconds=unit_seconds,
        concept_index_seconds=concept_seconds,
    )


def _tables_empty() -> None:
    with connection.cursor() as cursor:
        tables = ", ".join(KNOWLEDGE_TABLES + API_TABLES)
        cursor.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")


def _hnsw_drop() -> None:
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS unit_embedding_hnsw, concept_embedding_hnsw")


def _hnsw_build(model, name: str, maintenance_work_mem: str, progress: Progress) -> float:
    """Create the index exactly as the model declares it. The graph must fit in
    maintenance_work_mem, or pgvector finishes the build on disk, far more slowly."""
    index = next(index for index in model._meta.indexes if index.name == name)
    connection.ensure_connection()
    psycopg_connection = connection.connection

    def notice(diagnostic) -> None:
        progress(f"  PostgreSQL: {diagnostic.message_primary}")

    psycopg_connection.add_notice_handler(notice)
    started = time.perf_counter()
    try:
        with connection.schema_editor() as editor:
            editor.execute(f"SET LOCAL maintenance_work_mem = '{maintenance_work_mem}'")
            editor.add_index(model, index)
    finally:
        psycopg_connection.remove_notice_handler(notice)
    return time.perf_counter() - started


def _vacuum_analyze() -> None:
    """As autovacuum would have done by the time anyone searches: planner statistics, and
    no hint-bit writes in the first timed reads."""
    with connection.cursor() as cursor:
        for table in KNOWLEDGE_TABLES:
            cursor.execute(f"VACUUM ANALYZE {table}")


def _random_unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    return _normalised(rng.standard_normal((count, DIMENSIONS), dtype=np.float32))


def _normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def _noise(rng: np.random.Generator, count: int, *, shaped: bool) -> np.ndarray:
    """Random vectors of expected length 1, isotropic or on the decaying spectrum."""
    noise = rng.standard_normal((count, DIMENSIONS), dtype=np.float32)
    scale = np.sqrt(SPECTRUM) if shaped else np.sqrt(1 / DIMENSIONS)
    return noise * scale.astype(np.float32)


def _topics(rng: np.random.Generator, *, categories: np.ndarray, model: VectorModel) -> np.ndarray:
    if not model.shaped:
        return _random_unit_vectors(rng, len(categories))
    shared = _normalised(_noise(rng, 1, shaped=True))
    by_category = _normalised(_noise(rng, CATEGORY_COUNT, shaped=True))
    own = _normalised(_noise(rng, len(categories), shaped=True))
    own_weight = 1 - SHARED_WEIGHT - CATEGORY_WEIGHT
    return _normalised(
        np.sqrt(SHARED_WEIGHT) * shared
        + np.sqrt(CATEGORY_WEIGHT) * by_category[categories]
        + np.sqrt(own_weight) * own
    )


def _near(
    rng: np.random.Generator, centres: np.ndarray, cosine: tuple[float, float], *, shaped: bool
) -> np.ndarray:
    """Vectors at cosine ~U(cosine) to their centres: noise of length `spread`, nearly
    orthogonal to the centre, gives cos = 1 / sqrt(1 + spread²) (shaped noise less exactly)."""
    target = rng.uniform(*cosine, len(centres)).astype(np.float32)
    spread = np.sqrt(1 / target**2 - 1)
    return _normalised(centres + _noise(rng, len(centres), shaped=shaped) * spread[:, None])


def _texts(rng: np.random.Generator, count: int, *, shortest: int, longest: int) -> list[str]:
    """Word salad from the vocabulary, skewed to short like real units, within the bounds."""
    longest_word = max(_WORD_COSTS)
    span = longest - shortest - longest_word - 1
    targets = shortest + longest_word + (span * rng.beta(1.5, 4, count)).astype(int)
    words = rng.integers(0, len(VOCABULARY), (count, longest // 3 + 1))
    ends = np.cumsum(_WORD_COSTS[words], axis=1)  # text length with its final "." is ends[n-1]
    taken = (ends <= targets[:, None]).sum(axis=1)
    return [
        " ".join([VOCABULARY[j] for j in row[:n]]).capitalize() + "."
        for row, n in zip(words, taken, strict=True)
    ]


def _choices(rng: np.random.Generator, table: tuple, count: int) -> list[str]:
    names, shares = zip(*table, strict=True)
    return rng.choice(names, size=count, p=shares).tolist()  # plain str for psycopg


def _units_per_concept(rng: np.random.Generator, *, concepts: int, units: int) -> np.ndarray:
    """At least one unit each, the rest skewed: a few concepts hold many units."""
    weights = rng.lognormal(0, 0.8, concepts)
    return 1 + rng.multinomial(units - concepts, weights / weights.sum())


@contextmanager
def _copy_cursor():
    """The psycopg cursor under Django's, able to send vectors in binary COPY. The vector
    type is registered on this cursor only, so Django's own queries are unchanged."""
    with connection.cursor() as wrapper:
        cursor = wrapper.cursor
        register_vector_info(cursor, TypeInfo.fetch(cursor.connection, "vector"))
        yield cursor


def _copy(cursor, model, columns: tuple[tuple[str, str], ...], rows: Iterable[tuple]) -> None:
    """Binary COPY of `rows` into the given (column, type) pairs. Other NOT NULL columns,
    such as one a later migration adds, get the model field's default."""
    unset = _unset_columns(model, given={name for name, _ in columns})
    columns = columns + tuple((name, pg_type) for name, pg_type, _ in unset)
    defaults = tuple(default for _, _, default in unset)
    names = ", ".join(f'"{name}"' for name, _ in columns)
    with cursor.copy(
        f"COPY {model._meta.db_table} ({names}) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types([pg_type for _, pg_type in columns])
        for row in rows:
            copy.write_row(row + defaults)


def _unset_columns(model, *, given: set[str]) -> list[tuple[str, str, object]]:
    unset = []
    for field in model._meta.concrete_fields:
        if field.column in given or field.null:
            continue
        default = field.get_default()
        if default is None:
            raise ValueError(f"the benchmark cannot fill {model._meta.db_table}.{field.column}: add it to its columns")  # fmt: skip
        unset.append((field.column, field.db_type(connection).split("(")[0], default))
    return unset


def _categories_load() -> list[int]:
    categories = Category.objects.bulk_create(
        Category(slug=f"category-{n}", name=f"Category {n}", description="Synthetic", order=n)
        for n in range(1, CATEGORY_COUNT + 1)
    )
    return [category.pk for category in categories]


CONCEPT_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"),
    ("taxonomy_id", "text"), ("category_id", "int8"), ("name", "text"), ("description", "text"),
    ("status", "text"), ("embedding", "vector"), ("embedding_model", "text"),
    ("embedding_text_hash", "text"),
)  # fmt: skip


def _concepts_load(
    *, vectors: np.ndarray, categories: np.ndarray, category_ids: list[int], rng
) -> list[str]:
    """Concept ids are 1..n in vector order. A few are not active, as in production."""
    count, now, model = len(vectors), timezone.now(), get_embedder().name
    names = [text[:-1] for text in _texts(rng, count, shortest=20, longest=60)]
    descriptions = _texts(rng, count, shortest=60, longest=200)
    statuses = _choices(rng, (("active", 0.97), ("proposed", 0.02), ("retired", 0.01)), count)
    rows = (
        (
            n + 1,
            now,
            now,
            f"category_{categories[n] + 1}.concept_{n + 1}",
            category_ids[categories[n]],
            names[n],
            descriptions[n],
            statuses[n],
            vectors[n],
            model,
            "",
        )
        for n in range(count)
    )
    with transaction.atomic(), _copy_cursor() as cursor:
        _copy(cursor, Concept, CONCEPT_COLUMNS, rows)
    return names


SOURCE_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"), ("url", "text"),
    ("base_path", "text"), ("title", "text"), ("document_type", "text"), ("content_hash", "text"),
    ("last_fetched_at", "timestamptz"), ("status", "text"), ("status_reason", "text"),
    ("current_snapshot_id", "int8"),
)  # fmt: skip
SNAPSHOT_COLUMNS = (
    ("id", "int8"), ("source_id", "int8"), ("content_hash", "text"), ("raw_hash", "text"),
    ("origin", "text"), ("raw", "jsonb"), ("text", "text"), ("sections", "jsonb"),
    ("period_hint", "text"), ("fetched_at", "timestamptz"),
)  # fmt: skip
UNIT_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"),
    ("concept_id", "int8"), ("ordinal", "int4"), ("unit_type", "text"), ("text", "text"),
    ("value_amount", "numeric"), ("value_unit", "text"), ("value_period", "text"),
    ("valid_from", "date"), ("valid_to", "date"), ("superseded_by_id", "int8"),
    ("superseded_date", "date"), ("source_id", "int8"), ("snapshot_id", "int8"),
    ("evidence_quote", "text"), ("evidence_start", "int4"), ("evidence_end", "int4"),
    ("evidence_verified", "bool"), ("review_status", "text"), ("provider", "text"),
    ("provider_model", "text"), ("validity_basis", "text"), ("fingerprint", "text"),
    ("embedding", "vector"), ("embedding_model", "text"), ("deleted_at", "timestamptz"),
)  # fmt: skip


@dataclass
class _Layout:
    """Where every unit goes: unit ids run on in concept order, and source n (from 0) holds
    concepts CONCEPTS_PER_SOURCE·n onwards. Concept, source and snapshot ids are index + 1."""

    names: list[str]  # of the concepts
    counts: np.ndarray  # units per concept
    first_unit_ids: np.ndarray

    @classmethod
    def of(cls, *, names: list[str], counts: np.ndarray) -> _Layout:
        return cls(names, counts, np.concatenate([[1], 1 + np.cumsum(counts)[:-1]]))

    @property
    def sources(self) -> int:
        return -(-len(self.names) // CONCEPTS_PER_SOURCE)

    def concepts_of(self, sources: range) -> range:
        return range(
            sources.start * CONCEPTS_PER_SOURCE,
            min(sources.stop * CONCEPTS_PER_SOURCE, len(self.names)),
        )

    def unit_ids_of(self, concept: int) -> range:
        first = int(self.first_unit_ids[concept])
        return range(first, first + int(self.counts[concept]))


@dataclass
class _UnitDraft:
    """Random draws for a batch's units, in unit id order from `first_id`."""

    first_id: int
    vectors: np.ndarray
    texts: list[str]
    kinds: list[str]
    types: list[str]
    amounts: np.ndarray
    approved: np.ndarray
    model: str


@dataclass
class _BatchRows:
    sources: list[tuple]
    snapshots: list[tuple]
    units: list[tuple]
    historical: int


def _units_load(
    *, layout: _Layout, topics: np.ndarray, model: VectorModel, rng, progress: Progress
) -> int:
    """Sources, their one snapshot each, and the units, a batch of sources per transaction
    (foreign keys are deferred, so each batch only has to be whole by its commit). Returns
    how many units are historical."""
    historical = loaded = reported = 0
    total = int(layout.counts.sum())
    for first in range(0, layout.sources, SOURCES_PER_BATCH):
        batch = range(first, min(first + SOURCES_PER_BATCH, layout.sources))
        rows = _batch_rows(batch=batch, layout=layout, topics=topics, model=model, rng=rng)
        with transaction.atomic(), _copy_cursor() as cursor:
            _copy(cursor, Source, SOURCE_COLUMNS, rows.sources)
            _copy(cursor, PageSnapshot, SNAPSHOT_COLUMNS, rows.snapshots)
            _copy(cursor, AtomicUnit, UNIT_COLUMNS, rows.units)
        historical += rows.historical
        loaded += len(rows.units)
        if loaded - reported >= total / 10 or loaded == total:
            progress(f"  {loaded:,}/{total:,} units")
            reported = loaded
    return historical


def _batch_rows(
    *, batch: range, layout: _Layout, topics: np.ndarray, model: VectorModel, rng
) -> _BatchRows:
    concepts = layout.concepts_of(batch)
    owners = np.repeat(np.arange(concepts.start, concepts.stop), layout.counts[concepts.start : concepts.stop])  # fmt: skip
    draft = _UnitDraft(
        first_id=int(layout.first_unit_ids[concepts.start]),
        vectors=_near(rng, topics[owners], model.unit_cosine, shaped=model.shaped),
        texts=_texts(rng, len(owners), shortest=80, longest=400),
        kinds=_choices(rng, LIFE_SHARES, len(owners)),
        types=_choices(rng, UNIT_TYPES, len(owners)),
        amounts=rng.integers(1, 100_000, len(owners)),
        approved=rng.random(len(owners)) < 0.8,
        model=get_embedder().name,
    )
    rows = _BatchRows([], [], [], 0)
    for source in batch:
        _source_rows(rows, source=source, layout=layout, draft=draft)
    return rows


def _source_rows(rows: _BatchRows, *, source: int, layout: _Layout, draft: _UnitDraft) -> None:
    """One source, its snapshot (the concepts' headings and unit texts, in which each unit's
    evidence offsets point at its quote) and its units."""
    source_id, now = source + 1, timezone.now()
    url = f"https://www.gov.uk/synthetic-guide-{source_id}"
    pieces, sections, position = [], [], 0
    for part, concept in enumerate(layout.concepts_of(range(source, source + 1)), start=1):
        heading = layout.names[concept] + "\n"
        section_start, position = position, position + len(heading)
        pieces.append(heading)
        ids = layout.unit_ids_of(concept)
        lives = _lives(ids, [draft.kinds[unit_id - draft.first_id] for unit_id in ids])
        for unit_id, life in zip(ids, lives, strict=True):
            row = _unit_row(unit_id, concept=concept + 1, source=source_id, life=life, start=position, draft=draft, now=now)  # fmt: skip
            rows.units.append(row)
            rows.historical += life["historical"]
            pieces.append(row[UNIT_TEXT] + "\n")
            position += len(row[UNIT_TEXT]) + 1
        heading_path = [layout.names[concept]]
        sections.append({"start": section_start, "end": position, "level": 2, "url": f"{url}/part-{part}", "heading_path": heading_path})  # fmt: skip
    text = "".join(pieces)
    content_hash = hashlib.sha256(text.encode()).hexdigest()
    base_path = url.removeprefix("https://www.gov.uk")
    rows.sources.append((source_id, now, now, url, base_path, f"Guide {source_id}", "guide", content_hash, now, "ok", "", source_id))  # fmt: skip
    rows.snapshots.append((source_id, source_id, content_hash, content_hash, url, {"synthetic": True}, text, sections, "", now))  # fmt: skip


def _lives(ids: range, kinds: list[str]) -> list[dict]:
    """Ordinals 1..n for the living units. A concept's superseded units form one chain, a
    year apart each, ending at its last current unit, as approved decisions leave them
    (the database refuses overlapping or branching chains); without a current unit they
    have simply expired."""
    today, year = timezone.localdate(), dt.timedelta(days=365)
    current = [unit_id for unit_id, kind in zip(ids, kinds, strict=True) if kind == "current"]
    successor = current[-1] if current else None
    kinds = ["expired" if kind == "superseded" and successor is None else kind for kind in kinds]
    chain = [unit_id for unit_id, kind in zip(ids, kinds, strict=True) if kind == "superseded"]
    chain_starts = {
        unit_id: today - (len(chain) + 1 - place) * year for place, unit_id in enumerate(chain)
    }
    chain_starts[successor] = today - year
    next_in_chain = dict(zip(chain, [*chain[1:], successor], strict=False))  # [] when no chain
    lives, ordinal = [], 0
    for unit_id, kind in zip(ids, kinds, strict=True):
        ordinal += kind != "deleted"
        life = {
            "ordinal": ordinal if kind != "deleted" else None,
            "historical": kind in ("expired", "superseded"),
            "valid_from": today - year,
            "valid_to": None,
            "superseded_by": None,
            "superseded_date": None,
            "deleted_at": timezone.now() if kind == "deleted" else None,
        }
        if kind == "expired":
            life |= {"valid_from": today - 3 * year, "valid_to": today - 2 * year}
        elif kind == "superseded":
            replacement = next_in_chain[unit_id]
            life |= {
                "valid_from": chain_starts[unit_id],
                "superseded_by": replacement,
                "superseded_date": chain_starts[replacement],
            }
        elif kind == "upcoming":
            life["valid_from"] = today + year
        lives.append(life)
    return lives


UNIT_TEXT = 6  # position of `text` in UNIT_COLUMNS


def _unit_row(
    unit_id: int, *, concept: int, source: int, life: dict, start: int, draft: _UnitDraft, now: dt.datetime
) -> tuple:  # fmt: skip
    n = unit_id - draft.first_id
    text, unit_type = draft.texts[n], draft.types[n]
    amount = Decimal(int(draft.amounts[n])) if unit_type == "threshold" else None
    return (
        unit_id, now, now, concept, life["ordinal"], unit_type, text, amount,
        "GBP" if amount is not None else "", "year" if amount is not None else "",
        life["valid_from"], life["valid_to"], life["superseded_by"], life["superseded_date"],
        source, source, text, start, start + len(text), True,
        "approved" if draft.approved[n] else "pending", "heuristic", "", "synthetic",
        hashlib.sha256(text.lower().encode()).hexdigest(), draft.vectors[n], draft.model,
        life["deleted_at"],
    )  # fmt: skip


# --- queries -------------------------------------------------------------------------------


def queries_draw(
    *, topics: np.ndarray, count: int, shaped: bool, rng: np.random.Generator
) -> BenchQueries:
    """Questions near a random concept's topic (answerable: ~0.6–0.75 to its units), and a
    few random directions, which in 384 dimensions are near nothing (out of scope)."""
    far = max(1, round(count * FAR_QUERY_SHARE))
    picks = rng.integers(0, len(topics), count - far)
    vectors = np.concatenate(
        [_near(rng, topics[picks], QUERY_COSINE, shaped=shaped), _random_unit_vectors(rng, far)]
    )
    near = np.arange(count) < count - far
    order = rng.permutation(count)
    # Unique texts of realistic length: the lookup embedder finds each vector by its text.
    texts = [
        f"benchmark question {n}: {words}"
        for n, words in enumerate(_texts(rng, count, shortest=30, longest=90))
    ]
    return BenchQueries(texts=texts, vectors=vectors[order], near=near[order])


# --- latencies -------------------------------------------------------------------------------


def latencies_measure(
    *, queries: BenchQueries, options: BenchOptions, floor: float, day: dt.date, progress: Progress
) -> Latencies:
    """Each path goes over all the questions in a pass of its own, the passes in turn and in
    a rotating order. Timing the three paths question by question favoured the later ones:
    the first to ask left the index pages in shared_buffers (at 100×, 47 ms p50 for the
    service against 33 ms for HTTP around it). Then HTTP with the real embedder on a few.
    The API runs in gunicorn workers of its own (navigator.bench.serve)."""
    pairs = list(zip(queries.texts, queries.vectors, strict=True))
    result = Latencies([], [], [], [], [], [], defaultdict(list))
    for vector in queries.vectors:  # brings pages into the OS cache, untimed
        _raw_sql_ms(vector, floor=floor, day=day)
    with _api_client(dict(pairs), embed=False) as (client, server):
        for text, vector in pairs[:WARMUP_CALLS]:
            _service_timings(vector)
            _http_timings(client, text=text)
        passes = [
            lambda: _raw_sql_pass(result, pairs, floor=floor, day=day),
            lambda: _service_pass(result, pairs),
            lambda: _http_pass(result, pairs, client=client),
        ]
        for repeat in range(options.repeats):
            progress(f"  repeat {repeat + 1}/{options.repeats}")
            turn = repeat % len(passes)
            for timed_pass in passes[turn:] + passes[:turn]:
                timed_pass()
        result.api_peak_mb = server.workers_peak_mb()
    if options.embedded_queries:
        progress(f"  HTTP with the local embedder ({options.embedded_queries} queries)")
        with _api_client(dict(pairs), embed=True) as (client, server):
            _http_embedded_pass(result, queries.texts[: options.embedded_queries], client=client)
            result.api_model_peak_mb = server.workers_peak_mb()
    return result


def _raw_sql_pass(result: Latencies, pairs: list, *, floor: float, day: dt.date) -> None:
    for _, vector in pairs:
        result.raw_sql_ms.append(_raw_sql_ms(vector, floor=floor, day=day))


def _service_pass(result: Latencies, pairs: list) -> None:
    for _, vector in pairs:
        elapsed, stages = _service_timings(vector)
        result.service_ms.append(elapsed)
        for stage, ms in stages.items():
            result.service_stages_ms[stage].append(ms)


def _http_pass(result: Latencies, pairs: list, *, client: httpx.Client) -> None:
    for text, _ in pairs:
        elapsed, stages = _http_timings(client, text=text)
        result.http_ms.append(elapsed)
        result.endpoint_ms.append(stages["http"])


def _http_embedded_pass(result: Latencies, texts: list[str], *, client: httpx.Client) -> None:
    for text in texts[: 2 * WARMUP_CALLS]:  # the model's first calls are far slower
        _http_timings(client, text=text)
    for text in texts:
        elapsed, stages = _http_timings(client, text=text)
        result.http_embedded_ms.append(elapsed)
        result.embed_ms.append(stages["embed"])


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _raw_sql_ms(vector: np.ndarray, *, floor: float, day: dt.date) -> float:
    """Only the unit query is timed, in its transaction with the service's SET LOCALs."""
    with transaction.atomic():
        retrieval.tune_index_scans()
        started = time.perf_counter()
        retrieval.nearest_units(vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day)
        return _ms_since(started)


def _service_timings(vector: np.ndarray) -> tuple[float, dict[str, float]]:
    started = time.perf_counter()
    params = retrieval.SearchParams(query="benchmark question", k=K)
    result = retrieval.concept_search(params=params, query_vector=vector)
    return _ms_since(started), result.timings_ms


def _http_timings(client: httpx.Client, *, text: str) -> tuple[float, dict[str, float]]:
    """The round trip as the client sees it, and the stage timings the endpoint reports."""
    started = time.perf_counter()
    response = client.post("/api/v1/search", json={"query": text, "k": K})
    elapsed = _ms_since(started)
    response.raise_for_status()
    return elapsed, response.json()["timings_ms"]


@contextmanager
def _api_client(
    questions: dict[str, np.ndarray], *, embed: bool
) -> Iterator[tuple[httpx.Client, ServedApi]]:
    """A client holding a fresh token, and the API served by its own processes."""
    from navigator.models import ApiToken  # the benchmark reaches into navigator for these
    from navigator.services import api_token_create

    ApiToken.objects.filter(name=BENCH_TOKEN).delete()
    _, raw = api_token_create(name=BENCH_TOKEN)
    served = api_served(questions=questions, model_name=get_embedder().name, embed=embed)
    with _quiet_httpx(), served as server, _client(server.base_url, token=raw) as client:
        yield client, server


def _client(base_url: str, *, token: str) -> httpx.Client:
    # trust_env=False: a proxy from the environment must not sit between client and server.
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
        trust_env=False,
    )


@contextmanager
def _quiet_httpx() -> Iterator[None]:
    """httpx logs every request at INFO, which would bury the progress output."""
    logger = logging.getLogger("httpx")
    saved = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(saved)


# --- recall, plans, sizes ----------------------------------------------------------------------


def recall_measure(*, vectors: np.ndarray, ef_values: tuple[int, ...]) -> dict[int, list[float]]:
    truths = [_top_ids(vector, ef_search=None) for vector in vectors]
    return {
        ef: [
            _overlap(_top_ids(vector, ef_search=ef), truth)
            for vector, truth in zip(vectors, truths, strict=True)
        ]
        for ef in ef_values
    }


def _top_ids(vector: np.ndarray, *, ef_search: int | None, limit: int = 10) -> list[int]:
    """The nearest units, no filters, by the HNSW index (sequential scans off so that even
    a tiny table goes through it) or, without an ef_search, by an exact scan."""
    with transaction.atomic(), connection.cursor() as cursor:
        if ef_search is None:
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
        else:
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [ef_search])
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            "SELECT id FROM knowledge_atomicunit ORDER BY embedding <=> %s::vector LIMIT %s",
            [retrieval.vector_literal(vector), limit],
        )
        return [row[0] for row in cursor.fetchall()]


def _overlap(found: list[int], truth: list[int]) -> float:
    return len(set(found) & set(truth)) / len(truth)


def service_recall_measure(*, vectors: np.ndarray, floor: float, day: dt.date) -> list[float]:
    """The service's own unit query (filters, floor, iterative scan) against the same query
    with index scans off, over its top 10; questions with nothing above the floor are left out."""
    recalls = []
    for vector in vectors:
        truth = _service_unit_ids(vector, floor=floor, day=day, exact=True)
        if truth:
            recalls.append(
                _overlap(_service_unit_ids(vector, floor=floor, day=day, exact=False), truth)
            )
    return recalls


def _service_unit_ids(vector: np.ndarray, *, floor: float, day: dt.date, exact: bool) -> list[int]:
    with transaction.atomic():
        retrieval.tune_index_scans()
        if exact:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL enable_indexscan = off")
                cursor.execute("SET LOCAL enable_bitmapscan = off")
        rows = retrieval.nearest_units(
            vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day
        )
    return [row[0] for row in rows[:10]]


def unit_query_plan(*, vector: np.ndarray, floor: float, day: dt.date) -> str:
    """EXPLAIN ANALYZE of the very SQL nearest_units sends, caught on its way out."""
    sent: list[tuple[str, object]] = []

    def catch(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with transaction.atomic():
        retrieval.tune_index_scans()
        with connection.execute_wrapper(catch):
            retrieval.nearest_units(
                vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day
            )
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sent[0][0], sent[0][1])
            return "\n".join(row[0] for row in cursor.fetchall())


def _setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s)", [name])
        return cursor.fetchone()[0]


def _relation_bytes(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_relation_size(%s::regclass)", [name])
        return cursor.fetchone()[0]
