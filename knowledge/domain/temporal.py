"""Temporal status of a unit on a given day, following the UK tax year.

A tax year runs from 6 April to 5 April. Validity dates are inclusive on both ends, so a
unit valid for the 2024 to 2025 tax year (2024-04-06 .. 2025-04-05) is current on
5 April 2025 and historical from 6 April 2025. A unit stops being current on the day it is
superseded (the newer rule applies from that day).

The rule is written once, as data (`TEMPORAL_RULE`), and rendered three ways: the Python
function `temporal_status`, the ORM expression `temporal_status_expression` (for
`AtomicUnitQuerySet.with_temporal_status`) and the raw SQL condition `in_force_sql` (for
retrieval's hand-written queries), so a unit's status cannot differ between them.
"""

from __future__ import annotations

import datetime as dt
import operator
from dataclasses import dataclass
from enum import StrEnum

from django.db.models import Case, CharField, Q, Value, When


class TemporalStatus(StrEnum):
    CURRENT = "current"
    HISTORICAL = "historical"
    UPCOMING = "upcoming"
    # Its period has ended and the knowledge base holds no newer period for its concept: the
    # newest figure known, served marked as such, never as current.
    OUTDATED = "outdated"


# --- the rule ---------------------------------------------------------------------------------

# How a unit's date stands to the day: (Python test, ORM lookup).
_COMPARISONS = {
    "<=": (operator.le, "lte"),
    ">": (operator.gt, "gt"),
    "<": (operator.lt, "lt"),
}


@dataclass(frozen=True)
class TemporalClause:
    """A unit has `status` on a day when its `date` compares to the day as `comparison`
    says (an unset date matches when `unset_matches`), and, for a clause with a `link`,
    only while that link (a foreign key) is set."""

    status: TemporalStatus
    date: str  # a date field of AtomicUnit; its column has the same name
    comparison: str  # a key of _COMPARISONS: "<=" reached, ">" not yet, "<" passed
    unset_matches: bool
    link: str | None = None

    def holds(self, *, dates: dict[str, dt.date | None], links: dict[str, bool], day) -> bool:
        if self.link is not None and not links[self.link]:
            return False
        value = dates[self.date]
        if value is None:
            return self.unset_matches
        return _COMPARISONS[self.comparison][0](value, day)

    def q(self, day: Value) -> Q:
        compared = Q(**{f"{self.date}__{_COMPARISONS[self.comparison][1]}": day})
        holds = Q(**{f"{self.date}__isnull": True}) | compared if self.unset_matches else compared
        return Q(**{f"{self.link}__isnull": False}) & holds if self.link else holds

    def sql(self, *, table: str, day: str) -> str:
        """The clause as a condition that is true or false, never NULL, so it may be negated."""
        column = f"{table}.{self.date}"
        compared = f"{column} {self.comparison} {day}"
        if self.unset_matches:
            holds = f"{column} IS NULL OR {compared}"
        else:
            holds = f"{column} IS NOT NULL AND {compared}"
        return f"{table}.{self.link}_id IS NOT NULL AND ({holds})" if self.link else holds


# Read top down: the first clause that holds decides; a unit no clause holds for is current.
TEMPORAL_RULE = (
    # Superseded: historical from its superseded date on, at once when that date is unset.
    TemporalClause(
        TemporalStatus.HISTORICAL, "superseded_date", "<=", unset_matches=True, link="superseded_by"
    ),
    TemporalClause(TemporalStatus.UPCOMING, "valid_from", ">", unset_matches=False),
    TemporalClause(TemporalStatus.HISTORICAL, "valid_to", "<", unset_matches=False),
)


def temporal_status(
    *,
    valid_from: dt.date | None,
    valid_to: dt.date | None,
    superseded_date: dt.date | None,
    is_superseded: bool,
    as_of: dt.date,
) -> TemporalStatus:
    """Status of a unit on `as_of`; open-ended dates (None) never end or never start."""
    dates = {"valid_from": valid_from, "valid_to": valid_to, "superseded_date": superseded_date}
    links = {"superseded_by": is_superseded}
    for clause in TEMPORAL_RULE:
        if clause.holds(dates=dates, links=links, day=as_of):
            return clause.status
    return TemporalStatus.CURRENT


def temporal_status_expression(as_of: dt.date) -> Case:
    """The rule as an ORM expression over AtomicUnit's fields: the status's value."""
    day = Value(as_of)
    return Case(
        *(When(clause.q(day), then=Value(clause.status.value)) for clause in TEMPORAL_RULE),
        default=Value(TemporalStatus.CURRENT.value),
        output_field=CharField(),
    )


def in_force_sql(*, table: str, day: str) -> str:
    """SQL conditions, each starting with AND, that keep the units of `table` (an alias of
    knowledge_atomicunit) current on `day` (a placeholder such as %(day)s)."""
    return "".join(
        f"\n    AND NOT ({clause.sql(table=table, day=day)})" for clause in TEMPORAL_RULE
    )
