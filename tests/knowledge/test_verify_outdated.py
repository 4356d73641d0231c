"""/verify past the newest period held: a claim of the newest figure is supported with a
caveat naming the period that ended; another figure is not contradicted by it (figures change
each year) but said to be unchecked, naming what is held and when its period ended; one of an
older figure while a newer is held is out of date. Units in the database, their statuses read
by the temporal rule on the day checked."""

import datetime as dt
from decimal import Decimal

import pytest

from knowledge.reading.aboutness import RULES
from knowledge.reading.candidates import Evidence
from knowledge.verification.check import answer_verify
from tests.factories import ConceptFactory, UnitFactory, tax_year

LATER = dt.date(2026, 12, 1)


@pytest.fixture
def eldest_child_rates(db):
    concept = ConceptFactory(name="Child Benefit rates")
    units = {}
    for year, amount in ((2023, "24.00"), (2024, "25.60")):
        valid_from, valid_to = tax_year(year)
        units[year] = UnitFactory(
            concept=concept,
            unit_type="threshold",
            text=f"Child Benefit for the eldest or only child is £{amount} a week.",
            value_amount=Decimal(amount),
            value_unit="GBP",
            value_period="week",
            valid_from=valid_from,
            valid_to=valid_to,
        )
    return units


def _all_units_of_the_concept(units):
    def evidence_of(claim, day):
        return [
            Evidence(u, 0.8, u.temporal_status_on(day).value, 0.8, 0.8, 1) for u in units.values()
        ]

    return evidence_of


def _checked(answer: str, units, day=LATER):
    # The rules read aboutness here: these units are the claim's by construction, and the
    # test is of what is decided past the newest period, not of a trained model.
    verification = answer_verify(
        answer=answer, as_of=day, evidence_of=_all_units_of_the_concept(units), reader=RULES
    )
    (claim,) = verification.claims
    return claim


def test_the_newest_figure_held_past_its_period_is_supported_with_a_caveat(eldest_child_rates):
    claim = _checked("Child Benefit for the eldest child is £25.60 a week.", eldest_child_rates)
    assert (claim.verdict, claim.reason) == ("supported", "value_matches")
    assert claim.evidence[0].unit == eldest_child_rates[2024]
    assert claim.evidence[0].temporal_status == "outdated"
    assert "6 April 2024 to 5 April 2025" in claim.caveat


def test_inside_its_period_the_figure_is_supported_without_a_caveat(eldest_child_rates):
    claim = _checked(
        "Child Benefit for the eldest child is £25.60 a week.",
        eldest_child_rates,
        day=dt.date(2024, 10, 1),
    )
    assert (claim.verdict, claim.caveat) == ("supported", "")


def test_a_claim_about_now_differing_from_the_newest_held_is_not_contradicted(
    eldest_child_rates,
):
    """Sent without a day, the claim is about now, past the newest period held: this year's
    rate may well be another, so the claim is unchecked, and the answer says what is held."""
    claim = _checked(
        "Child Benefit for the eldest child is £26.05 a week.", eldest_child_rates, None
    )
    assert (claim.verdict, claim.reason) == ("unsupported", "not_held")
    assert "£25.60 (6 April 2024 to 5 April 2025)" in claim.explanation
    assert "5 April 2025" in claim.caveat


def test_a_claim_about_a_day_past_the_newest_period_is_not_contradicted(eldest_child_rates):
    """About a given day after the newest period held, an older year's figure does not say
    what held then (figures change each year): the claim cannot be checked."""
    claim = _checked("Child Benefit for the eldest child is £26.05 a week.", eldest_child_rates)
    assert (claim.verdict, claim.reason) == ("unsupported", "not_held")


def test_an_older_figure_while_a_newer_is_held_is_not_in_force(eldest_child_rates):
    claim = _checked("Child Benefit for the eldest child is £24.00 a week.", eldest_child_rates)
    assert (claim.verdict, claim.reason) == ("contradicted", "not_in_force_on_date")
    assert "5 April 2025" in claim.caveat  # the newest held has ended too, and says so
