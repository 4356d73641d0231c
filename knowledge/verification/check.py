"""Each claim of an answer checked against the units: figures exactly (amount, unit, period,
the date asked about), statements without figures by meaning. A rule-based checker; the
thresholds below are similarities of MiniLM vectors (`eval_verify --cv` fits them).

Verdicts and reasons:
- supported: `value_matches` (a unit in force on the day states the figure; or the newest
  unit held, whose period ended before the day with nothing newer known: then with a
  `caveat` naming that period), `meaning_matches`;
- contradicted: `value_differs` (a unit on the same topic, in force, states another figure of
  the same kind about the same thing: a word next to its figure is next to the claim's),
  `different_period` (the figure, but per week where the claim says month),
  `not_in_force_on_date` (the figure belongs to another year's unit), `meaning_differs` (a
  unit that says what the claim says, but one of the two denies it: "cannot" for "can");
- unsupported: `no_fact_found`, `wrong_fact_cited` (the figure is right, but none of the
  units the assistant cited states it), `not_for_this_profile` (with a profile: every unit
  that supports it is for other people, the explanation says whom).

Whether a unit states a claim's figure, and about what, is knowledge.verification.unit_figures;
this module decides the verdict from those readings, the units' dates and the thresholds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import time
from dataclasses import dataclass, field

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.domain.temporal import TemporalStatus, as_of_or_today
from knowledge.models import AtomicUnit
from knowledge.text.applicability import Applicability
from knowledge.verification.claims import Claim, Figure, answer_claims
from knowledge.verification.evidence import Evidence, claims_evidence
from knowledge.verification.judge import judged
from knowledge.verification.unit_figures import (
    figure_context,
    other_figure,
    printed_for_another_year,
    states_figure,
    states_figure_beside,
    unit_period,
)


@dataclass(frozen=True)
class Thresholds:
    """Similarities of a claim to a unit (chosen by eval_verify --cv, folds grouped by page)."""

    figure_topic: float = 0.55  # a unit stating the claim's figure is about the claim
    differs_topic: float = 0.50  # a unit stating another figure of that kind is on its topic
    meaning: float = 0.60  # a unit says what a claim without figures says
    # A figure is compared with the units of the concepts nearest the claim: those within
    # this much of the nearest unit's similarity (1 compares with every unit found).
    topic_margin: float = 1.0


THRESHOLDS = Thresholds()


@dataclass
class ClaimVerdict:
    claim: Claim
    verdict: str
    reason: str
    evidence: list[Evidence] = field(default_factory=list)
    knowledge_base_value: str | None = None
    checked_by: str = "rules"  # or "model:<name>" for a claim a chat model judged
    explanation: str = ""  # a model's one sentence on its verdict
    fallback: str = ""  # why a model's judgement was asked for and not used
    # Supported by the newest figure held, whose period has ended: which period that was.
    caveat: str = ""


@dataclass
class Verification:
    claims: list[ClaimVerdict]
    as_of: dt.date
    milliseconds: float

    @property
    def support_score(self) -> float | None:
        if not self.claims:
            return None
        return round(sum(c.verdict == "supported" for c in self.claims) / len(self.claims), 4)


def answer_verify(
    *,
    answer: str,
    as_of: dt.date | None = None,
    cited_unit_ids=(),
    thresholds: Thresholds = THRESHOLDS,
    evidence_of=None,
    judge=None,
    asked: str = "",
    person: Person | None = None,
) -> Verification:
    """`evidence_of(claim, day)`: the units a claim is checked against (by default the
    answer's claims are searched together, `claims_evidence`; an evaluation passes a memo so
    that thresholds can be varied cheaply).
    `judge`: a provider that judges claims without figures (`judge.claim_judge()`); None
    leaves them to the rules. `asked`: the question answered, which a first sentence that
    names no topic of its own ("You can get it for 6 months") leans on. `person`: who the
    answer is for; a claim only other people's facts support is not supported for them."""
    started = time.perf_counter()
    day = as_of_or_today(as_of)
    cited = set(cited_unit_ids)
    claims = answer_claims(answer, before=asked)
    if evidence_of is None:
        evidences = claims_evidence(claims, day)
    else:
        evidences = [evidence_of(claim, day) for claim in claims]
    verdicts = []
    for claim, evidence in zip(claims, evidences, strict=True):
        verdict = claim_verify(
            claim, evidence, cited=cited, thresholds=thresholds, day=day, dated=as_of is not None
        )
        if judge is not None and not claim.figures:
            verdict = judged(verdict, evidence, day=day, judge=judge)
        if person is not None:
            verdict = verdict_for_person(verdict, person)
        verdicts.append(verdict)
    return Verification(verdicts, day, round((time.perf_counter() - started) * 1000, 2))


def verdict_for_person(verdict: ClaimVerdict, person: Person) -> ClaimVerdict:
    """A supported claim whose supporting units are all for other people (another nation,
    age, income, circumstance) is unsupported for this person, saying whom they are for."""
    if verdict.verdict != "supported" or not verdict.evidence:
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


def claim_verify(
    claim: Claim,
    evidence,
    *,
    cited: set[int],
    thresholds: Thresholds,
    day: dt.date | None = None,
    dated: bool = True,
) -> ClaimVerdict:
    """`day`: the day the claim is about (a figure a unit prints for another year's span is
    not in force on it); None skips that reading. `dated`: the answer was sent with the day it
    is about; a claim sent without one is about now."""
    if not claim.figures:
        return _by_meaning(claim, evidence, thresholds)
    verdicts = [
        _figure_verdict(
            claim, figure, evidence, cited=cited, thresholds=thresholds, day=day, dated=dated
        )
        for figure in claim.figures
    ]
    for verdict in verdicts:
        if verdict.verdict == "contradicted":
            return verdict
    if all(v.verdict == "supported" for v in verdicts):
        return verdicts[0]
    return next(v for v in verdicts if v.verdict == "unsupported")


def _by_meaning(claim: Claim, evidence: list[Evidence], thresholds: Thresholds) -> ClaimVerdict:
    """A unit in force close enough in meaning supports the claim, unless one of the two
    denies what the other says ("You cannot have a Junior ISA as well as a Child Trust Fund"
    against "can keep both"): vectors of a sentence and its denial sit close together."""
    in_force = [e for e in evidence if e.temporal_status == "current"]
    if in_force and in_force[0].similarity >= thresholds.meaning:
        if _denies(claim.text) != _denies(in_force[0].unit.text):
            return ClaimVerdict(
                claim, "contradicted", "meaning_differs", in_force[:1], in_force[0].unit.text[:200]
            )
        return ClaimVerdict(claim, "supported", "meaning_matches", in_force[:1])
    return ClaimVerdict(claim, "unsupported", "no_fact_found", in_force[:1])


_DENIAL = re.compile(
    r"\b(?:not|cannot|can't|won't|don't|doesn't|isn't|aren't|never|no longer|neither|nor)\b",
    re.I,
)


def _denies(text: str) -> bool:
    return bool(_DENIAL.search(text))


def _figure_verdict(
    claim,
    figure: Figure,
    evidence,
    *,
    cited,
    thresholds: Thresholds,
    day: dt.date | None,
    dated: bool = True,
) -> ClaimVerdict:
    evidence = _on_topic(evidence, thresholds.topic_margin)
    # A unit its page no longer states (unconfirmed) neither supports a figure nor dates it.
    # Further from the claim, a unit states its figure only about the same thing (a word
    # beside the figure is beside the claim's), as a contradicting figure must.
    near_claim = figure_context(claim.text, figure.start, figure.end)
    stating = [
        e
        for e in evidence
        if e.temporal_status != "unconfirmed"
        and states_figure(e.unit, figure)
        and (
            e.similarity >= thresholds.figure_topic
            or (
                e.similarity >= thresholds.differs_topic
                and states_figure_beside(e.unit, figure, near_claim)
            )
        )
    ]
    in_force = [
        e
        for e in stating
        if e.temporal_status == "current" and not printed_for_another_year(e.unit.text, figure, day)
    ]
    if in_force:
        best = in_force[0]
        period = unit_period(best.unit, figure)
        if figure.period and period and period != figure.period:
            value = f"{figure.printed} a {period.replace('_', ' ')}"
            return ClaimVerdict(claim, "contradicted", "different_period", [best], value)
        if cited and not any(e.unit.pk in cited for e in in_force):
            return ClaimVerdict(claim, "unsupported", "wrong_fact_cited", [best])
        return ClaimVerdict(claim, "supported", "value_matches", [best])
    other = other_figure(claim, figure, evidence)
    if dated:
        # About a given day after the newest period held, an older year's figure does not
        # say what held then (figures change each year): it cannot contradict the claim. A
        # claim about now is checked against the newest figure held.
        other = [e for e in other if e.temporal_status != TemporalStatus.OUTDATED]
    # Past the newest period held nothing newer is known: the claim states the best
    # knowledge there is, said to be that period's (unless a unit in force says otherwise).
    newest = [e for e in stating if e.temporal_status == TemporalStatus.OUTDATED]
    # Only a unit of the same fact (its concept) in force with another figure says otherwise:
    # another concept's figure near the claim is another fact.
    facts = {e.unit.concept_id for e in newest}
    in_force_other = [
        e
        for e in other
        if e.temporal_status == TemporalStatus.CURRENT and e.unit.concept_id in facts
    ]
    if newest and not (in_force_other and in_force_other[0].similarity >= thresholds.differs_topic):
        best = newest[0]
        if cited and not any(e.unit.pk in cited for e in newest):
            return ClaimVerdict(claim, "unsupported", "wrong_fact_cited", [best])
        verdict = ClaimVerdict(claim, "supported", "value_matches", [best])
        verdict.caveat = outdated_caveat(best.unit)
        return verdict
    if stating:
        reason = "not_in_force_on_date"
        return ClaimVerdict(
            claim, "contradicted", reason, [*stating[:1], *other[:1]], _shown(other)
        )
    if other and other[0].similarity >= thresholds.differs_topic:
        return ClaimVerdict(claim, "contradicted", "value_differs", other[:1], _shown(other))
    return ClaimVerdict(claim, "unsupported", "no_fact_found", evidence[:1])


def _on_topic(evidence: list[Evidence], margin: float) -> list[Evidence]:
    """The units of the claim's topic: the concepts of the units nearest the claim (within a
    small margin of the nearest), so that a figure is compared with the same fact's figures,
    not with any unit that happens to print the same number."""
    if not evidence:
        return evidence
    best = evidence[0].similarity
    concepts = {e.unit.concept_id for e in evidence if e.similarity >= best - margin}
    return [e for e in evidence if e.unit.concept_id in concepts]


def outdated_caveat(unit: AtomicUnit) -> str:
    """The period of the newest figure held, which ended before the day asked about."""
    start = f"from {_spoken(unit.valid_from)} " if unit.valid_from else ""
    return (
        f"the newest figure held is for the period {start}to {_spoken(unit.valid_to)}, which "
        "has ended; no newer figure is known"
    )


def _spoken(day: dt.date) -> str:
    return f"{day.day} {day:%B %Y}"


def _shown(evidence: list[Evidence]) -> str | None:
    if not evidence:
        return None
    unit = evidence[0].unit
    if unit.value_amount is not None:
        return f"{unit.value_amount.normalize():f} {unit.value_unit}" + (
            f" a {unit.value_period}"
            if unit.value_period and unit.value_period != "one_off"
            else ""
        )
    return unit.text[:200]
