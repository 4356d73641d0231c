"""Scoring threshold units against the gold's dated values.

A target is a dated value the corpus prints (a corpus match whose `period_consistent` is not
false); an outcome says which alive threshold units hold its amount under a concept of the
right category, and which of those are valid inside the right years. Reads the database only.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from evaluation.thresholds.amounts import (
    ANY_PERIOD,
    AmountForm,
    amount_key,
    printed_form,
    value_form,
)
from evaluation.thresholds.gold import GoldFact, GoldValue
from knowledge.domain.extraction import ValidityBasis
from knowledge.models import AtomicUnit
from knowledge.text.dates import tax_year_start_year

# Gold category -> taxonomy category slugs (fixtures/taxonomy.yaml), one line per category.
CATEGORY_SLUGS: dict[str, frozenset[str]] = {
    "Income Tax": frozenset({"income_tax"}),
    "Income Tax (Scotland)": frozenset({"income_tax"}),
    "National Insurance": frozenset({"ni"}),
    "Pensions": frozenset(
        {"pension_tax", "state_pension", "pension_credit", "pensions_general", "pension_workplace"}
    ),  # noqa: E501
    "ISAs & Junior ISAs": frozenset({"isa"}),
    "Capital Gains Tax": frozenset({"cgt"}),
    "Inheritance Tax": frozenset({"iht"}),
    "Child Benefit": frozenset({"child_benefit"}),
    "Student loans": frozenset({"student_finance"}),
    "Benefits": frozenset(
        {
            "benefits_low_income",
            "benefits_disability",
            "benefits_family",
            "benefits_unemployment",
            "benefits_management",
            "benefits_bereavement",
            "benefits_carers",
            "benefits_sick_pay",
            "pension_credit",
        }
    ),  # noqa: E501
    # The taxonomy files the minimum wage concepts under Income Tax.
    "Minimum wage": frozenset({"income_tax"}),
}

IN_FORCE_EARLIER = "in_force_earlier"
# Benefit and pension rates change in the uprating week, the first days of the tax year
# (2018-04-09, 2021-04-12). The README scores those at tax-year granularity (its State Pension
# example), so only a change later than this into the year counts as a mid-year change.
UPRATING_WINDOW_DAYS = 7


# ---------------------------------------------------------------- years


def _year_of(day: dt.date, *, rate_year: bool) -> int:
    if rate_year:
        return day.year if day.month >= 4 else day.year - 1
    return tax_year_start_year(day)


def _is_mid_year(boundary: dt.date, *, rate_year: bool) -> bool:
    year = _year_of(boundary, rate_year=rate_year)
    start = dt.date(year, 4, 1) if rate_year else dt.date(year, 4, 6)
    return (boundary - start).days >= UPRATING_WINDOW_DAYS


# ---------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    """A dated value the corpus prints: what a unit must hold to count for it."""

    fact: GoldFact
    value: GoldValue
    forms: tuple[AmountForm, ...]
    start_exact: bool  # the value starts mid-year: compare the exact date
    end_exact: bool  # the value ends mid-year

    def year_of(self, day: dt.date) -> int:
        return _year_of(day, rate_year=self.fact.uses_rate_year)


def targets_build(*, facts: Iterable[GoldFact]) -> list[Target]:
    targets = []
    for fact in facts:
        if fact.category not in CATEGORY_SLUGS:
            raise ValueError(f"gold category {fact.category!r} has no taxonomy mapping")
        targets.extend(_fact_targets(fact))
    return targets


def _fact_targets(fact: GoldFact) -> list[Target]:
    printed = {(m.value, m.valid_from) for m in fact.matches if m.period_consistent is not False}
    values = sorted(fact.values, key=lambda v: v.valid_from)
    mid_year = [_is_mid_year(v.valid_from, rate_year=fact.uses_rate_year) for v in values]
    targets = []
    for index, value in enumerate(values):
        if value.value is None or (value.value, value.valid_from) not in printed:
            continue
        targets.append(
            Target(
                fact=fact,
                value=value,
                forms=_forms(fact, value),
                start_exact=index > 0 and mid_year[index],
                end_exact=index + 1 < len(values) and mid_year[index + 1],
            )
        )
    return targets


def _forms(fact: GoldFact, value: GoldValue) -> tuple[AmountForm, ...]:
    forms = [value_form(value.value, is_rate=fact.is_rate)]
    for match in fact.matches:
        if (match.value, match.valid_from) == (value.value, value.valid_from):
            forms.append(printed_form(match.printed, match.printed_as))
    return tuple(dict.fromkeys(forms))


# ---------------------------------------------------------------- units


@dataclass(frozen=True)
class UnitRecord:
    id: int
    amount: Decimal
    value_unit: str
    value_period: str
    valid_from: dt.date | None
    valid_to: dt.date | None
    superseded_by: int | None
    superseded_date: dt.date | None
    validity_basis: str
    category_slug: str
    category_name: str

    @property
    def end(self) -> dt.date | None:
        """Last day in force: the earlier of valid_to and the day before it was superseded.
        A unit superseded without a date has no known end beyond valid_to."""
        ends = [self.valid_to]
        if self.superseded_by is not None and self.superseded_date is not None:
            ends.append(self.superseded_date - dt.timedelta(days=1))
        known = [day for day in ends if day is not None]
        return min(known) if known else None


def threshold_units() -> list[UnitRecord]:
    """Alive threshold units that hold an amount (columns in UnitRecord's field order)."""
    rows = (
        AtomicUnit.objects.alive()
        .filter(unit_type=AtomicUnit.Type.THRESHOLD, value_amount__isnull=False)
        .order_by("id")
        .values_list(
            "id",
            "value_amount",
            "value_unit",
            "value_period",
            "valid_from",
            "valid_to",
            "superseded_by",
            "superseded_date",
            "validity_basis",
            "concept__category__slug",
            "concept__category__name",
        )
    )
    return [UnitRecord(*row) for row in rows]


class UnitIndex:
    def __init__(self, units: Iterable[UnitRecord]) -> None:
        self._by_amount: dict[tuple[str, Decimal], list[UnitRecord]] = defaultdict(list)
        for unit in units:
            self._by_amount[amount_key(unit.value_unit, unit.amount)].append(unit)

    def with_amount(self, forms: Iterable[AmountForm]) -> list[UnitRecord]:
        found: dict[int, UnitRecord] = {}
        for form in forms:
            for unit in self._by_amount.get(amount_key(form.value_unit, form.amount), []):
                if form.periods is ANY_PERIOD or unit.value_period in form.periods:
                    found[unit.id] = unit
        return list(found.values())


# ---------------------------------------------------------------- matching


def _validity_fits(unit: UnitRecord, target: Target) -> bool:
    return _start_fits(unit, target) and _end_fits(unit, target)


def _start_fits(unit: UnitRecord, target: Target) -> bool:
    gold = target.value
    if gold.date_basis == IN_FORCE_EARLIER:  # the data only starts there: earlier is fine
        return True
    if unit.valid_from is None:
        # A standing figure printed with no year is open by policy (in force until changed,
        # its start unknown): it fits a gold value still in force, never one that ended.
        return (
            unit.validity_basis == ValidityBasis.OPEN
            and unit.valid_to is None
            and (gold.valid_to is None)
        )
    if target.start_exact:
        return unit.valid_from >= gold.valid_from
    return target.year_of(unit.valid_from) >= target.year_of(gold.valid_from)


def _end_fits(unit: UnitRecord, target: Target) -> bool:
    gold_end, unit_end = target.value.valid_to, unit.end
    if gold_end is None:
        return True
    if unit_end is None:
        return False
    if target.end_exact:
        return unit_end <= gold_end
    return target.year_of(unit_end) <= target.year_of(gold_end)


@dataclass(frozen=True)
class Outcome:
    target: Target
    hits: tuple[UnitRecord, ...]  # right amount, category and dates
    candidates: tuple[UnitRecord, ...]  # right amount and category, any dates
    elsewhere: tuple[str, ...]  # names of other categories holding the amount


def _outcome(target: Target, index: UnitIndex) -> Outcome:
    with_amount = index.with_amount(target.forms)
    slugs = CATEGORY_SLUGS[target.fact.category]
    candidates = tuple(u for u in with_amount if u.category_slug in slugs)
    elsewhere = sorted({u.category_name for u in with_amount if u.category_slug not in slugs})
    return Outcome(
        target=target,
        hits=tuple(u for u in candidates if _validity_fits(u, target)),
        candidates=candidates,
        elsewhere=tuple(elsewhere),
    )


def outcomes_score(*, targets: Iterable[Target], units: Iterable[UnitRecord]) -> list[Outcome]:
    index = UnitIndex(units)
    return [_outcome(target, index) for target in targets]
