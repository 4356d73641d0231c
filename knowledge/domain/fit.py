"""Whether a statement is for a person (`profile_fit`), and why (`Fit`).

A statement's applicability (knowledge.text.applicability) is compared with the person
field by field. A field the person leaves out, or the statement does not narrow, decides
nothing; a field both speak of either matches (the statement is for this person: "for people
aged under 25") or contradicts it ("for people living in England" to a Scot). A statement
that contradicts any field does not apply; one that matches some and contradicts none does;
the rest are for everyone."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from knowledge.domain.profile import Person
from knowledge.text.applicability import EMPLOYMENTS, Applicability
from knowledge.text.birth_dates import birth_range_of_age
from knowledge.text.nations import NATION_NAMES
from knowledge.text.tax_bands import TAX_BANDS

# A heuristic of who is few among adults, for telling a statement that names this person from
# a rule nearly everyone meets ("aged 16 or over", "income over £85"): an age bound from 25 up
# or to 39 down, an income bound from £50,000 (the higher rate band) up or to £20,000 down,
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


def profile_fit(applicability: Applicability, profile: Person) -> Fit:
    matched: list[str] = []
    contradicted: list[str] = []
    singling_out: list[str] = []

    matched_on: set[str] = set()
    contradicted_on: set[str] = set()

    def compare(holds: bool, description: str, *, on: str, selective: bool = False) -> None:
        (matched if holds else contradicted).append(description)
        (matched_on if holds else contradicted_on).add(on)
        if holds and selective:
            singling_out.append(description)

    # "Everywhere but Scotland" names nobody in particular: for everyone living there.
    nation_names_them = len(applicability.nations) < 3
    if (
        applicability.nations
        and profile.nation
        and (nation_names_them or profile.nation not in applicability.nations)
    ):
        compare(
            profile.nation in applicability.nations,
            f"for people living in {_nations(applicability.nations)}",
            on="nation",
            selective=profile.nation != "england",
        )
    if profile.age is not None:
        ages = _by_age(applicability, profile)
        births = _by_birth(applicability, profile)
        if ages and births:
            # gov.uk gives both as ways of saying who ("if: you're under 16; you were born on
            # or before 8 April 1948"): either holding is enough.
            holding = next((condition for condition in (ages, births) if condition[0]), None)
            if holding is not None:
                compare(True, holding[1], on="age", selective=holding[2])
            else:
                compare(False, f"{ages[1]}, or {births[1].removeprefix('for people ')}", on="age")
        elif ages or births:
            holds, description, selective = ages or births
            compare(holds, description, on="age", selective=selective)
        if applicability.state_pension_age:
            reached = profile.age >= STATE_PENSION_AGE
            compare(
                reached == (applicability.state_pension_age == "reached"),
                f"for people {'over' if applicability.state_pension_age == 'reached' else 'under'} State Pension age",
                on="age",
                selective=applicability.state_pension_age == "reached",
            )
    if profile.annual_income is not None:
        income = Decimal(profile.annual_income)
        if applicability.income_min is not None or applicability.income_max is not None:
            low, high = applicability.income_min, applicability.income_max
            compare(
                (low is None or income >= low) and (high is None or income <= high),
                _incomes(low, high),
                on="annual_income",
                selective=(low or 0) >= SINGLES_OUT["income_from"]
                or (high is not None and high <= SINGLES_OUT["income_to"]),
            )
    # Decided only when every band the income may fall in is named, or none is.
    if (
        applicability.tax_bands
        and profile.tax_bands
        and (
            profile.tax_bands <= applicability.tax_bands
            or not profile.tax_bands & applicability.tax_bands
        )
    ):
        compare(
            profile.tax_bands <= applicability.tax_bands,
            f"for {_bands(applicability.tax_bands)} rate taxpayers",
            on="annual_income",
            selective="basic" not in applicability.tax_bands,
        )
    if applicability.employment and profile.employment:
        compare(
            profile.employment in applicability.employment,
            _work(applicability.employment),
            on="employment",
            selective=len(applicability.employment) == 1 and profile.employment != "employed",
        )
    if applicability.partner is not None and profile.partner is not None:
        compare(
            profile.partner == applicability.partner,
            "for couples" if applicability.partner else "for single people",
            on="partner",
        )
    if applicability.children_min is not None and profile.children_ages is not None:
        count, low, high = (
            len(profile.children_ages),
            applicability.children_min,
            applicability.children_max,
        )
        compare(
            low <= count and (high is None or count <= high),
            _children(low, high),
            on="children_ages",
            selective=True,
        )
    if applicability.student_loan_plans and profile.student_loan_plan:
        names = " or ".join(
            sorted(p.replace("_", " ").capitalize() for p in applicability.student_loan_plans)
        )
        compare(
            profile.student_loan_plan in applicability.student_loan_plans,
            f"for {names} loans",
            on="student_loan_plan",
            selective=True,
        )
    # A benefit a statement is for matches a profile receiving it; a profile without it may
    # be about to claim, so its absence contradicts nothing.
    if applicability.benefits and profile.benefits:
        received = sorted(applicability.benefits & profile.benefits)
        if received:
            compare(
                True,
                f"for people getting {', '.join(b.replace('_', ' ') for b in received)}",
                on="benefits",
                selective=True,
            )
    # One way in of a list of alternatives that names the person names them; one that does
    # not, excludes no one (another item may be theirs).
    for way in applicability.any_of:
        fit = profile_fit(way, profile)
        if fit.applies:
            matched += [m for m in fit.matched if m not in matched]
            singling_out += [m for m in fit.singling_out if m not in singling_out]
            matched_on |= fit.matched_on
    applies = False if contradicted else True if matched else None
    return Fit(applies, matched, contradicted, singling_out, matched_on, contradicted_on)


def _bands(bands: frozenset[str]) -> str:
    return " or ".join(band for band in TAX_BANDS if band in bands)


def _by_age(applicability: Applicability, person: Person) -> tuple[bool, str, bool] | None:
    if applicability.age_min is None and applicability.age_max is None:
        return None
    low, high = applicability.age_min or 0, applicability.age_max
    return (
        low <= person.age and (high is None or person.age <= high),
        _ages(low, high),
        low >= SINGLES_OUT["age_from"] or (high or 200) <= SINGLES_OUT["age_to"],
    )


def _by_birth(applicability: Applicability, person: Person) -> tuple[bool, str, bool] | None:
    """Whether every date of birth the person's age allows is inside the statement's range
    (True), outside it (False); None when it cannot tell (they may be either side)."""
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
    return inside, _births(born_from, born_before), selective


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
