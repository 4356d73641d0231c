"""How often, and how high, the API served each unit: read from the query log for curation's
review queue, which cannot import the log and gets this reader registered instead
(`curation.exposure`, registered in NavigatorConfig.ready)."""

from __future__ import annotations

import datetime as dt

from django.db import connection

from curation.exposure import TOP_RANKS, UnitExposure
from navigator.models import QueryLog

# One row per unit: every logged response that served it, its 1-based place in that
# response's list. Summed in the database, so a month of searches is not read into Python.
EXPOSURE_SQL = """
    SELECT served.unit_id::bigint, count(*), sum(1.0 / served.rank),
           count(*) FILTER (WHERE served.rank <= %(top)s)
    FROM {table} AS log
    CROSS JOIN LATERAL jsonb_array_elements_text(log.result_units)
        WITH ORDINALITY AS served(unit_id, rank)
    WHERE log.created_at >= %(since)s AND log.created_at < %(until)s
      AND jsonb_typeof(log.result_units) = 'array'
    GROUP BY served.unit_id
"""


def query_log_exposure(*, since: dt.datetime, until: dt.datetime) -> dict[int, UnitExposure]:
    """Each unit served from `since` (inclusive) to `until` (exclusive), by its id."""
    sql = EXPOSURE_SQL.format(table=connection.ops.quote_name(QueryLog._meta.db_table))
    with connection.cursor() as cursor:
        cursor.execute(sql, {"top": TOP_RANKS, "since": since, "until": until})
        rows = cursor.fetchall()
    return {
        unit_id: UnitExposure(weight=float(weight), times=times, top=top)
        for unit_id, times, weight, top in rows
    }
