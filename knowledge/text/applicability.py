"""Who a statement is for, read from gov.uk English: the UK nations it is narrowed to, the age
and income bounds of the person it speaks about, their Income Tax band, their work, household,
benefits and student loan plan; from the statement's own words (list lead-in included, as the unit's text carries
it), its heading path ("If you live in Scotland") and its page (knowledge.text.exceptions).

A condition counts only where the statement is about the reader ("if you're under 25",
"employees over State Pension age", "if you or your partner earn more than £60,000"): an age
or amount that belongs to a child, a course or a payment does not narrow who it is for.
Nothing read means the statement is for everyone (UK-wide, any age, any income).

Each field has a reader of its own (ages and incomes: knowledge.text.ages_incomes; dates of
birth: birth_dates; work, household, benefits and loan plans: circumstances; nations;
tax_bands). This module puts their readings together, reads the ways in of a list of
alternatives, and holds the stored form with its check (`applicability_checked`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass, field, fields
from decimal import Decimal

from knowledge.text.ages_incomes import ages_read, incomes_read
from knowledge.text.birth_dates import births_read
from knowledge.text.circumstances import (
    EMPLOYMENTS,
    STUDENT_LOAN_PLANS,
    circumstances_read,
    plans_named,
)
from knowledge.text.nations import NATIONS, names_a_nation, nations_read
from knowledge.text.sections import statement_body
from knowledge.text.tax_bands import TAX_BANDS, tax_bands_read


@dataclass(frozen=True)
class Applicability:
    """Who a statement is for; an empty field does not narrow it. Ages are inclusive years;
    incomes are pounds a year (a weekly or monthly figure is counted over the year)."""

    nations: frozenset[str] = frozenset()
    age_min: int | None = None
    age_max: int | None = None
    state_pension_age: str = ""  # "under" or "reached"
    born_from: dt.date | None = None  # the reader's date of birth, from (inclusive)
    born_before: dt.date | None = None  # and before (exclusive)
    income_min: Decimal | None = None
    income_max: Decimal | None = None
    employment: frozenset[str] = frozenset()
    partner: bool | None = None
    children_min: int | None = None  # how many children the person is responsible for
    children_max: int | None = None
    benefits: frozenset[str] = frozenset()
    student_loan_plans: frozenset[str] = frozenset()
    tax_bands: frozenset[str] = frozenset()  # Income Tax bands, by name (knowledge.text.tax_bands)
    # Ways in of a list of alternatives, each what one item says of the reader: a person one
    # of them names is named by the statement, one none names is not excluded by it.
    any_of: tuple[Applicability, ...] = ()
    basis: tuple[str, ...] = field(default=(), compare=False)  # where each reading came from

    def is_everyone(self) -> bool:
        return self == Applicability()

    def as_json(self) -> dict:
        """The stored form: only what narrows it."""
        data = {
            "nations": sorted(self.nations),
            "age_min": self.age_min,
            "age_max": self.age_max,
            "state_pension_age": self.state_pension_age,
            "born_from": None if self.born_from is None else self.born_from.isoformat(),
            "born_before": None if self.born_before is None else self.born_before.isoformat(),
            "income_min": None if self.income_min is None else str(self.income_min),
            "income_max": None if self.income_max is None else str(self.income_max),
            "employment": sorted(self.employment),
            "partner": self.partner,
            "children_min": self.children_min,
            "children_max": self.children_max,
            "benefits": sorted(self.benefits),
            "student_loan_plans": sorted(self.student_loan_plans),
            "tax_bands": sorted(self.tax_bands, key=TAX_BANDS.index),
            "any_of": [way.as_json() for way in self.any_of],
        }
        return {key: value for key, value in data.items() if value not in (None, "", [])}

    @classmethod
    def from_json(cls, data: dict | None) -> Applicability:
        data = data or {}
        money = {
            key: Decimal(str(data[key])) if data.get(key) is not None else None
            for key in ("income_min", "income_max")
        }
        return cls(
            nations=frozenset(data.get("nations", ())),
            age_min=data.get("age_min"),
            age_max=data.get("age_max"),
            state_pension_age=data.get("state_pension_age", ""),
            born_from=_day(data.get("born_from")),
            born_before=_day(data.get("born_before")),
            employment=frozenset(data.get("employment", ())),
            partner=data.get("partner"),
            children_min=data.get("children_min"),
            children_max=data.get("children_max"),
            benefits=frozenset(data.get("benefits", ())),
            student_loan_plans=frozenset(data.get("student_loan_plans", ())),
            tax_bands=frozenset(data.get("tax_bands", ())),
            any_of=tuple(cls.from_json(way) for way in data.get("any_of", ())),
            **money,
        )


def applicability_read(
    text: str,
    *,
    heading_path: list[str] | None = None,
    page_nations: tuple[set[str], str] = (set(), ""),
    unit_type: str = "",
) -> Applicability:
    """Who the statement is for (see the module's docstring). `page_nations` is what
    page_nations_read found for its page, used when the statement and its headings name
    no nation. A worked example's ages, incomes and circumstances are the example's, not
    conditions on who it is for: of an example only the nations and loan plans are read."""
    headings = [h for h in (heading_path or []) if h]
    nations, nation_basis = nations_read(text, headings)
    if not nations and page_nations[0] and not names_a_nation(text):
        # A statement that names a nation later on speaks of it too: not the page's others'.
        nations, nation_basis = set(page_nations[0]), page_nations[1]
    only_in = frozenset(nations) if set(nations) != set(NATIONS) else frozenset()
    if unit_type == "example":  # a worked example of one loan plan is for that plan's borrowers
        return Applicability(nations=only_in, student_loan_plans=plans_named(text))
    basis = (f"nations from {nation_basis}",) if nation_basis else ()
    read = dataclasses.replace(_personal_read(text, headings), nations=only_in, basis=basis)
    lead = _ALTERNATIVES.search(text)
    items = [i for i in re.split(r";\s*", text[lead.end() :]) if i.strip()] if lead else []
    if len(items) < 2:
        return read
    # "You can claim if any of the following apply: you're responsible for a child; you live
    # with your partner …": what one item says is one way in, not a condition on everyone.
    said_before = _personal_read(text[: lead.start()], headings)
    each = [_personal_read(item, []) for item in items]
    kept = {
        key
        for key in _ONE_WAY_KEYS
        # benefits are alternatives already: one received matches, none contradicts
        if key == "benefits"
        or _said(said_before, _GROUNDS[key])
        or all(_said(item, _GROUNDS[key]) for item in each)
    }
    dropped = {key: getattr(Applicability(), key) for key in _ONE_WAY_KEYS - kept}
    kept_emptied = {key: getattr(Applicability(), key) for key in kept}
    ways = [
        way for item in each if not (way := dataclasses.replace(item, **kept_emptied)).is_everyone()
    ]
    return dataclasses.replace(read, **dropped, any_of=tuple(ways))


# A lead-in to alternatives: "if any of the following apply:", "one of the following is true:",
# and gov.uk's plain "if:" ("You'll keep getting DLA if: you're under 16; you were born on or
# before 8 April 1948"), whose items are read as alternatives too: a way in names the person it
# describes and excludes no one, so a list that meant "all of these" loses only a contradiction.
_ALTERNATIVES = re.compile(
    r"\b(?:(?:any|either|one|at least one) of the following(?: \w+){0,2}?|if|either)\s*:",
    re.IGNORECASE,
)


def _said(applicability: Applicability, keys: frozenset[str]) -> bool:
    """The reading says something on these grounds."""
    return any(getattr(applicability, key) != getattr(Applicability(), key) for key in keys)


# The keys that say one thing of the reader between them: an item saying "you're under 16" and
# another "you were born on or before 8 April 1948" both speak of their age, which profile_fit
# compares as one (either holding is enough), so the list is still for those ages only.
_AGE = frozenset(("age_min", "age_max", "state_pension_age", "born_from", "born_before"))
_INCOME = frozenset(("income_min", "income_max"))
_CHILDREN = frozenset(("children_min", "children_max"))


def _personal_read(text: str, headings: list[str]) -> Applicability:
    """Everything but the nations: the reader's age, income, band and circumstances."""
    # Bounds in the "Page > Heading: " the extractor wrote before the statement hold as well
    # as the statement's own ("If your profits are £6,725 or more: if your profits are more
    # than £12,570 ..."): they narrow each other, where bounds in the statement's clauses
    # are alternatives.
    body = statement_body(text)
    heading_words = text[: len(text) - len(body)]
    _, _, pension = ages_read(text)
    age_min, age_max = _narrowed(ages_read(body)[:2], ages_read(heading_words)[:2])
    born_from, born_before = births_read(text)
    income_min, income_max = _narrowed(incomes_read(body), incomes_read(heading_words))
    return Applicability(
        age_min=age_min,
        age_max=age_max,
        state_pension_age=pension,
        born_from=born_from,
        born_before=born_before,
        income_min=income_min,
        income_max=income_max,
        tax_bands=tax_bands_read(text, headings),
        **circumstances_read(text, headings),
    )


def _narrowed(own: tuple, heading: tuple) -> tuple:
    """Bounds (low, high) that hold together; the statement's own when they cannot."""
    lows = [bound for bound in (own[0], heading[0]) if bound is not None]
    highs = [bound for bound in (own[1], heading[1]) if bound is not None]
    low, high = max(lows, default=None), min(highs, default=None)
    if low is not None and high is not None and low > high:
        return own
    return low, high


STORED_KEYS = frozenset(f.name for f in fields(Applicability) if f.name != "basis")
# What narrows a statement to some people in a nation rather than to the nation as a whole.
PERSONAL_KEYS = STORED_KEYS - {"nations"}
# What one item of a list of alternatives can say of the reader, and on what ground.
_ONE_WAY_KEYS = PERSONAL_KEYS - {"any_of"}
_GROUNDS = {
    key: next((g for g in (_AGE, _INCOME, _CHILDREN) if key in g), frozenset((key,)))
    for key in _ONE_WAY_KEYS
}


def applicability_checked(data, *, nested: bool = False) -> dict:
    """An expert's or a model's applicability, in the stored form; ValueError naming the key
    and what is wrong with it."""
    if not isinstance(data, dict):
        raise ValueError("must be an object, {…}; {} is everyone")
    ways = data.get("any_of", [])
    if not isinstance(ways, list) or (nested and "any_of" in data):
        raise ValueError("any_of: a list of objects, each one way in (no any_of inside)")
    for number, way in enumerate(ways, start=1):
        try:
            applicability_checked(way, nested=True)
        except ValueError as error:
            raise ValueError(f"any_of[{number}]: {error}") from None
    unknown = sorted(set(data) - STORED_KEYS)
    if unknown:
        raise ValueError(f"{unknown[0]}: not a key (use {', '.join(sorted(STORED_KEYS))})")
    for key, allowed in (
        ("nations", NATIONS),
        ("employment", EMPLOYMENTS),
        ("student_loan_plans", STUDENT_LOAN_PLANS),
        ("tax_bands", TAX_BANDS),
    ):
        values = data.get(key, [])
        if not isinstance(values, list) or not set(values) <= set(allowed):
            raise ValueError(f"{key}: a list of {', '.join(allowed)}")
    if not isinstance(data.get("benefits", []), list) or not all(
        isinstance(b, str) and re.fullmatch(r"[a-z][a-z0-9_]{1,39}", b)
        for b in data.get("benefits", [])
    ):
        raise ValueError("benefits: a list of snake_case codes, e.g. universal_credit")
    for key, top in (
        ("age_min", 120),
        ("age_max", 120),
        ("children_min", 20),
        ("children_max", 20),
    ):
        value = data.get(key)
        if value is not None and (type(value) is not int or not 0 <= value <= top):
            raise ValueError(f"{key}: a whole number from 0 to {top}")
    for key in ("income_min", "income_max"):
        value = data.get(key)
        try:
            if value is not None and not 0 <= Decimal(str(value)) < 10**9:
                raise ValueError
        except (ValueError, ArithmeticError):
            raise ValueError(f"{key}: an amount in £ a year, e.g. 60000") from None
    for key in ("born_from", "born_before"):
        if data.get(key) is not None and not _plausible_birth(data[key]):
            raise ValueError(f"{key}: a date of birth, YYYY-MM-DD, e.g. 1951-04-06")
    if data.get("state_pension_age", "") not in ("", "under", "reached"):
        raise ValueError("state_pension_age: under or reached")
    if data.get("partner") not in (None, True, False):
        raise ValueError("partner: true (couples), false (single people) or left out")
    return Applicability.from_json(data).as_json()


def _day(value) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def _plausible_birth(value) -> bool:
    try:
        return dt.date(1890, 1, 1) <= dt.date.fromisoformat(value) <= dt.date(2100, 1, 1)
    except (TypeError, ValueError):
        return False
