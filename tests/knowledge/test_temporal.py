"""Temporal status follows the UK tax year (6 April to 5 April) and superseding."""

import datetime as dt
import itertools

import pytest
from django.db import connection
from django.utils import timezone

from knowledge.domain.temporal import (
    NEWER_PERIOD,
    TemporalStatus,
    in_force_sql,
    served_sql,
    status_sql,
    temporal_status,
)
from knowledge.models import AtomicUnit
from knowledge.text.dates import tax_year_bounds, tax_year_label, tax_year_start_year
from tests.factories import ConceptFactory, UnitFactory, tax_year

CURRENT, HISTORICAL, UPCOMING, OUTDATED = TemporalStatus


def status(
    as_of,
    *,
    valid_from=None,
    valid_to=None,
    superseded_date=None,
    superseded=False,
    newer_period_known=True,
):
    return temporal_status(
        valid_from=valid_from,
        valid_to=valid_to,
        superseded_date=superseded_date,
        is_superseded=superseded,
        newer_period_known=newer_period_known,
        as_of=as_of,
    )


def test_tax_year_arithmetic_at_the_boundary():
    assert tax_year_start_year(dt.date(2025, 4, 5)) == 2024
    assert tax_year_start_year(dt.date(2025, 4, 6)) == 2025
    assert tax_year_bounds(2024) == (dt.date(2024, 4, 6), dt.date(2025, 4, 5))
    assert tax_year_label(2024) == "2024-25"
    assert tax_year_label(1999) == "1999-00"


def test_unit_for_one_tax_year_is_current_on_5_april_and_historical_on_6_april():
    first, last = tax_year(2024)
    assert status(dt.date(2025, 4, 5), valid_from=first, valid_to=last) == CURRENT
    assert status(dt.date(2025, 4, 6), valid_from=first, valid_to=last) == HISTORICAL


def test_an_ended_period_with_nothing_newer_known_is_outdated_not_historical():
    first, last = tax_year(2024)
    ended = {"valid_from": first, "valid_to": last, "newer_period_known": False}
    assert status(dt.date(2025, 4, 5), **ended) == CURRENT
    assert status(dt.date(2025, 4, 6), **ended) == OUTDATED
    assert status(dt.date(2026, 12, 1), **ended) == OUTDATED


def test_a_superseded_unit_is_historical_even_when_nothing_newer_is_dated():
    first, last = tax_year(2024)
    kwargs = {"valid_from": first, "valid_to": last, "newer_period_known": False}
    assert status(dt.date(2026, 1, 1), superseded=True, **kwargs) == HISTORICAL
    later = dt.date(2026, 6, 1)
    assert status(dt.date(2026, 1, 1), superseded=True, superseded_date=later, **kwargs) == OUTDATED


def test_unit_starting_next_tax_year_is_upcoming_on_5_april_and_current_on_6_april():
    first, last = tax_year(2025)
    assert status(dt.date(2025, 4, 5), valid_from=first, valid_to=last) == UPCOMING
    assert status(dt.date(2025, 4, 6), valid_from=first, valid_to=last) == CURRENT


@pytest.mark.parametrize(
    "as_of,expected",
    [
        (dt.date(1990, 1, 1), UPCOMING),
        (dt.date(2024, 4, 6), CURRENT),
        (dt.date(2090, 1, 1), CURRENT),
    ],
)
def test_open_ended_validity_never_ends(as_of, expected):
    assert status(as_of, valid_from=dt.date(2024, 4, 6)) == expected


def test_no_dates_at_all_is_always_current():
    assert status(dt.date(1995, 6, 1)) == CURRENT


def test_open_start_ends_on_valid_to():
    assert status(dt.date(2016, 4, 5), valid_to=dt.date(2016, 4, 5)) == CURRENT
    assert status(dt.date(2016, 4, 6), valid_to=dt.date(2016, 4, 5)) == HISTORICAL


def test_superseded_unit_is_current_until_the_day_before_the_superseded_date():
    kwargs = {"valid_from": dt.date(2023, 4, 6), "superseded": True}
    superseded_on = dt.date(2024, 4, 6)
    assert status(dt.date(2024, 4, 5), superseded_date=superseded_on, **kwargs) == CURRENT
    assert status(dt.date(2024, 4, 6), superseded_date=superseded_on, **kwargs) == HISTORICAL


def test_superseded_without_a_date_is_historical_at_once():
    assert (
        status(dt.date(2024, 1, 1), valid_from=dt.date(2023, 4, 6), superseded=True) == HISTORICAL
    )


# The grid: every mix of open or set validity dates around the 5/6 April boundaries (units
# valid from a year ahead are upcoming on the earlier days), each not superseded, superseded
# without a date, or superseded from a tax year's first day; judged on both sides of each boundary.
VALID_FROM = [None, dt.date(2024, 4, 6), dt.date(2025, 4, 6)]
VALID_TO = [None, dt.date(2025, 4, 5), dt.date(2026, 4, 5)]
SUPERSEDING = ["no", "undated", dt.date(2025, 4, 6)]
DAYS = [
    dt.date(2024, 4, 5),
    dt.date(2024, 4, 6),
    dt.date(2025, 4, 5),
    dt.date(2025, 4, 6),
    dt.date(2026, 4, 5),
    dt.date(2026, 4, 6),
]


def _grid_units(*, one_concept: bool) -> list[AtomicUnit]:
    """The grid's units, sharing one concept (so that a later unit's period is newer than an
    ended one's) or each with a concept of its own (so that nothing newer is ever known). A
    removed unit from 2027 on sits in every concept: removed, it is no newer period."""
    shared = ConceptFactory()
    units = []
    for valid_from, valid_to, superseding in itertools.product(VALID_FROM, VALID_TO, SUPERSEDING):
        if valid_from and valid_to and valid_to < valid_from:
            continue  # the database refuses such a unit
        superseded_date = superseding if isinstance(superseding, dt.date) else None
        if superseded_date and valid_from and superseded_date < valid_from:
            continue  # superseded before it is valid: refused too
        concept = shared if one_concept else ConceptFactory()
        UnitFactory(concept=concept, valid_from=dt.date(2027, 4, 6), deleted_at=timezone.now())
        # A unit replaces at most one other, so each superseded unit gets its own successor
        # (open-ended, so that no validity overlaps it).
        newer = UnitFactory(concept=concept) if superseding != "no" else None
        units.append(
            UnitFactory(
                concept=concept,
                valid_from=valid_from,
                valid_to=valid_to,
                superseded_by=newer,
                superseded_date=superseded_date,
            )
        )
    return units


def _by_raw_sql(day: dt.date) -> dict[int, str]:
    sql = f"SELECT u.id, {status_sql(table='u', day='%(day)s')} FROM knowledge_atomicunit u"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"day": day})
        return dict(cursor.fetchall())


def _kept_by_raw_sql(condition: str, day: dt.date) -> set[int]:
    sql = f"SELECT u.id FROM knowledge_atomicunit u WHERE TRUE {condition}"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"day": day})
        return {row[0] for row in cursor.fetchall()}


def _by_pure_function(unit: AtomicUnit, day: dt.date) -> TemporalStatus:
    """The Python rendering given the newer-period fact read from the concept's units."""
    others = [(u.valid_from, u.deleted_at is None) for u in unit.concept.units.all()]
    return temporal_status(
        valid_from=unit.valid_from,
        valid_to=unit.valid_to,
        superseded_date=unit.superseded_date,
        is_superseded=unit.superseded_by_id is not None,
        newer_period_known=NEWER_PERIOD.known(unit.valid_to, others),
        as_of=day,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("one_concept", [True, False])
def test_python_orm_and_raw_sql_renderings_of_the_rule_agree_on_a_grid_of_units_and_days(
    one_concept,
):
    units = _grid_units(one_concept=one_concept)
    seen = set()
    for day in DAYS:
        by_python = {unit.pk: unit.temporal_status_on(day) for unit in units}
        assert {unit.pk: _by_pure_function(unit, day) for unit in units} == by_python, day
        annotated = AtomicUnit.objects.filter(pk__in=by_python).with_newer_period_known()
        assert {u.pk: u.temporal_status_on(day) for u in annotated} == by_python, day
        by_orm = dict(
            AtomicUnit.objects.filter(pk__in=by_python)
            .with_temporal_status(day)
            .values_list("pk", "temporal_status")
        )
        assert by_orm == by_python, day
        by_sql = _by_raw_sql(day)
        assert {pk: by_sql[pk] for pk in by_python} == by_python, day
        current = {pk for pk, status in by_python.items() if status == CURRENT}
        served = {pk for pk, status in by_python.items() if status in (CURRENT, OUTDATED)}
        in_force = _kept_by_raw_sql(in_force_sql(table="u", day="%(day)s"), day)
        assert in_force & set(by_python) == current, day
        assert (
            _kept_by_raw_sql(served_sql(table="u", day="%(day)s"), day) & set(by_python) == served
        )
        assert (
            set(
                AtomicUnit.objects.in_force(day)
                .filter(pk__in=by_python)
                .values_list("pk", flat=True)
            )
            == current
        )
        seen |= set(by_python.values())
    if one_concept:  # the units from 2025 are newer than those that end on 5 April 2025
        assert seen == {CURRENT, HISTORICAL, UPCOMING, OUTDATED}
    else:  # nothing newer is known for any: an ended period is the newest held
        assert HISTORICAL in seen  # superseded units still are
        assert not any(
            u.temporal_status_on(dt.date(2026, 4, 6)) == HISTORICAL
            for u in units
            if u.superseded_by_id is None
        )


@pytest.mark.django_db
def test_a_gap_between_two_known_periods_is_historical_and_past_the_newest_is_outdated():
    concept = ConceptFactory()
    older = UnitFactory(concept=concept, valid_from=tax_year(2022)[0], valid_to=tax_year(2022)[1])
    newer = UnitFactory(concept=concept, valid_from=tax_year(2024)[0], valid_to=tax_year(2024)[1])
    in_the_gap = dt.date(2024, 1, 1)
    assert older.temporal_status_on(in_the_gap) == HISTORICAL
    assert newer.temporal_status_on(in_the_gap) == UPCOMING
    after_both = dt.date(2026, 12, 1)
    assert older.temporal_status_on(after_both) == HISTORICAL
    assert newer.temporal_status_on(after_both) == OUTDATED
    newer.deleted_at = timezone.now()
    newer.save(update_fields=["deleted_at"])
    assert older.temporal_status_on(after_both) == OUTDATED  # removed: no newer period
