"""HNSW recall against exact search, the service's own unit query against the same query
without index scans, its plan, and the sizes and settings the report quotes."""

from __future__ import annotations

import datetime as dt

import numpy as np
from django.db import connection, transaction

from knowledge import retrieval
from navigator.bench.timing import UNIT_LIMIT


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
        if exact:  # the tuning's own switches back on, index scans off: a full scan
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL enable_seqscan = on")
                cursor.execute("SET LOCAL enable_sort = on")
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


def server_setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s)", [name])
        return cursor.fetchone()[0]


def relation_bytes(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_relation_size(%s::regclass)", [name])
        return cursor.fetchone()[0]
