"""check_served counts, on constructed units, what would be served wrongly on a day: units
served as current whose own quote or heading states a period that ended, undated figures of
yearly concepts, and groups of living units sharing one evidence quote."""

import datetime as dt
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from knowledge.services.served_check import (
    HEADING_PERIOD,
    QUOTE_PERIOD,
    YEARLY_OPEN,
    served_check,
)
from tests.factories import ConceptFactory, SnapshotFactory, UnitFactory, tax_year

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 12, 1)
RATE = "The eldest child rate for 2024 to 2025 is £25.60 a week."
RANGE = "From 6 April 2024 to 5 April 2025 the rate is £184.03 a week."
OPEN = "From 6 April 2025 the rate is £187.18 a week."
UNDATED = "You can get £20,000 a year in ISAs."
TABLE_ROW = "Eldest or only child: £25.60"
CHARGE = "The charge is 1% of your Child Benefit for every £200 of income over £60,000."


def _page(*paragraphs: str, sections=None):
    text = " ".join(paragraphs)
    return SnapshotFactory(text=text, sections=sections or [])


def _unit(snapshot, quote: str, **fields):
    start = snapshot.text.index(quote)
    return UnitFactory(
        snapshot=snapshot,
        evidence_quote=quote,
        text=quote,
        evidence_start=start,
        evidence_end=start + len(quote),
        **fields,
    )


def test_a_unit_served_as_current_past_the_period_its_quote_states_counts():
    page = _page(RATE, RANGE, OPEN)
    stale = _unit(page, RATE)
    stale_range = _unit(page, RANGE)
    _unit(page, OPEN)  # an open period still runs
    dated = _unit(_page(RATE), RATE, valid_from=tax_year(2024)[0], valid_to=tax_year(2024)[1])

    check = served_check(as_of=DAY)

    found = {s.unit_id: s for s in check.stale}
    assert set(found) == {stale.pk, stale_range.pk}  # the dated one is outdated, not current
    assert found[stale.pk].why == QUOTE_PERIOD and found[stale.pk].ended_on == dt.date(2025, 4, 5)
    assert found[stale_range.pk].stated == "6 April 2024 to 5 April 2025"
    assert dated.pk not in found
    assert served_check(as_of=dt.date(2025, 1, 1)).stale == []  # inside the period


def test_a_table_row_under_a_heading_that_names_an_ended_year_counts():
    text = f"Rates for 2024 to 2025. {TABLE_ROW}"
    sections = [
        {"heading_path": ["Child Benefit", "Rates for 2024 to 2025"], "start": 0, "end": len(text)}
    ]
    page = SnapshotFactory(text=text, sections=sections)
    row = _unit(page, TABLE_ROW)

    (stale,) = served_check(as_of=DAY).stale

    assert (stale.unit_id, stale.why, stale.ended_on) == (
        row.pk,
        HEADING_PERIOD,
        dt.date(2025, 4, 5),
    )


def test_an_undated_figure_of_a_yearly_concept_counts_and_an_undated_rule_does_not():
    yearly = ConceptFactory(yearly_figures=True)
    page = _page(UNDATED, CHARGE)
    figure = _unit(page, UNDATED, concept=yearly, value_amount=Decimal(20000), value_unit="GBP")
    _unit(page, CHARGE, concept=ConceptFactory())  # a rule without a year: open, right

    (stale,) = served_check(as_of=DAY).stale

    assert (stale.unit_id, stale.why) == (figure.pk, YEARLY_OPEN)


def test_living_units_sharing_one_quote_are_one_group():
    page = _page(CHARGE, UNDATED)
    concept = ConceptFactory()
    shared = [_unit(page, CHARGE, concept=concept) for _ in range(3)]
    _unit(page, UNDATED, concept=concept)
    removed = _unit(page, UNDATED, concept=concept)
    removed.deleted_at, removed.ordinal = timezone.now(), None
    removed.save(update_fields=["deleted_at", "ordinal"])

    (group,) = served_check(as_of=DAY).shared_quotes

    assert group.unit_ids == [u.pk for u in shared]
    assert group.quote == CHARGE.lower()


def test_the_command_prints_both_counts_fails_on_request_and_refuses_a_bad_day():
    page = _page(RATE, CHARGE)
    _unit(page, RATE)
    _unit(page, CHARGE)
    _unit(page, CHARGE)

    out = StringIO()
    call_command("check_served", as_of="2026-12-01", stdout=out)
    assert "1 served as current past their period, 1 groups sharing one quote" in out.getvalue()

    out = StringIO()
    call_command("check_served", as_of="2026-12-01", json=True, stdout=out)
    report = json.loads(out.getvalue())
    assert (report["stale_as_current"], report["shared_quote_groups"]) == (1, 1)

    with pytest.raises(SystemExit) as exited:
        call_command(
            "check_served", as_of="2026-12-01", fail=True, stdout=StringIO(), stderr=StringIO()
        )
    assert exited.value.code == 1
    call_command("check_served", as_of="2025-01-01", stdout=StringIO())  # passes without --fail
    with pytest.raises(CommandError, match="--as-of: 'next week' is not a day"):
        call_command("check_served", as_of="next week", stdout=StringIO())
