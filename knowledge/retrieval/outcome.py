"""The search's outcome: ok, outdated, low_confidence or no_match, with machine-readable
reasons. `outdated` is an answer: the facts are here, but the leading ones are the newest
figures held and their period has ended (nothing newer is known)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.domain.temporal import SERVED, TemporalStatus
from knowledge.models import AtomicUnit
from knowledge.retrieval.confidence import answers_kind_asked, outcome_model, outcome_signals
from knowledge.retrieval.hits import TopicFacts
from knowledge.text.words import STOPWORDS

_AMOUNT_QUESTION = re.compile(
    r"\b(how much|worth|what('s| is| was| are| were) the (\w+ ){0,4}(rate|limit|threshold|allowance|"
    r"amount|cap|bonus|charge|penalty|fee|wage))\b",
    re.I,
)
_GENERIC_WORDS = STOPWORDS | frozenset(
    (
        "how",
        "rules",
        "rate",
        "rates",
        "amount",
        "eligibility",
        "overview",
        "claim",
        "claiming",
        "apply",
    )
)
NO_FACTS_GAP = 0.30  # the topic beats every concept that holds facts by this much
TOPIC_WORDS_SHARE = 2 / 3


# Nothing of the taxonomy is near the question at all (no concept above the floor, or no
# concept and no unit): no weighing of signals makes it answerable. A topic below the scope
# threshold is only weighed: paraphrases and everyday words fall under it.
NO_TOPIC = "nothing_above_floor"
# Nothing in force on the day asked about. When no hit bears a unit on that day, or every
# figure the topic holds starts after it and no fact found names a start by then, it is a fact
# about the dates, not a doubt the model weighs (served, the answer would state a rule for
# another day). Otherwise it is weighed like the other reasons: facts of that time are
# sometimes filed under a neighbouring concept (2015-16's profit limit under "who pays").
NO_RULE_ON_DATE = "no_rule_in_force_on_date"
# Reasons that say the facts are not there (no_match); the others say they may be, unsure.
_ABSENT = (
    "out_of_scope",
    "nothing_above_floor",
    NO_RULE_ON_DATE,
    "only_historical",
    "no_facts_for_concept",
)


@dataclass
class Decision:
    outcome: str
    reasons: list[str]
    confidence: float | None  # None without a fitted model: the typed rules decided alone
    signals: dict[str, float]
    # Refused whatever the confidence: nothing near in the taxonomy, or nothing in force then.
    decisive: bool = False


def decide_outcome(*, params, hits, topic, concept_rows, thresholds, day) -> Decision:
    """The typed rules' reading, weighed by the fitted model's confidence when there is one:
    at or above the model's threshold the search answers `ok`; below it, it refuses with the
    rules' reason (`not_confident` when no rule objects). A question near nothing of the
    taxonomy stays `no_match`, and facts that are all below quality stay `low_confidence`, whatever the
    confidence."""
    outcome, reasons = typed_outcome(
        params=params,
        hits=hits,
        topic=topic,
        concept_rows=concept_rows,
        thresholds=thresholds,
        day=day,
    )
    signals = outcome_signals(
        question=params.query,
        hits=hits,
        topic=topic,
        concept_rows=concept_rows,
        day=day,
        dated=params.as_of is not None,
        rule_reasons=reasons,
    )
    model = outcome_model()
    if model is None:
        return _dated(Decision(outcome, reasons, None, signals), hits, params.query)
    confidence = model.confidence(signals)
    if reasons == ["below_quality"]:
        return Decision("low_confidence", reasons, confidence, signals)
    if nothing_near(reasons, signals) or nothing_in_force(reasons, hits, topic, day):
        return Decision("no_match", reasons, confidence, signals, decisive=True)
    if confidence >= model.threshold:
        return _dated(Decision("ok", [], confidence, signals), hits, params.query)
    reasons = reasons or ["not_confident"]
    refusal = "no_match" if reasons[0] in _ABSENT else "low_confidence"
    return Decision(refusal, reasons, confidence, signals)


# The reason of an `outdated` outcome.
NEWEST_PERIOD_ENDED = "newest_period_ended"


def _dated(decision: Decision, hits, question: str) -> Decision:
    """An answer whose leading units are past their period, with nothing newer held, is
    `outdated`: served, said to be the newest figures known, never as current."""
    if decision.outcome == "ok" and past_newest_period(hits, question):
        return Decision("outdated", [NEWEST_PERIOD_ENDED], decision.confidence, decision.signals)
    return decision


def past_newest_period(hits, question: str) -> bool:
    """The top concept's units that answer what the question asks (a figure for an amount
    question; its best unit when none does) include an outdated one and no current one: an
    undated rule beside a yearly rate does not answer how much."""
    bearing = [hit for hit in hits if hit.units]
    if not bearing:
        return False
    units = bearing[0].units
    answering = [u for u in units if answers_kind_asked(u.unit, question)] or units[:1]
    statuses = {u.temporal_status for u in answering}
    return TemporalStatus.OUTDATED in statuses and TemporalStatus.CURRENT not in statuses


def nothing_in_force(reasons: list[str], hits, topic: TopicFacts | None, day) -> bool:
    """No hit bears a unit in force on the day asked about, or the topic's figures all start
    after it and no unit found is dated by then."""
    if reasons[:1] != [NO_RULE_ON_DATE]:
        return False
    if not any(hit.units for hit in hits):
        return True
    starts = [unit.valid_from for unit in topic.thresholds] if topic else []
    if not starts or any(start is None or start <= day for start in starts):
        return False
    return not any(
        u.unit.valid_from is not None and u.unit.valid_from <= day
        for hit in hits
        for u in hit.units
    )


def nothing_near(reasons: list[str], signals: dict[str, float]) -> bool:
    return signals.get("topic_similarity", 0.0) == 0.0 or reasons[:1] == [NO_TOPIC]


def typed_outcome(*, params, hits, topic: TopicFacts | None, concept_rows, thresholds, day):
    """ok / low_confidence / no_match with machine-readable reasons, from the taxonomy (what
    topics exist), the units (what is known, and when) and the similarities together.

    The topic is the concept whose own text is nearest the question. A question near no
    concept is out of scope. A topic without units is refused when no fact found is near the
    question, by its own text or its concept's; an amount question needs a threshold that names its
    topic (facts are sometimes filed under a neighbouring concept, and those still answer).
    `topic` is loaded with the hits, so it is there whenever a concept is in scope and hits are."""
    best_concept = concept_rows[0][1] if concept_rows else 0.0
    if best_concept < thresholds["scope"]:
        return "no_match", ["out_of_scope"]
    if not hits:
        return "no_match", ["nothing_above_floor"]
    bearing = [hit for hit in hits if hit.units]
    if not bearing:
        return "no_match", [NO_RULE_ON_DATE if params.as_of else "only_historical"]
    if not topic.unit_count and not _facts_near(bearing, best_concept, params, thresholds):
        return "no_match", ["no_facts_for_concept"]
    good = [hit for hit in bearing if not hit.below_quality]
    if not good:
        return "low_confidence", ["below_quality"]
    if _AMOUNT_QUESTION.search(params.query):
        thresholds_found = _thresholds_for_topic(topic, good, day=day)
        if not thresholds_found:
            if params.as_of and topic.thresholds:
                return "no_match", [NO_RULE_ON_DATE]
            return "low_confidence", ["no_amount_in_kb"]
        if params.as_of and not any(
            unit.valid_from and unit.valid_from <= day for unit in thresholds_found
        ):
            return "no_match", [NO_RULE_ON_DATE]
    return "ok", []


def _facts_near(bearing, best_concept: float, params, thresholds) -> bool:
    """Facts found may answer a question whose topic holds none: a unit filed under another
    concept is near it (at the search's quality), or a concept holding facts is nearly as near
    as the topic. Only when neither is there does the topic's lack of facts decide."""
    quality = thresholds["quality"] if params.quality is None else params.quality
    return any(
        hit.unit_similarity >= quality or best_concept - hit.concept_similarity < NO_FACTS_GAP
        for hit in bearing
    )


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'s", ""))
    return {
        word[:4]
        for word in words
        if word not in _GENERIC_WORDS and (len(word) > 2 or word.isdigit())
    }


def _thresholds_for_topic(topic: TopicFacts, good, *, day) -> list[AtomicUnit]:
    """Threshold units, in force on `day` or the newest held past their period (outdated),
    that answer an amount question about `topic`.

    When the topic holds facts, its own thresholds decide: facts without an amount mean the
    amount is not known. When it holds none, its facts were filed under a neighbouring
    concept: thresholds among the best results that name the topic answer."""
    if topic.unit_count:
        return [unit for unit in topic.thresholds if unit.temporal_status_on(day) in SERVED]
    distinct = _stems(topic.concept.name) - _stems(topic.concept.category.name)
    found = []
    for hit in good[:5]:
        for unit_hit in hit.units:
            unit = unit_hit.unit
            words = _stems(f"{unit.text} {hit.concept.name}")
            if unit.unit_type == "threshold" and len(distinct & words) >= TOPIC_WORDS_SHARE * len(
                distinct
            ):
                found.append(unit)
    return found
