"""Threshold-extraction evaluation against the shared gold.

Implements "How to score threshold extraction" in `../shared/eval/README.md`: for each dated
value of the gold that the corpus prints (a corpus match whose `period_consistent` is not
false), look for an alive threshold unit with the right amount, under a concept of the right
category, valid inside the right years. Reads the gold file and the database; writes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from pathlib import Path

from knowledge.models import AtomicUnit
from knowledge.temporal import tax_year_start_year

# Gold category -> taxonomy category slugs (fixtures/taxonomy.yaml), one line per category.
CATEGORY_SLUGS: dict[str, frozenset[str]] = {
    "Income Tax": frozenset({"income_tax"}),
    "Income Tax (Scotland)": frozenset({"income_tax"}),
    "National Insurance": frozenset({"ni"}),
    "Pensions": frozenset({"pension_tax", "state_pension", "pension_credit", "pensions_general", "pension_workplace"}),  # noqa: E501
    "ISAs & Junior ISAs": frozenset({"isa"}),
    "Capital Gains Tax": frozenset({"cgt"}),
    "Inheritance Tax": frozenset({"iht"}),
    "Child Benefit": frozenset({"child_benefit"}),
    "Student loans": frozenset({"student_finance"}),
    "Benefits": frozenset({"benefits_low_income", "benefits_disability", "benefits_family", "benefits_unemployment", "benefits_management", "benefits_bereavement", "benefits_carers", "benefits_sick_pay", "pension_credit"}),  # noqa: E501
    # The taxonomy files the minimum wage concepts under Income Tax.
    "Minimum wage": frozenset({"income_tax"}),
}  # fmt: skip

PAGE_FILE_PERIOD = "page file's period"  # validity_basis of the collector's inferred period
IN_FORCE_EARLIER = "in_force_earlier"
RATE_YEAR_PREFIX = "minimum_wage."  # minimum wage rates run 1 April to 31 March
# Benefit and pension rates change in the uprating week, the first days of the tax year
# (2018-04-09, 2021-04-12). The README scores those at tax-year granularity (its State Pension
# example), so only a change later than this into the year counts as a mid-year change.
UPRATING_WINDOW_DAYS = 7
PENNY = Decimal("0.01")  # money to the penny; percentages to 0.01, i.e. fractions to 4 places
ANY_PERIOD: frozenset[str] | None = None


class GoldFormatError(ValueError):
    """The gold file does not have the shape the README describes; names the field."""


# ---------------------------------------------------------------- gold


@dataclass(frozen=True)
class AmountForm:
    """One way a unit may hold a dated value: an amount in a unit, with the periods allowed."""

    amount: Decimal
    value_unit: str
    periods: frozenset[str] | None = ANY_PERIOD


@dataclass(frozen=True)
class GoldValue:
    value: Decimal | None  # None for an abolished fact
    valid_from: dt.date
    valid_to: dt.date | None
    date_basis: str


@dataclass(frozen=True)
class GoldMatch:
    value: Decimal
    valid_from: dt.date
    printed: str
    printed_as: str
    period_consistent: bool | None


@dataclass(frozen=True)
class GoldFact:
    fact_id: str
    category: str
    unit: str
    values: tuple[GoldValue, ...]
    matches: tuple[GoldMatch, ...]

    @property
    def is_rate(self) -> bool:
        return self.unit == "rate"

    @property
    def uses_rate_year(self) -> bool:
        return self.fact_id.startswith(RATE_YEAR_PREFIX)


def gold_load(*, path: Path) -> list[GoldFact]:
    """Parse the gold file; raise GoldFormatError naming the first bad field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise GoldFormatError(f"{path}: not valid JSON ({error})") from error
    if not isinstance(raw, list):
        raise GoldFormatError(f"{path}: expected a JSON list of facts")
    return [_fact_parse(item, where=f"fact {index}") for index, item in enumerate(raw)]


def _fact_parse(raw: object, *, where: str) -> GoldFact:
    fact_id = _field(raw, "fact_id", str, where=where)
    where = f"{where} ({fact_id})"
    unit = _field(raw, "unit", str, where=where)
    if unit != "rate" and not unit.startswith("GBP"):
        raise GoldFormatError(f"{where}: unit: expected 'rate' or 'GBP…', got {unit!r}")
    values = _field(raw, "values", list, where=where)
    matches = _field(raw, "corpus_matches", list, where=where)
    fact = GoldFact(
        fact_id=fact_id,
        category=_field(raw, "category", str, where=where),
        unit=unit,
        values=tuple(_value_parse(v, where=f"{where}: values[{i}]") for i, v in enumerate(values)),
        matches=tuple(
            _match_parse(m, where=f"{where}: corpus_matches[{i}]") for i, m in enumerate(matches)
        ),
    )
    _matches_check(fact, where=where)
    return fact


def _value_parse(raw: object, *, where: str) -> GoldValue:
    value = _field(raw, "value", (int, Decimal, type(None)), where=where)
    return GoldValue(
        value=None if value is None else Decimal(value),
        valid_from=_date(raw, "valid_from", where=where),
        valid_to=_date(raw, "valid_to", where=where, optional=True),
        date_basis=_field(raw, "date_basis", (str, type(None)), where=where, optional=True) or "",
    )


def _match_parse(raw: object, *, where: str) -> GoldMatch:
    match = GoldMatch(
        value=Decimal(_field(raw, "value", (int, Decimal), where=where)),
        valid_from=_date(raw, "valid_from", where=where),
        printed=_field(raw, "printed", str, where=where),
        printed_as=_field(raw, "printed_as", str, where=where),
        period_consistent=_field(raw, "period_consistent", (bool, type(None)), where=where),
    )
    _printed_form(match, where=where)  # fail on an unknown form now
    return match


def _matches_check(fact: GoldFact, *, where: str) -> None:
    dated = {(v.value, v.valid_from) for v in fact.values}
    for index, match in enumerate(fact.matches):
        if (match.value, match.valid_from) not in dated:
            raise GoldFormatError(
                f"{where}: corpus_matches[{index}]: value/valid_from name no dated value"
            )


def _field(raw: object, name: str, kinds, *, where: str, optional: bool = False):
    if not isinstance(raw, dict):
        raise GoldFormatError(f"{where}: expected a JSON object")
    if name not in raw and not optional:
        raise GoldFormatError(f"{where}: {name}: missing")
    value = raw.get(name)
    # bool is an int in Python; a number field holding true/false is still malformed.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise GoldFormatError(f"{where}: {name}: unexpected {type(value).__name__} {value!r}")
    return value


def _tuple(kinds) -> tuple:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _date(raw: object, name: str, *, where: str, optional: bool = False) -> dt.date | None:
    text = _field(raw, name, (str, type(None)) if optional else str, where=where)
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as error:
        raise GoldFormatError(f"{where}: {name}: not a YYYY-MM-DD date: {text!r}") from error


# ---------------------------------------------------------------- printed forms

_PRINTED = re.compile(r"^(£)?(\d[\d,]*(?:\.\d+)?)\s*(%|p|million)?$")


def _printed_form(match: GoldMatch, *, where: str = "") -> AmountForm:
    """The amount a unit would store for a printed figure, and the periods its form allows."""
    found = _PRINTED.match(match.printed.strip())
    if found is None:
        raise GoldFormatError(f"{where}: printed: cannot read {match.printed!r}")
    _pound, number, suffix = found.groups()
    amount = Decimal(number.replace(",", ""))
    if suffix == "%":
        return AmountForm(amount, AtomicUnit.ValueUnit.PERCENT)
    if suffix == "p":  # '55p for every £1': a unit holds it as £0.55
        amount = amount / 100
    elif suffix == "million":
        amount = amount * 1_000_000
    return AmountForm(amount, AtomicUnit.ValueUnit.GBP, _printed_periods(match, where=where))


def _printed_periods(match: GoldMatch, *, where: str) -> frozenset[str] | None:
    form = match.printed_as
    if form.startswith("annual / 52"):
        return frozenset({AtomicUnit.Period.WEEK})
    if form.startswith(("annual / 12", "annual equivalent / 12")):
        return frozenset({AtomicUnit.Period.MONTH})
    if form in {"as stated", "percent", "pence per £1", "in millions"}:
        return ANY_PERIOD
    if form.startswith("rates table"):
        return ANY_PERIOD
    raise GoldFormatError(f"{where}: printed_as: unknown form {form!r}")


def _value_form(fact: GoldFact, value: Decimal) -> AmountForm:
    if fact.is_rate:
        return AmountForm(value * 100, AtomicUnit.ValueUnit.PERCENT)
    return AmountForm(value, AtomicUnit.ValueUnit.GBP)


def _amount_key(value_unit: str, amount: Decimal) -> tuple[str, Decimal]:
    return value_unit, amount.quantize(PENNY, rounding=ROUND_HALF_UP)


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
    forms = [_value_form(fact, value.value)]
    for match in fact.matches:
        if (match.value, match.valid_from) == (value.value, value.valid_from):
            forms.append(_printed_form(match))
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
            "id", "value_amount", "value_unit", "value_period", "valid_from", "valid_to",
            "superseded_by", "superseded_date", "validity_basis",
            "concept__category__slug", "concept__category__name",
        )
    )  # fmt: skip
    return [UnitRecord(*row) for row in rows]


class UnitIndex:
    def __init__(self, units: Iterable[UnitRecord]) -> None:
        self._by_amount: dict[tuple[str, Decimal], list[UnitRecord]] = defaultdict(list)
        for unit in units:
            self._by_amount[_amount_key(unit.value_unit, unit.amount)].append(unit)

    def with_amount(self, forms: Iterable[AmountForm]) -> list[UnitRecord]:
        found: dict[int, UnitRecord] = {}
        for form in forms:
            for unit in self._by_amount.get(_amount_key(form.value_unit, form.amount), []):
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
        return False
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


# ---------------------------------------------------------------- report


@dataclass(frozen=True)
class Recall:
    found: int
    total: int
    share: float


@dataclass(frozen=True)
class CategoryRecall:
    category: str
    recall: Recall


@dataclass(frozen=True)
class UnitDates:
    unit_id: int
    valid_from: dt.date | None
    valid_to: dt.date | None
    superseded_date: dt.date | None
    validity_basis: str


@dataclass(frozen=True)
class Miss:
    fact_id: str
    category: str
    value: Decimal
    valid_from: dt.date
    kind: str  # "no_amount" | "other_category" | "dating_error"
    reason: str


@dataclass(frozen=True)
class DatingError:
    fact_id: str
    value: Decimal
    valid_from: dt.date
    valid_to: dt.date | None
    units: tuple[UnitDates, ...]


@dataclass(frozen=True)
class ChainCheck:
    fact_id: str
    older_value: Decimal
    older_valid_from: dt.date
    newer_value: Decimal
    newer_valid_from: dt.date
    older_units: int
    newer_units: int
    marked: bool


@dataclass(frozen=True)
class ThresholdReport:
    gold_path: str
    facts: int
    units_considered: int
    recall: Recall
    categories: tuple[CategoryRecall, ...]
    misses: tuple[Miss, ...]
    dating_errors: tuple[DatingError, ...]
    chains: tuple[ChainCheck, ...]
    chains_checked: int
    chains_marked: int
    # The same recall without units dated only by the page file's period (the corpus
    # collector's inference, not gov.uk's words): how much that hint contributes.
    recall_without_page_file_periods: Recall


def _recall(outcomes: Iterable[Outcome]) -> Recall:
    outcomes = list(outcomes)
    found = sum(1 for o in outcomes if o.hits)
    return Recall(
        found=found, total=len(outcomes), share=found / len(outcomes) if outcomes else 0.0
    )


def _categories(outcomes: list[Outcome]) -> tuple[CategoryRecall, ...]:
    grouped: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        grouped[outcome.target.fact.category].append(outcome)
    return tuple(CategoryRecall(name, _recall(items)) for name, items in grouped.items())


def _unit_dates(unit: UnitRecord) -> UnitDates:
    return UnitDates(
        unit.id, unit.valid_from, unit.valid_to, unit.superseded_date, unit.validity_basis
    )


def _dates_text(dates: UnitDates) -> str:
    text = f"unit {dates.unit_id} valid {dates.valid_from or 'open'}..{dates.valid_to or 'open'}"
    if dates.superseded_date:
        text += f", superseded {dates.superseded_date}"
    return text + (f" [{dates.validity_basis}]" if dates.validity_basis else "")


def _miss(outcome: Outcome) -> Miss:
    target = outcome.target
    if outcome.candidates:
        kind = "dating_error"
        dates = "; ".join(_dates_text(_unit_dates(u)) for u in outcome.candidates)
        reason = f"dating error: {dates}"
    elif outcome.elsewhere:
        kind, reason = "other_category", "amount found only under " + ", ".join(outcome.elsewhere)
    else:
        kind, reason = "no_amount", "no threshold unit with that amount"
    return Miss(
        target.fact.fact_id, target.fact.category, target.value.value, target.value.valid_from,
        kind, reason,
    )  # fmt: skip


def _dating_error(outcome: Outcome) -> DatingError:
    value = outcome.target.value
    return DatingError(
        fact_id=outcome.target.fact.fact_id,
        value=value.value,
        valid_from=value.valid_from,
        valid_to=value.valid_to,
        units=tuple(_unit_dates(u) for u in outcome.candidates),
    )


def _consecutive(outcomes: list[Outcome]) -> list[tuple[Outcome, Outcome]]:
    """(older, newer) outcomes of consecutive printed values of each fact."""
    by_fact: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_fact[outcome.target.fact.fact_id].append(outcome)
    steps = []
    for items in by_fact.values():
        items.sort(key=lambda o: o.target.value.valid_from)
        steps.extend(pairwise(items))
    return steps


def _chains(outcomes: list[Outcome]) -> tuple[ChainCheck, ...]:
    """Consecutive printed values of a fact: is an older unit superseded by a newer one in the
    newer value's year? Units are taken by amount and category only, since superseding is
    what should correct an older unit's open end."""
    return tuple(_chain_check(older, newer) for older, newer in _consecutive(outcomes))


def _chain_check(older: Outcome, newer: Outcome) -> ChainCheck:
    newer_ids = {u.id for u in newer.candidates}
    year = newer.target.year_of(newer.target.value.valid_from)
    marked = any(
        u.superseded_by in newer_ids
        and u.superseded_date is not None
        and newer.target.year_of(u.superseded_date) == year
        for u in older.candidates
    )
    return ChainCheck(
        fact_id=older.target.fact.fact_id,
        older_value=older.target.value.value,
        older_valid_from=older.target.value.valid_from,
        newer_value=newer.target.value.value,
        newer_valid_from=newer.target.value.valid_from,
        older_units=len(older.candidates),
        newer_units=len(newer.candidates),
        marked=marked,
    )


@dataclass(frozen=True)
class ChainStep:
    """One step of a gold superseding chain, with the units holding each end's amount
    (by amount and category only, any dates)."""

    fact_id: str
    older_value: Decimal
    older_valid_from: dt.date
    newer_value: Decimal
    newer_valid_from: dt.date
    older_unit_ids: frozenset[int]
    newer_unit_ids: frozenset[int]


def chain_steps(*, gold_path: Path) -> list[ChainStep]:
    """Every step (consecutive printed values of one fact) of the gold's chains, with the
    alive threshold units that hold each value: what a superseding proposal should pair."""
    targets = targets_build(facts=gold_load(path=gold_path))
    outcomes = outcomes_score(targets=targets, units=threshold_units())
    return [
        ChainStep(
            fact_id=older.target.fact.fact_id,
            older_value=older.target.value.value,
            older_valid_from=older.target.value.valid_from,
            newer_value=newer.target.value.value,
            newer_valid_from=newer.target.value.valid_from,
            older_unit_ids=frozenset(u.id for u in older.candidates),
            newer_unit_ids=frozenset(u.id for u in newer.candidates),
        )
        for older, newer in _consecutive(outcomes)
    ]


def threshold_recall(*, gold_path: Path) -> ThresholdReport:
    """Score the knowledge base's threshold units against the threshold gold."""
    facts = gold_load(path=gold_path)
    targets = targets_build(facts=facts)
    units = threshold_units()
    outcomes = outcomes_score(targets=targets, units=units)
    stated = [u for u in units if u.validity_basis != PAGE_FILE_PERIOD]
    chains = _chains(outcomes)
    misses = [o for o in outcomes if not o.hits]
    return ThresholdReport(
        gold_path=str(gold_path),
        facts=len(facts),
        units_considered=len(units),
        recall=_recall(outcomes),
        categories=_categories(outcomes),
        misses=tuple(_miss(o) for o in misses),
        dating_errors=tuple(_dating_error(o) for o in misses if o.candidates),
        chains=chains,
        chains_checked=len(chains),
        chains_marked=sum(1 for c in chains if c.marked),
        recall_without_page_file_periods=_recall(outcomes_score(targets=targets, units=stated)),
    )
