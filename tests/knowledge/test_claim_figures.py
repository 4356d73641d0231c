"""Claim checking sees a unit's other figures (one statement, one unit): a claim of a figure the
statement holds beside its value is found by it, with that figure's period."""

import datetime as dt
from decimal import Decimal

import pytest

from knowledge.models import AtomicUnit
from knowledge.reading.aboutness import Cuts
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import Figure, answer_claims
from knowledge.verification.check import claim_verify
from knowledge.verification.evidence import _units_stating
from tests.factories import UnitFactory

ABOVE = {"amount": "60000", "unit": "GBP", "period": "year", "role": "above", "printed": "£60,000"}


def _verdict(answer: str, unit: AtomicUnit) -> tuple[str, str]:
    (claim,) = answer_claims(answer)
    evidence = [Evidence(unit, 0.8, "current", about=0.8)]
    found = claim_verify(
        claim,
        evidence,
        evidence,
        cuts=Cuts(about=0.5, margin=0.05, meaning=0.6),
        cited=set(),
        day=dt.date(2026, 12, 7),
    )
    return found.verdict, found.reason


def test_a_figure_held_beside_the_value_supports_a_claim_of_it():
    unit = AtomicUnit(
        unit_type="threshold",
        text="The High Income Child Benefit Charge applies above the income threshold.",
        value_amount=Decimal("1"),
        value_unit="percent",
        figures=[ABOVE],
    )
    claim = "The High Income Child Benefit Charge applies above £60,000 a year."
    assert _verdict(claim, unit) == ("supported", "value_matches")
    assert _verdict(claim.replace("a year", "a month"), unit)[0] != "supported"
    unit.figures = []
    assert _verdict(claim, unit)[0] != "supported"


@pytest.mark.django_db
def test_units_are_found_by_their_other_figures():
    unit = UnitFactory(
        unit_type="threshold",
        value_amount=Decimal("1"),
        value_unit="percent",
        figures=[ABOVE],
        embedding=[0.1] * 384,
    )
    UnitFactory(value_amount=Decimal("50000"), value_unit="GBP", embedding=[0.1] * 384)
    found = _units_stating([Figure(Decimal("60000"), "GBP")], exclude=set())
    assert [u.pk for u in found] == [unit.pk]


@pytest.mark.django_db
def test_units_are_found_by_the_whole_figures_their_text_prints():
    """The text index reads whole printed figures: £12,570 finds £12,570 and £12,570.00 but
    not £12,570,000, £112,570 or a text that only prints 20.50 without a pound sign; 8% does
    not find 18%."""
    prints = [
        UnitFactory(text=text, embedding=[0.1] * 384)
        for text in ("Your allowance is £12,570.", "Rates table: £12,570.00 a year.")
    ]
    for text in ("A fund of £12,570,000.", "Up to £112,570 a year.", "Paid at 18% or 12570."):
        UnitFactory(text=text, embedding=[0.1] * 384)

    pounds = _units_stating([Figure(Decimal("12570"), "GBP")], exclude=set())
    percent = _units_stating([Figure(Decimal("8"), "percent")], exclude=set())

    assert sorted(u.pk for u in pounds) == sorted(u.pk for u in prints)
    assert percent == []
