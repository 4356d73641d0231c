"""What amount a unit stores for a gold value or for a figure as a page prints it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from knowledge.models import AtomicUnit

PENNY = Decimal("0.01")  # money to the penny; percentages to 0.01, i.e. fractions to 4 places
ANY_PERIOD: frozenset[str] | None = None


@dataclass(frozen=True)
class AmountForm:
    """One way a unit may hold a dated value: an amount in a unit, with the periods allowed."""

    amount: Decimal
    value_unit: str
    periods: frozenset[str] | None = ANY_PERIOD


_PRINTED = re.compile(r"^(£)?(\d[\d,]*(?:\.\d+)?)\s*(%|p|million)?$")


def printed_form(printed: str, printed_as: str) -> AmountForm:
    """The amount a unit would store for a printed figure, and the periods its form allows.
    Raises ValueError naming the field it cannot read."""
    found = _PRINTED.match(printed.strip())
    if found is None:
        raise ValueError(f"printed: cannot read {printed!r}")
    _pound, number, suffix = found.groups()
    amount = Decimal(number.replace(",", ""))
    if suffix == "%":
        return AmountForm(amount, AtomicUnit.ValueUnit.PERCENT)
    if suffix == "p":  # '55p for every £1': a unit holds it as £0.55
        amount = amount / 100
    elif suffix == "million":
        amount = amount * 1_000_000
    return AmountForm(amount, AtomicUnit.ValueUnit.GBP, _printed_periods(printed_as))


def _printed_periods(form: str) -> frozenset[str] | None:
    if form.startswith("annual / 52"):
        return frozenset({AtomicUnit.Period.WEEK})
    if form.startswith(("annual / 12", "annual equivalent / 12")):
        return frozenset({AtomicUnit.Period.MONTH})
    if form in {"as stated", "percent", "pence per £1", "in millions"}:
        return ANY_PERIOD
    if form.startswith("rates table"):
        return ANY_PERIOD
    raise ValueError(f"printed_as: unknown form {form!r}")


def value_form(value: Decimal, *, is_rate: bool) -> AmountForm:
    """A gold value as a unit stores it: rates (fractions) as percentages, money in GBP."""
    if is_rate:
        return AmountForm(value * 100, AtomicUnit.ValueUnit.PERCENT)
    return AmountForm(value, AtomicUnit.ValueUnit.GBP)


def amount_key(value_unit: str, amount: Decimal) -> tuple[str, Decimal]:
    return value_unit, amount.quantize(PENNY, rounding=ROUND_HALF_UP)
