"""Claim checking sees a unit's other figures (one statement, one unit): a claim of a figure the
statement holds beside its value is found by it, with that figure's period."""

from decimal import Decimal

import pytest

from knowledge.models import AtomicUnit
from knowledge.verification.check import THRESHOLDS, Evidence, claim_verify
from knowledge.verification.claims import Figure, answer_claims
from knowledge.verification.evidence import _units_stating
from tests.factories import UnitFactory

ABOVE = {"amount": "60000", "unit": "GBP", "period": "year", "role": "above", "printed": "£60,000"}


def _verdict(answer: str, unit: AtomicUnit) -> tuple[str, str]:
    (claim,) = answer_claims(answer)
    found = claim_verify(
        claim, [Evidence(unit, 0.8, "current")], cited=set(), thresholds=THRESHOLDS, day=None
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
