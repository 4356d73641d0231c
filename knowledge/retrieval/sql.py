"""The database's part of a search: nearest neighbours over the HNSW indexes with the floor
applied to the candidates, full-text matches, the index scans' tuning, and the side session
in which the concept scan runs beside the unit scan.

Kept whole: the statements of one search and the session settings they rely on (the index
scans' tuning, the side session) change together; split, each half would restate the other's
assumptions.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import psycopg
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction

from knowledge.domain.temporal import NEWER_PERIOD, served_sql
from knowledge.models import AtomicUnit

T = TypeVar("T")


_TUNED = (
    ("hnsw.ef_search", None),  # the caller's or the setting's
    ("hnsw.iterative_scan", "relaxed_order"),
    ("enable_seqscan", "off"),
    ("enable_sort", "off"),
)

# The prior values are read in a materialised CTE, so before the new ones are set.
_TUNE_SQL = (
    "WITH prior AS MATERIALIZED (SELECT "
    + ", ".join(f"current_setting('{name}', true) AS p{n}" for n, (name, _) in enumerate(_TUNED))
    + ") SELECT prior.*, "
    + ", ".join(f"set_config('{name}', %s, true)" for name, _ in _TUNED)
    + " FROM prior"
)


# --- ef_search by the table's size ------------------------------------------------------------

EF_SEARCH_MAX = 1000  # pgvector's limit
# Up to this many rows the settings' ef_search holds; beyond, it grows with the square root of
# the size. Measured on the calibrated synthetic base (bench_search --recall-ef): recall@10 of
# questions near a concept 1.000 at 7,753 units and 0.991 at 77,530 with ef_search 400; at
# 775,300 units 0.983 with 400, 0.993 with 700 and 1000.
EF_SEARCH_STEADY_ROWS = 100_000
TABLE_SIZE_CHECK_SECONDS = 60.0  # a table grows by ingestion runs, not from one second to the next


@dataclass
class _TableSize:
    rows: int = 0
    read_at: float = float("-inf")


_table_sizes: dict[str, _TableSize] = {}
_table_sizes_lock = threading.Lock()


def ef_search_for(rows: int, base: int) -> int:
    """The ef_search a table of `rows` rows is searched with: `base` up to
    EF_SEARCH_STEADY_ROWS, then base × √(rows / EF_SEARCH_STEADY_ROWS), at most 1000."""
    if rows <= EF_SEARCH_STEADY_ROWS:
        return base
    return min(EF_SEARCH_MAX, max(base, round(base * math.sqrt(rows / EF_SEARCH_STEADY_ROWS))))


def unit_ef_search() -> int:
    return ef_search_for(_table_rows("knowledge_atomicunit"), settings.RETRIEVAL_EF_SEARCH)


def concept_ef_search() -> int:
    return ef_search_for(_table_rows("knowledge_concept"), settings.RETRIEVAL_CONCEPT_EF_SEARCH)


def _table_rows(table: str) -> int:
    """The planner's estimate of the table's rows (pg_class.reltuples, kept by autovacuum and
    ANALYZE), read at most once every TABLE_SIZE_CHECK_SECONDS per process."""
    now = time.monotonic()
    with _table_sizes_lock:
        held = _table_sizes.setdefault(table, _TableSize())
        if now - held.read_at < TABLE_SIZE_CHECK_SECONDS:
            return held.rows
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = %s::regclass", [table]
        )
        row = cursor.fetchone()
    with _table_sizes_lock:
        held.rows, held.read_at = (row[0] if row else 0), now
        return held.rows


def table_sizes_forget() -> None:
    """Read the tables' sizes again at the next search (tests, and the benchmark between scales)."""
    with _table_sizes_lock:
        _table_sizes.clear()


def tune_index_scans(ef_search: int | None = None) -> tuple[str | None, ...]:
    """For the rest of this transaction (SET LOCAL), in one round trip: filtered HNSW scans
    keep searching until enough rows pass the filter (pgvector 0.8), and the planner takes
    the HNSW index whatever the table's size. Below some tens of thousands of units it would
    otherwise read every unit (the whole table, or all of it through the concept join) and
    sort them: exact, but at 7,753 units slower than the index (p95 25.6 ms against 15.4 ms
    at ten times the size), and growing with every unit until it switches. With sequential
    scans and sorts counted as disabled, the index's own order is the plan that avoids both;
    the few rows it returns are still sorted where the SQL asks. Returns the prior values."""
    values = [str(ef_search or unit_ef_search())] + [v for _, v in _TUNED[1:]]
    with connection.cursor() as cursor:
        cursor.execute(_TUNE_SQL, values)
        return tuple(cursor.fetchone()[: len(_TUNED)])


@contextmanager
def index_scans_tuned(ef_search: int | None = None) -> Iterator[None]:
    """A transaction whose queries run with tune_index_scans. Inside a caller's transaction
    (where SET LOCAL would outlive this block) the prior values are put back at its end; a
    failure rolls the savepoint back, and the settings with it."""
    outer = connection.in_atomic_block
    with transaction.atomic():
        prior = tune_index_scans(ef_search)
        yield
        if outer:
            restored = [
                (name, value) for (name, _), value in zip(_TUNED, prior, strict=True) if value
            ]
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in restored),
                    [part for pair in restored for part in pair],
                )


def _rows(sql: str, params: dict, *, ef_search: int | None) -> list[tuple]:
    """The rows of `sql`; with an `ef_search`, run with tune_index_scans. Outside a
    transaction the settings and the query go in one message, which PostgreSQL runs as one
    implicit transaction (the settings end with it): one round trip where BEGIN, the
    settings and COMMIT would each add one (~1-2 ms a search, more under load)."""
    with connection.cursor() as cursor:
        if ef_search is None:
            cursor.execute(sql, params)
        elif connection.in_atomic_block:
            with index_scans_tuned(ef_search):
                cursor.execute(sql, params)
        else:
            tuned = [("hnsw.ef_search", str(ef_search)), *_TUNED[1:]]
            settings_sql = ", ".join(
                f"set_config('{name}', '{value}', true)" for name, value in tuned
            )
            cursor.execute(f"SELECT {settings_sql};\n{sql}", params)
            cursor.nextset()
        return cursor.fetchall()


def nearest_concepts_tuned(
    *, vector_text: str, floor: float, limit: int, category_ids, reviewed_only: bool = False
):
    # The concept index is a tenth of the unit index and only its top few matter.
    return nearest_concepts(
        vector_text,
        floor=floor,
        limit=limit,
        category_ids=category_ids,
        reviewed_only=reviewed_only,
        ef_search=concept_ef_search(),
    )


# --- the side session -------------------------------------------------------------------------


def alongside(query: Callable[..., T], **kwargs) -> Callable[[], T]:
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
    request cycle, which checks and ages connections out, never runs on it). A session the
    server ended (a restart) is replaced and the query run once more, so the first search
    after a restart does not fail; any other failure closes it, and the next search starts
    a fresh session."""
    try:
        return query(**kwargs)
    except (OperationalError, InterfaceError):
        connection.close()
        return _closing_on_failure(query, kwargs)
    except Exception:
        connection.close()
        raise


def _closing_on_failure(query: Callable[..., T], kwargs: dict) -> T:
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


# --- prepared statements ---------------------------------------------------------------------

# Django's cursors bind parameters on the client and never prepare; a psycopg connection
# prepares only with a threshold set, which no cursor but prepared_rows' reaches.
_ONLY_ON_REQUEST = 2**31 - 1
_generic_plan_sessions: weakref.WeakSet = weakref.WeakSet()


def prepared_rows(sql: str, params: dict) -> list[tuple]:
    """The rows of `sql`, run as a prepared statement of this session: PostgreSQL plans it
    once and then runs it, where a long query of a search cost 3 ms of planning to 2 of
    running. Parameters are bound on the server, so a statement's text never changes; a
    plan that depends on their values (PostgreSQL decides after five runs) is replanned."""
    connection.ensure_connection()
    session = connection.connection
    if session.prepare_threshold is None:
        session.prepare_threshold = _ONLY_ON_REQUEST
    with connection.wrap_database_errors, psycopg.Cursor(session) as cursor:
        if session not in _generic_plan_sessions:
            # PostgreSQL kept planning the search's long statement for each run's values
            # (custom plans, ~1.5 ms each) although the plan never changed with them. Only
            # these statements are prepared, so the setting reaches nothing else. Inside a
            # transaction, which may be rolled back with the setting, it is set each time.
            cursor.execute("SET plan_cache_mode = force_generic_plan")
            if not connection.in_atomic_block:
                _generic_plan_sessions.add(session)
        cursor.execute(sql, params, prepare=True)
        return cursor.fetchall()


# --- the queries ------------------------------------------------------------------------------


def vector_literal(vector: np.ndarray | str) -> str:
    """pgvector's text form; a search computes it once and passes the string on."""
    if isinstance(vector, str):
        return vector
    return "[" + ",".join(map(_SIX_PLACES, vector.tolist())) + "]"


_SIX_PLACES = "{:.6f}".format


def nearest_concepts(
    vector,
    *,
    floor: float,
    limit: int,
    category_ids,
    reviewed_only: bool = False,
    ef_search: int | None = None,
) -> list[tuple[int, float]]:
    """(concept id, similarity) of the active concepts nearest `vector`, at or above `floor`;
    `reviewed_only`: only concepts holding a living reviewed unit, so that concepts with
    nothing to serve take no place among the results; `ef_search`: run tuned (_rows), else
    with the caller's settings."""
    filters = "AND category_id = ANY(%(categories)s)" if category_ids else ""
    if reviewed_only:
        filters += (
            " AND EXISTS (SELECT 1 FROM knowledge_atomicunit u WHERE u.concept_id ="
            f" knowledge_concept.id AND u.deleted_at IS NULL{reviewed_sql(table='u')})"
        )
    sql = f"""
        WITH nearest AS MATERIALIZED (
            SELECT id, embedding <=> %(q)s::vector AS distance
            FROM knowledge_concept
            WHERE status = 'active' AND embedding IS NOT NULL {filters}
            ORDER BY embedding <=> %(q)s::vector
            LIMIT %(limit)s
        )
        SELECT id, 1 - distance FROM nearest WHERE distance <= 1 - %(floor)s ORDER BY distance
    """
    params = {
        "q": vector_literal(vector),
        "limit": limit,
        "floor": floor,
        "categories": category_ids,
    }
    return [(row[0], float(row[1])) for row in _rows(sql, params, ef_search=ef_search)]


# Units of `u` (knowledge_atomicunit) in force on %(day)s, or past their period with nothing
# newer known (outdated: shown marked as such), and, from the day their page's current
# version stopped stating them, not shown (include_historical shows them); a day before that
# still sees them, as the facts of their time.
VISIBLE_ON_DAY = served_sql(table="u", day="%(day)s") + (
    "\n    AND (u.unconfirmed_at IS NULL OR u.unconfirmed_at::date > %(day)s)"
)


# Whether the knowledge base holds a newer period for the fact of unit `u`: with it, Python
# reads the unit's status by the same rule the filter above applies.
NEWER_PERIOD_KNOWN = NEWER_PERIOD.sql(table="u")


def reviewed_sql(*, table: str) -> str:
    """An SQL condition, starting with AND, that keeps the units of `table` a domain expert
    signed off or corrected (either leaves a unit approved)."""
    return f"\n    AND {table}.review_status = '{AtomicUnit.ReviewStatus.APPROVED.value}'"


def unit_filters(category_ids, day, *, reviewed_only: bool = False) -> str:
    """The units a search may show: alive, of an active concept, in the categories asked
    for, given a day, in force on it, and, when asked, reviewed."""
    filters = "u.deleted_at IS NULL AND c.status = 'active'"
    if category_ids:
        filters += " AND c.category_id = ANY(%(categories)s)"
    if day is not None:
        filters += VISIBLE_ON_DAY
    if reviewed_only:
        filters += reviewed_sql(table="u")
    return filters


def nearest_units(
    vector,
    *,
    floor: float,
    limit: int,
    category_ids,
    day,
    reviewed_only: bool = False,
    ef_search: int | None = None,
) -> list[tuple[int, int, float]]:
    """(unit id, concept id, similarity) of the shown units nearest `vector`, at or above
    `floor`, among the `limit` nearest; `ef_search`: run tuned (_rows), else with the
    caller's settings."""
    filters = unit_filters(category_ids, day, reviewed_only=reviewed_only)
    sql = f"""
        WITH nearest AS MATERIALIZED (
            SELECT u.id, u.concept_id, u.embedding <=> %(q)s::vector AS distance
            FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id
            WHERE u.embedding IS NOT NULL AND {filters}
            ORDER BY u.embedding <=> %(q)s::vector
            LIMIT %(limit)s
        )
        SELECT id, concept_id, 1 - distance FROM nearest WHERE distance <= 1 - %(floor)s ORDER BY distance
    """
    params = {
        "q": vector_literal(vector),
        "limit": limit,
        "floor": floor,
        "categories": category_ids,
        "day": day,
    }
    return [(row[0], row[1], float(row[2])) for row in _rows(sql, params, ef_search=ef_search)]


def nearest_units_each(vectors, *, floor: float, limit: int) -> list[list[int]]:
    """The ids of the live units nearest each of `vectors` (of every date), at or above
    `floor`, among the `limit` nearest each: one statement for them all, each part answered
    by the HNSW index."""
    if not vectors:
        return []
    parts, params = [], {"floor": floor, "limit": limit}
    for index, vector in enumerate(vectors):
        params[f"q{index}"] = vector_literal(vector)
        parts.append(
            f"""(SELECT {index:d} AS part, id, distance FROM (
                SELECT u.id, u.embedding <=> %(q{index:d})s::vector AS distance
                FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id
                WHERE u.embedding IS NOT NULL AND {unit_filters([], None)}
                ORDER BY u.embedding <=> %(q{index:d})s::vector
                LIMIT %(limit)s
            ) nearest WHERE distance <= 1 - %(floor)s)"""
        )
    found: list[list[int]] = [[] for _ in vectors]
    sql = " UNION ALL ".join(parts) + " ORDER BY part, distance"
    for part, unit_id, _ in _rows(sql, params, ef_search=unit_ef_search()):
        found[part].append(unit_id)
    return found


def units_similarities(ids, vectors) -> dict[int, list[float]]:
    """Each unit's cosine similarity to each of `vectors`, computed where the vectors are:
    reading a unit's 384 numbers into Python costs more than the comparisons (~0.1 ms a unit,
    parsed from text), and a claim's candidates are a few hundred."""
    ids = sorted(ids)
    if not ids or not len(vectors):
        return {}
    params = {"ids": ids}
    columns = []
    for index, vector in enumerate(vectors):
        params[f"q{index}"] = vector_literal(vector)
        columns.append(f"1 - (u.embedding <=> %(q{index:d})s::vector)")
    sql = f"""
        SELECT u.id, {", ".join(columns)} FROM knowledge_atomicunit u
        WHERE u.id = ANY(%(ids)s) AND u.embedding IS NOT NULL
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0]: [float(value) for value in row[1:]] for row in cursor.fetchall()}


def text_matches(
    query: str, *, limit: int, category_ids, day, reviewed_only: bool = False
) -> list[tuple[int, int, float]]:
    """PostgreSQL full-text matches (for hybrid ranking): (unit id, concept id, rank)."""
    filters = unit_filters(category_ids, day, reviewed_only=reviewed_only)
    sql = f"""
        SELECT u.id, u.concept_id, ts_rank_cd(to_tsvector('english', u.text), q) AS rank
        FROM knowledge_atomicunit u JOIN knowledge_concept c ON c.id = u.concept_id,
             to_tsquery('english', %(query)s) q
        WHERE to_tsvector('english', u.text) @@ q AND {filters}
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
