"""Each claim of an answer checked against the knowledge base, in parts, each measured on its
own (`manage.py eval_verify --parts`):

1. candidates (knowledge.verification.evidence): the claim searched as the question it
   answers, plus the units stating its figures;
2. aboutness (knowledge.reading.aboutness): which candidates are about the same
   quantity — subject, measure, person — with the figures out of the reckoning;
3. comparison (knowledge.reading.compare): the claim's figure against those units'
   exactly (amount, period, age bounds);
4. holdings (knowledge.verification.holdings): what is held when nothing is in force on the
   day the claim speaks of (the answer's `as_of`, or a year its sentence names).

Verdicts and reasons:
- supported: `value_matches` (a unit about the quantity, in force on the day, states the
  figure; or the newest unit held, whose period has ended, with a `caveat` naming it),
  `meaning_matches`, `fits_this_person` (with a profile: the rule that decides it lets them);
- contradicted: `value_differs` (a unit about the quantity, in force, states another figure;
  past the newest period only a figure held unchanged for years, with a caveat),
  `not_in_force_on_date` (past the newest period held, the claim's figure is an earlier
  period's: a later one is held),
  `different_period` (the figure, but a week where the claim says a month), `meaning_differs`
  (a unit that says what the claim says, but one of the two denies it: "cannot" for "can"),
  `not_for_this_person` (with a profile: the rule that decides it leaves them out);
- unsupported: `no_fact_found`, `not_held` (the knowledge base holds the quantity for other
  periods only: the explanation names them), `wrong_fact_cited` (the figure is right, but none
  of the units the assistant cited states it), `not_for_this_profile` (every unit that
  supports it is for other people, the explanation says whom).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from dataclasses import dataclass

from knowledge.domain.profile import Person
from knowledge.domain.temporal import TemporalStatus, as_of_or_today
from knowledge.reading.aboutness import (
    Cuts,
    Reader,
    about_features,
    about_scored,
    claim_topic,
    features_among,
    served_reader,
)
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import SENTENCE, Claim, Figure, answer_claims
from knowledge.reading.compare import (
    DIFFERS,
    NOT_COMPARABLE,
    OTHER_PERIOD,
    SAME,
    figure_compared,
)
from knowledge.text.question_dates import date_in_words
from knowledge.text.words import denies
from knowledge.verification.evidence import claims_evidence, status_on
from knowledge.verification.holdings import (
    held_periods,
    newest,
    past_newest,
    spoken,
    stable,
)
from knowledge.verification.judge import judged
from knowledge.verification.person import for_person, verdict_for_person
from knowledge.verification.verdicts import ClaimVerdict, Verification, outdated_caveat

UNCONFIRMED = "unconfirmed"


@dataclass
class Prepared:
    """A claim with what its verdict is read from: its candidates, their aboutness signals
    and the day it speaks of. Prepared once, a claim's verdict can be read again with other
    readings (an evaluation varies them)."""

    claim: Claim
    evidence: list[Evidence]
    features: list[dict[str, float]]
    day: dt.date


def answer_verify(
    *,
    answer: str,
    as_of: dt.date | None = None,
    cited_unit_ids=(),
    evidence_of=None,
    judge=None,
    asked: str = "",
    person: Person | None = None,
    reader: Reader | None = None,
) -> Verification:
    """`evidence_of(claim, day)`: the units a claim is checked against (by default the
    answer's claims are searched together, `claims_evidence`; an evaluation passes a memo).
    `judge`: a provider that judges claims without figures (`judge.claim_judge()`); None
    leaves them to the rules. `asked`: the question answered, which a first sentence that
    names no topic of its own leans on. `person`: who the answer is for. `reader`: how
    aboutness is read (by default the one cross-validation chose)."""
    started = time.perf_counter()
    prepared = claims_prepared(answer=answer, as_of=as_of, asked=asked, evidence_of=evidence_of)
    verdicts = verdicts_read(
        prepared,
        reader=reader or served_reader(),
        cited=set(cited_unit_ids),
        person=person,
        judge=judge,
    )
    return Verification(
        verdicts, as_of_or_today(as_of), round((time.perf_counter() - started) * 1000, 2)
    )


def claims_prepared(
    *, answer: str, as_of: dt.date | None = None, asked: str = "", evidence_of=None
) -> list[Prepared]:
    today = as_of_or_today(as_of)
    claims = answer_claims(answer, before=asked)
    if evidence_of is None:
        evidences = claims_evidence(claims, today, answer=answer, asked=asked)
    else:
        evidences = [evidence_of(claim, today) for claim in claims]
    prepared = []
    for claim, evidence in zip(claims, evidences, strict=True):
        topic = claim_topic(claim, evidence, before=f"{asked} {answer[: claim.sentence_start]}")
        features = features_among([about_features(claim, found, topic) for found in evidence])
        later = [
            c for c in claims if c.sentence_start == claim.sentence_start and c.start > claim.start
        ]
        day = _claim_day(claim, answer, today, later=later)
        if day != today:
            evidence = [
                dataclasses.replace(e, temporal_status=status_on(e.unit, day)) for e in evidence
            ]
        prepared.append(Prepared(claim, evidence, features, day))
    return prepared


def verdicts_read(
    prepared: list[Prepared],
    *,
    reader: Reader,
    cited: set[int] = frozenset(),
    person: Person | None = None,
    judge=None,
) -> list[ClaimVerdict]:
    verdicts = []
    for item in prepared:
        about = about_scored(item.evidence, item.features, reader)
        verdict = claim_verify(
            item.claim,
            about,
            item.evidence,
            cuts=reader.cuts,
            cited=cited,
            day=item.day,
            person=person,
        )
        if judge is not None and not item.claim.figures and verdict.reason != "not_for_this_person":
            verdict = judged(verdict, item.evidence, day=item.day, judge=judge)
        if person is not None:
            verdict = verdict_for_person(verdict, person)
        verdicts.append(verdict)
    return verdicts


def _claim_day(claim: Claim, answer: str, today: dt.date, *, later: list[Claim] = ()) -> dt.date:
    """The day a claim speaks of: a year its sentence names, else the answer's. A year named
    in a later claim of the sentence is that claim's ("The higher rate is 40%, and the same
    rates apply for 2025-26"); one named before it or in it is its own ("In 2024-25 you pay
    8% …, and 2% above £967")."""
    found = next((m for m in SENTENCE.finditer(answer) if m.start() <= claim.start < m.end()), None)
    if found is None:
        sentence = claim.text
    else:
        # The later claims blanked out, the sentence keeps its offsets.
        chars = list(answer[found.start() : found.end()])
        for other in later:
            for i in range(max(other.start, found.start()), min(other.end, found.end())):
                chars[i - found.start()] = " "
        sentence = "".join(chars)
    # Only a year the sentence speaks of ("in 2023-24", "last tax year") is its day: a date
    # in a rule ("if your partner died before 6 April 2017") is part of what it says.
    mention = date_in_words(sentence, today=today, kinds=("span", "relative"))
    return mention.day if mention else today


def claim_verify(
    claim: Claim,
    about: list[Evidence],
    evidence: list[Evidence],
    *,
    cuts: Cuts,
    cited: set[int],
    day: dt.date,
    person: Person | None = None,
) -> ClaimVerdict:
    """`about`: the candidates about the claim's quantity, most about first; `evidence`: all
    of them; `cuts`: how much about a unit must be to support, contradict or decide by
    meaning."""
    if person is not None:
        # Whether this person can get it is decided by the rule about them, figures or not
        # ("Yes, you can open a Lifetime ISA and pay in £4,000": at 45, they cannot).
        decided = for_person(claim, [e for e in about if e.about >= cuts.about], person, day)
        if decided is not None and (decided.verdict == "contradicted" or not claim.figures):
            return decided
    if not claim.figures:
        return _by_meaning(claim, [e for e in about if e.about >= cuts.meaning], evidence)
    verdicts = [
        _figure_verdict(claim, figure, about, evidence, cuts=cuts, cited=cited, day=day)
        for figure in _compared_figures(claim)
    ]
    for verdict in verdicts:
        if verdict.verdict == "contradicted":
            return verdict
    if all(v.verdict == "supported" for v in verdicts):
        return verdicts[0]
    return next(v for v in verdicts if v.verdict == "unsupported")


def _compared_figures(claim: Claim) -> list[Figure]:
    """The figures the claim states: its amounts and rates, with the ages beside them as
    whom they are for ("18 to 20-year-olds get £10.00"); a claim of ages alone states its
    bounds, compared once ("for people aged 18 to 49")."""
    others = [f for f in claim.figures if f.unit != "age"]
    return others or [f for f in claim.figures if f.unit == "age"][:1]


def _figure_verdict(
    claim: Claim,
    figure: Figure,
    about: list[Evidence],
    evidence: list[Evidence],
    *,
    cuts: Cuts,
    cited: set[int],
    day: dt.date,
) -> ClaimVerdict:
    compared = [
        (e, comparison)
        for e in about
        if e.temporal_status != UNCONFIRMED
        and e.about >= cuts.about
        and (comparison := figure_compared(claim, figure, e.unit, day)).relation != NOT_COMPARABLE
    ]
    if not compared:
        return ClaimVerdict(claim, "unsupported", "no_fact_found", (about or evidence)[:1])
    # A unit in force decides only when it is not far behind the compared unit most about the
    # claim (first): else the claim is about the periods held, and is checked against them.
    lead = compared[0][0].about
    in_force = [
        (e, c)
        for e, c in compared
        if e.temporal_status == TemporalStatus.CURRENT and e.about >= lead - cuts.behind
    ]
    if in_force:
        # The unit most about the claim decides, unless one nearly as much about it states
        # the claim's figure (two rows of one table, the claim's and its neighbour's).
        best, comparison = in_force[0]
        same = [
            e for e, c in in_force if c.relation == SAME and e.about >= best.about - cuts.margin
        ]
        if same:
            if cited and not any(e.unit.pk in cited for e in same):
                return ClaimVerdict(claim, "unsupported", "wrong_fact_cited", same[:1])
            return ClaimVerdict(claim, "supported", "value_matches", same[:1])
        if comparison.relation == OTHER_PERIOD:
            return ClaimVerdict(claim, "contradicted", "different_period", [best], comparison.shown)
        # The claim's figure is another period's (last year's rate stated for this year).
        another = [e for e, c in compared if c.relation == SAME and e not in same]
        if another:
            return ClaimVerdict(
                claim, "contradicted", "not_in_force_on_date", [best, another[0]], comparison.shown
            )
        return ClaimVerdict(claim, "contradicted", "value_differs", [best], comparison.shown)
    return _past_what_is_held(claim, compared, cited=cited, day=day)


def _past_what_is_held(claim, compared, *, cited, day) -> ClaimVerdict:
    """No unit about the quantity is in force on the day: the claim is checked against the
    newest figure held when the day is past it, and otherwise said to be about a period the
    knowledge base holds nothing for."""
    held = [e for e, _ in compared]
    same = [e for e, c in compared if c.relation == SAME]
    # What is held is said of the quantity the claim is most about: its concept's figures.
    concept = held[0].unit.concept_id
    shown = held_periods(
        [(e, c.shown or claim_value(claim, c)) for e, c in compared if e.unit.concept_id == concept]
    )
    if past_newest(held, day):
        latest = newest(held) or held
        if any(e in latest for e in same):
            best = next(e for e in same if e in latest)
            if cited and best.unit.pk not in cited:
                return ClaimVerdict(claim, "unsupported", "wrong_fact_cited", [best])
            verdict = ClaimVerdict(claim, "supported", "value_matches", [best])
            verdict.caveat = outdated_caveat(best.unit)
            return verdict
        differing = [(e, c) for e, c in compared if c.relation == DIFFERS and e in latest]
        if differing and same:
            # The claim's figure is an earlier period's, and a later one is held: the claim
            # is out of date, whatever holds now.
            best, comparison = differing[0]
            verdict = ClaimVerdict(
                claim, "contradicted", "not_in_force_on_date", [best, same[0]], comparison.shown
            )
            verdict.caveat = outdated_caveat(best.unit)
            return verdict
        if differing:
            best, comparison = differing[0]
            run = stable([e for e, c in compared if c.shown == comparison.shown])
            if run is not None and run[1] >= max(e.unit.valid_to for e in held):
                verdict = ClaimVerdict(claim, "contradicted", "value_differs", [best])
                verdict.knowledge_base_value = comparison.shown
                verdict.caveat = (
                    f"{comparison.shown} in every period held from {spoken(run[0])} to "
                    f"{spoken(run[1])}, which has ended; no newer figure is known"
                )
                return verdict
    unit = held[0].unit
    explanation = (
        f"The knowledge base holds {shown}; nothing for {spoken(day)}"
        + (
            f" (the newest period ended on {spoken(unit.valid_to)})"
            if past_newest(held, day) and unit.valid_to
            else ""
        )
        + "."
    )
    verdict = ClaimVerdict(claim, "unsupported", "not_held", held[:1])
    verdict.explanation = explanation
    if past_newest(held, day) and unit.valid_to:
        verdict.caveat = outdated_caveat(newest(held)[0].unit if newest(held) else unit)
    return verdict


def claim_value(claim: Claim, comparison) -> str:
    """The value a unit states for the quantity, when the comparison found it the claim's."""
    if comparison.relation == SAME:
        return next((f.printed for f in claim.figures), "")
    return ""


def _by_meaning(claim: Claim, about: list[Evidence], evidence: list[Evidence]) -> ClaimVerdict:
    """A unit in force about what the claim says supports it, unless one of the two denies
    what the other says ("You cannot have a Junior ISA as well as a Child Trust Fund" against
    "can keep both"): vectors of a sentence and its denial sit close together."""
    in_force = [e for e in about if e.temporal_status == TemporalStatus.CURRENT]
    if in_force:
        best = in_force[0]
        if denies(claim.text) != denies(best.unit.text):
            return ClaimVerdict(
                claim, "contradicted", "meaning_differs", [best], best.unit.text[:200]
            )
        return ClaimVerdict(claim, "supported", "meaning_matches", [best])
    return ClaimVerdict(claim, "unsupported", "no_fact_found", (about or evidence)[:1])
