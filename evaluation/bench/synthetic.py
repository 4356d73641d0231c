"""The synthetic knowledge base at a multiple of production size: sources with one snapshot
each, concepts and their units with realistic life cycles, loaded with binary COPY; the HNSW
indexes are built afterwards, so the build is timed on its own."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction

from evaluation.bench.bulk_load import categories_load, concepts_load, copy_cursor, copy_rows
from evaluation.bench.draws import (
    CATEGORY_COUNT,
    VECTOR_MODELS,
    VectorModel,
    topics_draw,
    units_per_concept,
    vectors_near,
)
from evaluation.bench.options import BenchOptions, Progress
from evaluation.bench.synthetic_rows import (
    SNAPSHOT_COLUMNS,
    SOURCE_COLUMNS,
    UNIT_COLUMNS,
    Layout,
    batch_rows,
)
from knowledge.models import AtomicUnit, Concept, PageSnapshot, Source

PRODUCTION_CONCEPTS = 746
PRODUCTION_UNITS = 7_753
SOURCES_PER_BATCH = 300  # ~9,000 units a COPY transaction: bounded memory at any scale
KNOWLEDGE_TABLES = [
    "knowledge_atomicunit",
    "knowledge_pagesnapshot",
    "knowledge_source",
    "knowledge_concept",
    "knowledge_category",
]
API_TABLES = ["navigator_querylog", "navigator_apitoken"]


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


def base_build(
    *, scale: float, rng: np.random.Generator, options: BenchOptions, progress: Progress
) -> SyntheticBase:
    """Load the base at `scale`× production in the current (throwaway) database, after
    emptying its knowledge and API tables, then build the HNSW indexes."""
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
    topics = topics_draw(rng, categories=categories, model=model)
    concept_vectors = (
        topics
        if model.concept_cosine is None
        else vectors_near(rng, topics, model.concept_cosine, shaped=True)
    )
    names = concepts_load(
        vectors=concept_vectors, categories=categories, category_ids=categories_load(), rng=rng
    )
    del concept_vectors  # up to 115 MB at 100×, not needed again
    counts = units_per_concept(rng, concepts=concepts, units=units)
    layout = Layout.of(names=names, counts=counts)
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


def _units_load(
    *, layout: Layout, topics: np.ndarray, model: VectorModel, rng, progress: Progress
) -> int:
    """Sources, their one snapshot each, and the units, a batch of sources per transaction
    (foreign keys are deferred, so each batch only has to be whole by its commit). Returns
    how many units are historical."""
    historical = loaded = reported = 0
    total = int(layout.counts.sum())
    for first in range(0, layout.sources, SOURCES_PER_BATCH):
        batch = range(first, min(first + SOURCES_PER_BATCH, layout.sources))
        rows = batch_rows(batch=batch, layout=layout, topics=topics, model=model, rng=rng)
        with transaction.atomic(), copy_cursor() as cursor:
            copy_rows(cursor, Source, SOURCE_COLUMNS, rows.sources)
            copy_rows(cursor, PageSnapshot, SNAPSHOT_COLUMNS, rows.snapshots)
            copy_rows(cursor, AtomicUnit, UNIT_COLUMNS, rows.units)
        historical += rows.historical
        loaded += len(rows.units)
        if loaded - reported >= total / 10 or loaded == total:
            progress(f"  {loaded:,}/{total:,} units")
            reported = loaded
    return historical
