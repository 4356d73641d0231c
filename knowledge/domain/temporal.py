"""Temporal status of a unit on a given day, following the UK tax year.

A tax year runs from 6 April to 5 April. Validity dates are inclusive on both ends, so a
unit valid for the 2024 to 2025 tax year (2024-04-06 .. 2025-04-05) is current on
5 April 2025 and historical from 6 April 2025. A unit stops being current on the day it is
superseded (the newer rule applies from that day).

A unit whose period has ended is historical when the knowledge base holds a newer period for
its concept (another living unit of the concept valid from after its end), and otherwise
outdated: the newest figure known, which a search serves marked, never as current. A gap
between two known periods is historical.

The rule is written once, as data (`TEMPORAL_RULE`, `NEWER_PERIOD`), and rendered three
ways: the Python function `temporal_status`, the ORM expression `temporal_status_expression`
(for `AtomicUnitQuerySet.with_temporal_status`) and the raw SQL of `status_sql` (for
retrieval's hand-written queries: `in_force_sql`, `served_sql`), so a unit's status cannot
differ between them.
"""

from __future__ import annotations

import datetime as dt
import operator
from dataclasses import dataclass
from enum import StrEnum

from django.db.models import Case, CharField, Exists, OuterRef, Q, QuerySet, Value, When
from django.utils import timezone


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
UNITS_TABLE = "knowledge_atomicunit"


@dataclass(frozen=True)
class NewerPeriod:
    """The knowledge base holds a newer period for a unit's fact: another living unit of the
    same concept is valid from after the unit's period ends."""

    group: str = "concept"  # a foreign key of AtomicUnit: the fact's concept
    starts: str = "valid_from"
    ends: str = "valid_to"
    removed: str = "deleted_at"  # unset on a living unit

    def known(self, unit_ends: dt.date | None, others: list[tuple[dt.date | None, bool]]) -> bool:
        """From the unit's end and its concept's other units as (start, living) pairs."""
        return unit_ends is not None and any(
            alive and start is not None and start > unit_ends for start, alive in others
        )

    def q(self, units: QuerySet) -> Exists:
        """Over `units` (AtomicUnit's manager or queryset), for the unit of the outer query."""
        return Exists(
            units.filter(
                **{
                    self.group: OuterRef(self.group),
                    f"{self.removed}__isnull": True,
                    f"{self.starts}__gt": OuterRef(self.ends),
                }
            )
        )

    def sql(self, *, table: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM {UNITS_TABLE} newer WHERE newer.{self.group}_id ="
            f" {table}.{self.group}_id AND newer.{self.removed} IS NULL"
            f" AND newer.{self.starts} > {table}.{self.ends})"
        )


NEWER_PERIOD = NewerPeriod()


@dataclass(frozen=True)
class TemporalClause:
    """A unit has `status` on a day when its `date` compares to the day as `comparison`
    says (an unset date matches when `unset_matches`), and, for a clause with a `link`,
    only while that link (a foreign key) is set; for a clause with `newer_period` set, only
    when the knowledge base holds a newer period for the unit's fact (True) or none (False)."""

    status: TemporalStatus
    date: str  # a date field of AtomicUnit; its column has the same name
    comparison: str  # a key of _COMPARISONS: "<=" reached, ">" not yet, "<" passed
    unset_matches: bool
    link: str | None = None
    newer_period: bool | None = None

    def holds(
        self,
        *,
        dates: dict[str, dt.date | None],
        links: dict[str, bool],
        newer_period_known: bool,
        day,
    ) -> bool:
        if self.link is not None and not links[self.link]:
            return False
        if self.newer_period is not None and newer_period_known != self.newer_period:
            return False
        value = dates[self.date]
        if value is None:
            return self.unset_matches
        return _COMPARISONS[self.comparison][0](value, day)

    def q(self, day: Value, *, newer_period: Exists) -> Q:
        compared = Q(**{f"{self.date}__{_COMPARISONS[self.comparison][1]}": day})
        holds = Q(**{f"{self.date}__isnull": True}) | compared if self.unset_matches else compared
        if self.link:
            holds = Q(**{f"{self.link}__isnull": False}) & holds
        if self.newer_period is not None:
            holds &= Q(newer_period) if self.newer_period else ~Q(newer_period)
        return holds

    def sql(self, *, table: str, day: str) -> str:
        """The clause as a condition that is true or false, never NULL, so it may be negated."""
        column = f"{table}.{self.date}"
        compared = f"{column} {self.comparison} {day}"
        if self.unset_matches:
            holds = f"{column} IS NULL OR {compared}"
        else:
            holds = f"{column} IS NOT NULL AND {compared}"
        if self.link:
            holds = f"{table}.{self.link}_id IS NOT NULL AND ({holds})"
        if self.newer_period is not None:
            newer = NEWER_PERIOD.sql(table=table)
            holds = f"({holds}) AND {'' if self.newer_period else 'NOT '}{newer}"
        return holds


# Read top down: the first clause that holds decides; a unit no clause holds for is current.
TEMPORAL_RULE = (
    # Superseded: historical from its superseded date on, at once when that date is unset.
    TemporalClause(
        TemporalStatus.HISTORICAL, "superseded_date", "<=", unset_matches=True, link="superseded_by"
    ),
    TemporalClause(TemporalStatus.UPCOMING, "valid_from", ">", unset_matches=False),
    # Ended: historical when a newer period is known, else the newest figure held, outdated.
    TemporalClause(
        TemporalStatus.HISTORICAL, "valid_to", "<", unset_matches=False, newer_period=True
    ),
    TemporalClause(TemporalStatus.OUTDATED, "valid_to", "<", unset_matches=False),
)
# What a search shows unless asked for history too: the units in force and the newest
# figures held past their period (marked outdated).
SERVED = (TemporalStatus.CURRENT, TemporalStatus.OUTDATED)


def temporal_status(
    *,
    valid_from: dt.date | None,
    valid_to: dt.date | None,
    superseded_date: dt.date | None,
    is_superseded: bool,
    newer_period_known: bool,
    as_of: dt.date,
) -> TemporalStatus:
    """Status of a unit on `as_of`; open-ended dates (None) never end or never start.
    `newer_period_known`: NEWER_PERIOD holds for the unit."""
    dates = {"valid_from": valid_from, "valid_to": valid_to, "superseded_date": superseded_date}
    links = {"superseded_by": is_superseded}
    for clause in TEMPORAL_RULE:
        if clause.holds(dates=dates, links=links, newer_period_known=newer_period_known, day=as_of):
            return clause.status
    return TemporalStatus.CURRENT


def temporal_status_expression(as_of: dt.date, *, units: QuerySet) -> Case:
    """The rule as an ORM expression over AtomicUnit's fields: the status's value. `units`:
    AtomicUnit's manager, which the newer period is looked for in."""
    day = Value(as_of)
    newer_period = NEWER_PERIOD.q(units)
    return Case(
        *(
            When(clause.q(day, newer_period=newer_period), then=Value(clause.status.value))
            for clause in TEMPORAL_RULE
        ),
        default=Value(TemporalStatus.CURRENT.value),
        output_field=CharField(),
    )


def status_sql(*, table: str, day: str) -> str:
    """The rule as an SQL expression whose value is the status of the units of `table` (an
    alias of knowledge_atomicunit) on `day` (a placeholder such as %(day)s)."""
    whens = " ".join(
        f"WHEN {clause.sql(table=table, day=day)} THEN '{clause.status.value}'"
        for clause in TEMPORAL_RULE
    )
    return f"(CASE {whens} ELSE '{TemporalStatus.CURRENT.value}' END)"


def in_force_sql(*, table: str, day: str) -> str:
    """An SQL condition, starting with AND, that keeps the units of `table` current on `day`."""
    return _status_in_sql((TemporalStatus.CURRENT,), table=table, day=day)


def served_sql(*, table: str, day: str) -> str:
    """An SQL condition, starting with AND, that keeps the units of `table` a search serves
    on `day` unless asked for history too: current and outdated ones."""
    return _status_in_sql(SERVED, table=table, day=day)


def _status_in_sql(statuses, *, table: str, day: str) -> str:
    values = ", ".join(f"'{status.value}'" for status in statuses)
    return f"\n    AND {status_sql(table=table, day=day)} IN ({values})"


def as_of_or_today(as_of: dt.date | None) -> dt.date:
    """The day an answer holds on: the day asked about, else today."""
    return as_of or timezone.localdate()
