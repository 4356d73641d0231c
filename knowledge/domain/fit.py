"""Whether a statement is for a person (`profile_fit`), and why (`Fit`).

A statement's applicability (knowledge.text.applicability) is compared with the person
field by field. A field the person leaves out, or the statement does not narrow, decides
nothing; a field both speak of either matches (the statement is for this person: "for people
aged under 25") or contradicts it ("for people living in England" to a Scot). A statement
that contradicts any field does not apply; one that matches some and contradicts none does;
the rest are for everyone."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from knowledge.domain.profile import Person
from knowledge.text.applicability import EMPLOYMENTS, Applicability
from knowledge.text.birth_dates import birth_range_of_age
from knowledge.text.nations import NATION_NAMES
from knowledge.text.tax_bands import TAX_BANDS

# A heuristic of who is few among adults, for telling a statement that names this person from
# a rule nearly everyone meets ("aged 16 or over", "income over £85"): an age bound from 50 up
# or to 24 down, an income bound from £50,000 (the higher rate band) up or to £20,000 down,
# work other than employment, children, a benefit, a loan plan, a devolved nation. gov.uk
# writes for England unless it says otherwise, so a statement for England singles out no one.
SINGLES_OUT = {"age_from": 50, "age_to": 24, "income_from": 50_000, "income_to": 20_000}

# The State Pension age of anyone the profile can describe today: 66, rising to 67 from 2026
# to 2028; an age of 66 is read as reached, which the statement's own words then qualify.
STATE_PENSION_AGE = 66


@dataclass(frozen=True)
class Fit:
    """Whether a statement is for this person: `applies` True (it names them), False (it is
    for someone else) or None (for everyone, or nothing to compare), and why."""

    applies: bool | None
    matched: list[str] = field(default_factory=list)
    contradicted: list[str] = field(default_factory=list)
    # Of `matched`, the conditions that single out a minority of adults (SINGLES_OUT): what
    # makes a statement news to this person rather than a rule nearly everyone meets.
    singling_out: list[str] = field(default_factory=list)
    # Which of the person's fields (nation, age, income, work, ...) matched, and which did not.
    matched_on: set[str] = field(default_factory=set)
    contradicted_on: set[str] = field(default_factory=set)

    @property
    def reason(self) -> str:
        return "; ".join(self.contradicted if self.applies is False else self.matched)


def profile_fit(applicability: Applicability, person: Person) -> Fit:
    """Whether a statement, read as `applicability`, is for `person`. Each check of CHECKS
    compares one of the person's fields with what the statement says of it (their nation,
    age, income and band, work, household, loan plan, benefits; then the ways in of a list of
    alternatives), and compares nothing where either is silent. `applies` is False when a
    comparison contradicts the person (the statement is for someone else), True when some
    match and none contradicts (it names them), None when none was made (it is for everyone,
    or there is nothing to compare). The conditions are listed in the order of CHECKS; one
    that a way in repeats is listed once."""
    matched: list[str] = []
    contradicted: list[str] = []
    singling_out: list[str] = []
    matched_on: set[str] = set()
    contradicted_on: set[str] = set()
    for holds, description, on, selective in _comparisons(applicability, person):
        if not holds:
            contradicted.append(description)
            contradicted_on.add(on)
            continue
        matched_on.add(on)
        if description not in matched:
            matched.append(description)
        if selective and description not in singling_out:
            singling_out.append(description)
    applies = False if contradicted else True if matched else None
    return Fit(applies, matched, contradicted, singling_out, matched_on, contradicted_on)


class Comparison(NamedTuple):
    """One of the person's fields against what a statement says of it: whether the statement's
    condition holds for them, the condition in words, the field (`on`), and whether it singles
    out a minority of adults (SINGLES_OUT)."""

    holds: bool
    description: str
    on: str
    selective: bool = False


def _comparisons(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    for check in CHECKS:
        yield from check(applicability, person)


def _compare_nation(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    nations = applicability.nations
    # "Everywhere but Scotland" names nobody in particular: for everyone living there.
    if nations and person.nation and (len(nations) < 3 or person.nation not in nations):
        yield Comparison(
            person.nation in nations,
            f"for people living in {_nations(nations)}",
            on="nation",
            selective=person.nation != "england",
        )


def _compare_age(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    """An age bound and a range of dates of birth given together are two ways of saying who
    ("if: you're under 16; you were born on or before 8 April 1948"): either holding is
    enough."""
    if person.age is None:
        return
    compared = (_by_age(applicability, person), _by_birth(applicability, person))
    said = [comparison for comparison in compared if comparison is not None]
    holding = next((comparison for comparison in said if comparison.holds), None)
    if holding is not None:
        yield holding
    elif len(said) == 2:
        ages, births = said
        either = f"{ages.description}, or {births.description.removeprefix('for people ')}"
        yield Comparison(False, either, on="age")
    elif said:
        yield said[0]


def _compare_state_pension_age(
    applicability: Applicability, person: Person
) -> Iterator[Comparison]:
    if person.age is None or not applicability.state_pension_age:
        return
    reached = applicability.state_pension_age == "reached"
    yield Comparison(
        (person.age >= STATE_PENSION_AGE) == reached,
        f"for people {'over' if reached else 'under'} State Pension age",
        on="age",
        selective=reached,
    )


def _compare_income(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    low, high = applicability.income_min, applicability.income_max
    if person.annual_income is None or (low is None and high is None):
        return
    income = Decimal(person.annual_income)
    yield Comparison(
        (low is None or income >= low) and (high is None or income <= high),
        _incomes(low, high),
        on="annual_income",
        selective=(low or 0) >= SINGLES_OUT["income_from"]
        or (high is not None and high <= SINGLES_OUT["income_to"]),
    )


def _compare_tax_bands(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    named, theirs = applicability.tax_bands, person.tax_bands
    # Decided only when every band the income may fall in is named, or none is.
    if named and theirs and (theirs <= named or not theirs & named):
        yield Comparison(
            theirs <= named,
            f"for {_bands(named)} rate taxpayers",
            on="annual_income",
            selective="basic" not in named,
        )


def _compare_employment(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    work = applicability.employment
    if work and person.employment:
        yield Comparison(
            person.employment in work,
            _work(work),
            on="employment",
            selective=len(work) == 1 and person.employment != "employed",
        )


def _compare_partner(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    if applicability.partner is not None and person.partner is not None:
        yield Comparison(
            person.partner == applicability.partner,
            "for couples" if applicability.partner else "for single people",
            on="partner",
        )


def _compare_children(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    low, high = applicability.children_min, applicability.children_max
    if low is not None and person.children_ages is not None:
        count = len(person.children_ages)
        yield Comparison(
            low <= count and (high is None or count <= high),
            _children(low, high),
            on="children_ages",
            selective=True,
        )


def _compare_student_loan_plan(
    applicability: Applicability, person: Person
) -> Iterator[Comparison]:
    plans = applicability.student_loan_plans
    if plans and person.student_loan_plan:
        names = " or ".join(sorted(p.replace("_", " ").capitalize() for p in plans))
        yield Comparison(
            person.student_loan_plan in plans,
            f"for {names} loans",
            on="student_loan_plan",
            selective=True,
        )


def _compare_benefits(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    # A benefit a statement is for matches a person receiving it; a person without it may be
    # about to claim, so its absence contradicts nothing.
    received = sorted(applicability.benefits & (person.benefits or frozenset()))
    if received:
        yield Comparison(
            True,
            f"for people getting {', '.join(b.replace('_', ' ') for b in received)}",
            on="benefits",
            selective=True,
        )


def _compare_alternatives(applicability: Applicability, person: Person) -> Iterator[Comparison]:
    # One way in of a list of alternatives that names the person names them; one that does
    # not, excludes no one (another item may be theirs).
    for way in applicability.any_of:
        compared = list(_comparisons(way, person))
        if compared and all(comparison.holds for comparison in compared):
            yield from compared


# What profile_fit compares, in the order it gives its reasons: each check compares one of the
# person's fields with what the statement says of it, and yields nothing where either is silent.
CHECKS: tuple[Callable[[Applicability, Person], Iterator[Comparison]], ...] = (
    _compare_nation,
    _compare_age,
    _compare_state_pension_age,
    _compare_income,
    _compare_tax_bands,
    _compare_employment,
    _compare_partner,
    _compare_children,
    _compare_student_loan_plan,
    _compare_benefits,
    _compare_alternatives,
)


def _bands(bands: frozenset[str]) -> str:
    return " or ".join(band for band in TAX_BANDS if band in bands)


def _by_age(applicability: Applicability, person: Person) -> Comparison | None:
    if applicability.age_min is None and applicability.age_max is None:
        return None
    low, high = applicability.age_min or 0, applicability.age_max
    return Comparison(
        low <= person.age and (high is None or person.age <= high),
        _ages(low, high),
        on="age",
        selective=low >= SINGLES_OUT["age_from"] or (high or 200) <= SINGLES_OUT["age_to"],
    )


def _by_birth(applicability: Applicability, person: Person) -> Comparison | None:
    """Whether every date of birth the person's age allows is inside the statement's range
    (holds), outside it (does not); None when it cannot tell (they may be either side)."""
    born_from, born_before = applicability.born_from, applicability.born_before
    if born_from is None and born_before is None:
        return None
    day = person.age_on or dt.date.today()
    earliest, latest = birth_range_of_age(person.age, day)
    inside = (born_from is None or earliest >= born_from) and (
        born_before is None or latest < born_before
    )
    outside = (born_from is not None and latest < born_from) or (
        born_before is not None and earliest >= born_before
    )
    if not (inside or outside):
        return None
    # As an age bound would: "born before 6 April 1948" singles out the old, "born on or
    # after 6 April 1951" (everyone under 70 or so) no one.
    selective = (
        born_before is not None and _age_on(born_before, day) >= SINGLES_OUT["age_from"]
    ) or (born_from is not None and _age_on(born_from, day) <= SINGLES_OUT["age_to"])
    return Comparison(inside, _births(born_from, born_before), on="age", selective=selective)


def _age_on(birthday: dt.date, day: dt.date) -> int:
    return day.year - birthday.year - ((day.month, day.day) < (birthday.month, birthday.day))


def _births(born_from: dt.date | None, born_before: dt.date | None) -> str:
    def day(d: dt.date) -> str:
        return f"{d.day} {d:%B %Y}"

    last = None if born_before is None else born_before - dt.timedelta(days=1)
    if born_from is not None and last is not None:
        return f"for people born between {day(born_from)} and {day(last)}"
    if born_from is not None:
        return f"for people born on or after {day(born_from)}"
    return f"for people born on or before {day(last)}"


def _children(low: int, high: int | None) -> str:
    if high is None:
        return "for people with children" if low <= 1 else f"for people with {low} or more children"
    return (
        "for people with one child"
        if low == high == 1
        else f"for people with {low} to {high} children"
    )


def _nations(codes) -> str:
    names = [NATION_NAMES[code] for code in sorted(codes, key=list(NATION_NAMES).index)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _ages(low: int, high: int | None) -> str:
    if high is None:
        return f"for people aged {low} or over"
    if not low:
        return f"for people aged under {high + 1}"
    return f"for people aged {low} to {high}"


def _incomes(low: Decimal | None, high: Decimal | None) -> str:
    if low is not None and high is not None:
        return f"for incomes of {_pounds(low)} to {_pounds(high)} a year"
    if low is not None:
        return f"for incomes over {_pounds(low)} a year"
    return f"for incomes up to {_pounds(high)} a year"


def _pounds(amount: Decimal) -> str:
    """£17,570, or £17,569.99 where the bound is a penny under a limit."""
    return f"£{amount:,.2f}" if amount % 1 else f"£{amount:,.0f}"


def _work(employments: frozenset[str]) -> str:
    """ "for people who are self-employed"; a section for all work but one says which it
    leaves out ("not for people who are self-employed")."""
    left_out = set(EMPLOYMENTS) - employments
    if len(left_out) == 1:
        return f"not for people who are {left_out.pop().replace('_', '-')}"
    return "for people who are " + " or ".join(sorted(e.replace("_", "-") for e in employments))
