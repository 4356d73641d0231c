"""A claim read for the person an answer is for: whether they can (or cannot) get, open or
claim what it says is decided by the rule about them — the age bounds of the clause about it
("18 or over but under 40 for a Lifetime ISA"), or whom the unit is for — and a supported
claim whose supporting units are all for other people is not supported for them."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.domain.temporal import TemporalStatus
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import Claim
from knowledge.reading.compare import unit_clause
from knowledge.text.ages_incomes import age_bounds
from knowledge.text.applicability import Applicability
from knowledge.text.words import denies
from knowledge.verification.verdicts import ClaimVerdict

_ELIGIBILITY = re.compile(
    r"\b(?:can|could|cannot|can't|able to|eligible|qualify|qualifies|entitled|allowed to|"
    r"too (?:old|young))\b",
    re.I,
)


def for_person(
    claim: Claim, about: list[Evidence], person: Person, day: dt.date
) -> ClaimVerdict | None:
    """A claim that this person can (or cannot) get, open or claim something, checked against
    the rule that decides it for them: the age bounds of the clause about it ("18 or over but
    under 40 for a Lifetime ISA"), or whom the unit is for. None when no unit decides."""
    if not _ELIGIBILITY.search(claim.text):
        return None
    says_can = not denies(re.sub(r"\b(?:too old|too young)\b", "", claim.text)) and not re.search(
        r"\btoo (?:old|young)\b", claim.text, re.I
    )
    for evidence in about[:5]:
        if evidence.temporal_status not in (TemporalStatus.CURRENT, TemporalStatus.OUTDATED):
            continue
        decided = _person_decided(claim, evidence, person)
        if decided is None:
            continue
        lets_them, condition = decided
        if lets_them == says_can:
            verdict = ClaimVerdict(claim, "supported", "fits_this_person", [evidence])
        else:
            verdict = ClaimVerdict(claim, "contradicted", "not_for_this_person", [evidence])
            verdict.knowledge_base_value = condition
        verdict.explanation = condition
        return verdict
    return None


def _person_decided(claim: Claim, evidence: Evidence, person: Person) -> tuple[bool, str] | None:
    """(whether the unit lets this person, the condition in words), or None."""
    if person.age is not None:
        clause = unit_clause(claim, evidence.unit, bounded=True)
        bounds = age_bounds(clause) if clause else None
        if bounds is not None:
            low, high = bounds
            inside = (low is None or person.age >= low) and (high is None or person.age <= high)
            return inside, f"{clause.strip()} (you are {person.age})"
    fit = profile_fit(Applicability.from_json(evidence.unit.applicability), person)
    if fit.applies is None:
        return None
    return fit.applies, fit.reason


def verdict_for_person(verdict: ClaimVerdict, person: Person) -> ClaimVerdict:
    """A supported claim whose supporting units are all for other people (another nation,
    age, income, circumstance) is unsupported for this person, saying whom they are for."""
    if verdict.verdict != "supported" or not verdict.evidence:
        return verdict
    if verdict.reason == "fits_this_person":
        return verdict
    fits = [
        profile_fit(Applicability.from_json(e.unit.applicability), person) for e in verdict.evidence
    ]
    if not all(fit.applies is False for fit in fits):
        return verdict
    return dataclasses.replace(
        verdict,
        verdict="unsupported",
        reason="not_for_this_profile",
        explanation=f"The facts that state it are {fits[0].reason}.",
    )
