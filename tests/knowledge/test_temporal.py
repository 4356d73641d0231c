"""Temporal status follows the UK tax year (6 April to 5 April) and superseding."""

import datetime as dt

import pytest

from knowledge.models import AtomicUnit
from knowledge.temporal import (
    TemporalStatus,
    tax_year_bounds,
    tax_year_label,
    tax_year_start_year,
    temporal_status,
)
from tests.factories import make_concept, make_unit, tax_year

CURRENT, HISTORICAL, UPCOMING = TemporalStatus


def status(as_of, *, valid_from=None, valid_to=None, superseded_date=None, superseded=False):
    return temporal_status(
        valid_from=valid_from,
        valid_to=valid_to,
        superseded_date=superseded_date,
        is_superseded=superseded,
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


CASES = [
    {"valid_from": None, "valid_to": None},
    {"valid_from": dt.date(2024, 4, 6), "valid_to": dt.date(2025, 4, 5)},
    {"valid_from": dt.date(2025, 4, 6), "valid_to": None},
    {"valid_from": None, "valid_to": dt.date(2025, 4, 5)},
    {"valid_from": dt.date(2023, 4, 6), "valid_to": None, "superseded_date": dt.date(2024, 4, 6)},
    {"valid_from": dt.date(2023, 4, 6), "valid_to": None, "superseded_date": None},
]
DAYS = [dt.date(2024, 4, 5), dt.date(2024, 4, 6), dt.date(2025, 4, 5), dt.date(2025, 4, 6)]


@pytest.mark.django_db
@pytest.mark.parametrize("as_of", DAYS)
def test_sql_annotation_agrees_with_python(as_of):
    concept = make_concept()
    units = []
    for case in CASES:
        superseded = "superseded_date" in case
        # A unit replaces at most one other, so each superseded case gets its own successor.
        newer = make_unit(concept=concept, valid_from=dt.date(2024, 4, 6)) if superseded else None
        unit = make_unit(
            concept=concept,
            valid_from=case["valid_from"],
            valid_to=case["valid_to"],
            superseded_by=newer,
            superseded_date=case.get("superseded_date"),
        )
        units.append(unit)
    annotated = dict(
        AtomicUnit.objects.with_temporal_status(as_of).values_list("pk", "temporal_status")
    )
    for unit in units:
        assert annotated[unit.pk] == unit.temporal_status_on(as_of), (unit.pk, as_of)
    in_force = set(AtomicUnit.objects.in_force(as_of).values_list("pk", flat=True))
    assert in_force == {pk for pk, value in annotated.items() if value == CURRENT}
