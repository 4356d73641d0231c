"""Units that name a person, as an SQL condition on their stored applicability: a search for a
person reads them from each shown concept though other units are nearer the question's words
("If you live in Scotland: You can apply for a Funeral Support Payment" for a Scottish user
asking about funeral costs). Loose on purpose: the condition finds the candidates by the
readings that single a person out (knowledge.domain.fit.SINGLES_OUT); profile_fit then
decides, unit by unit, which of them are kept."""

from __future__ import annotations

from knowledge.domain.fit import SINGLES_OUT, STATE_PENSION_AGE
from knowledge.domain.profile import Person


def person_named_sql(person: Person | None, *, table: str = "u") -> tuple[str, dict]:
    """An SQL condition true of a unit whose applicability names `person` by what singles
    them out, and its parameters; ("FALSE", {}) when nothing about them does."""
    applies = f"{table}.applicability"
    conditions: list[str] = []
    params: dict = {}
    if person is None:
        return "FALSE", params
    if person.nation and person.nation != "england":  # gov.uk writes for England
        conditions.append(f"{applies}->'nations' ? %(person_nation)s")
        params["person_nation"] = person.nation
    if person.benefits:
        conditions.append(f"{applies}->'benefits' ?| %(person_benefits)s::text[]")
        params["person_benefits"] = sorted(person.benefits)
    if person.employment and person.employment != "employed":
        conditions.append(f"{applies}->'employment' ? %(person_employment)s")
        params["person_employment"] = person.employment
    if person.student_loan_plan:
        conditions.append(f"{applies}->'student_loan_plans' ? %(person_plan)s")
        params["person_plan"] = person.student_loan_plan
    if person.children_ages:
        conditions.append(f"{applies} ? 'children_min'")
    if person.tax_bands and "basic" not in person.tax_bands:  # few pay above the basic rate
        conditions.append(f"{applies}->'tax_bands' ?| %(person_bands)s::text[]")
        params["person_bands"] = sorted(person.tax_bands)
    if person.annual_income is not None:
        params["person_income"] = person.annual_income
        conditions.append(_singling_bound(applies, "income", "%(person_income)s::numeric"))
    if person.age is not None:
        params["person_age"] = person.age
        conditions.append(_singling_bound(applies, "age", "%(person_age)s::int"))
        if person.age >= STATE_PENSION_AGE:
            conditions.append(f"{applies}->>'state_pension_age' = 'reached'")
    if not conditions:
        return "FALSE", params
    return "(" + " OR ".join(f"({c})" for c in conditions) + ")", params


def _singling_bound(applies: str, bound: str, value: str) -> str:
    """A lower bound from SINGLES_OUT's "from" up to the person's value, or an upper bound
    from their value down to its "to" ("income over £60,000" for someone on £65,000; "under
    25" for a 23-year-old)."""
    cast = value.rsplit("::", 1)[1]
    low, high = SINGLES_OUT[f"{bound}_from"], SINGLES_OUT[f"{bound}_to"]
    return (
        f"(({applies}->>'{bound}_min')::{cast} BETWEEN {low} AND {value})"
        f" OR (({applies}->>'{bound}_max')::{cast} BETWEEN {value} AND {high})"
    )
