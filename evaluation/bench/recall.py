"""HNSW recall against exact search, the service's own unit query against the same query
without index scans, its plan, and the sizes and settings the report quotes."""

from __future__ import annotations

import datetime as dt

import numpy as np
from django.db import connection, transaction

from evaluation.bench.timing import UNIT_LIMIT
from knowledge import retrieval


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
    order = "embedding <=> %s::vector" if ef_search else _EXACT_ORDER.format(q="%s")
    with transaction.atomic(), connection.cursor() as cursor:
        if ef_search is not None:
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [ef_search])
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            f"SELECT id FROM knowledge_atomicunit ORDER BY {order} LIMIT %s",
            [retrieval.vector_literal(vector), limit],
        )
        return [row[0] for row in cursor.fetchall()]


def _overlap(found: list[int], truth: list[int]) -> float:
    return len(set(found) & set(truth)) / len(truth)


def service_recall_measure(*, vectors: np.ndarray, floor: float, day: dt.date) -> list[float]:
    """The service's own unit query (filters, floor, iterative scan) against the exact answer
    to the same query, over its top 10; questions with nothing above the floor are left out."""
    recalls = []
    for vector in vectors:
        truth = _exact_service_unit_ids(vector, floor=floor, day=day)
        if truth:
            with transaction.atomic():
                retrieval.tune_index_scans()
                rows = retrieval.nearest_units(
                    vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day
                )
            recalls.append(_overlap([row[0] for row in rows[:10]], truth))
    return recalls


# An order by distance that no index can give: the HNSW index answers `embedding <=> q`
# alone, and from a few tens of thousands of rows the planner would take it, whose answer at
# the default ef_search of 40 is neither exact nor as long as a prefix asks.
_EXACT_ORDER = "(embedding <=> {q}::vector) + 0"
# The service's FROM clause, and the same over a prefix of the units by exact distance.
_UNITS = "FROM knowledge_atomicunit u JOIN"
_NEAREST_PREFIX = (
    f"FROM (SELECT * FROM knowledge_atomicunit ORDER BY {_EXACT_ORDER.format(q='%(q)s')}"
    " LIMIT %(prefix)s) u JOIN"
)


def _exact_service_unit_ids(
    vector: np.ndarray, *, floor: float, day: dt.date, top: int = 10
) -> list[int]:
    """The top `top` of the service's unit query, exactly, without scanning every unit with
    its filters (a visibility check per unit: hours at 100×). The filters run on the nearest
    units by exact distance, a prefix that doubles until it holds `top` that pass or is the
    whole table: any unit nearer than the last found lies in the prefix, so the answer is
    the exact one."""
    sql, params = _service_unit_sql(vector, floor=floor, day=day)
    assert _UNITS in sql, "the service's unit query no longer reads knowledge_atomicunit u"
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_atomicunit")
        whole = cursor.fetchone()[0]
    prefix = 20 * top
    while True:
        with connection.cursor() as cursor:
            cursor.execute(sql.replace(_UNITS, _NEAREST_PREFIX, 1), {**params, "prefix": prefix})
            rows = cursor.fetchall()
        # Nothing left above the floor in the prefix's far end, or the prefix is everything.
        if len(rows) >= top or prefix >= whole or _farthest_below_floor(vector, prefix, floor):
            return [row[0] for row in rows[:top]]
        prefix *= 4


def _farthest_below_floor(vector: np.ndarray, prefix: int, floor: float) -> bool:
    """Whether the prefix already reaches units below the floor: beyond it none can pass."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT max(d) FROM (SELECT {_EXACT_ORDER.format(q='%s')} AS d"
            " FROM knowledge_atomicunit ORDER BY d LIMIT %s) p",
            [retrieval.vector_literal(vector), prefix],
        )
        farthest = cursor.fetchone()[0]
    return farthest is not None and farthest > 1 - floor


def _service_unit_sql(vector: np.ndarray, *, floor: float, day: dt.date) -> tuple[str, dict]:
    """The SQL and parameters nearest_units sends, caught on their way out (run tuned, so
    by the index: untuned it would check every unit)."""
    sent: list[tuple[str, dict]] = []

    def catch(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with transaction.atomic():
        retrieval.tune_index_scans()
        with connection.execute_wrapper(catch):
            retrieval.nearest_units(
                vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day
            )
    return sent[0]


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
