"""A topic that holds no facts refuses a question only when no fact found is near it: a unit
filed under a sibling concept still answers (hand-made hits, no database)."""

import datetime as dt
from decimal import Decimal

from knowledge.models import AtomicUnit, Category, Concept
from knowledge.retrieval.hits import ConceptHit, TopicFacts, UnitHit
from knowledge.retrieval.outcome import typed_outcome
from knowledge.retrieval.params import SearchParams

THRESHOLDS = {"floor": 0.3, "quality": 0.5, "scope": 0.4}
CATEGORY = Category(name="Child Benefit", slug="child_benefit")
TOPIC = Concept(name="High Income Child Benefit Charge threshold", category=CATEGORY)
SIBLING = Concept(name="Child Benefit eligibility", category=CATEGORY)
CHARGE = AtomicUnit(
    unit_type="threshold",
    text="You may have to pay the charge if your adjusted net income is over £60,000.",
    value_amount=Decimal(60000),
)


def _outcome(*, unit_similarity: float, sibling_similarity: float = 0.45, quality=None):
    """The sibling concept (its own text far from the question) holds the unit found."""
    hit = ConceptHit(
        concept=SIBLING,
        score=unit_similarity,
        concept_similarity=sibling_similarity,
        unit_similarity=unit_similarity,
        text_rank=0.0,
        below_quality=unit_similarity < THRESHOLDS["quality"],
        units=[UnitHit(CHARGE, unit_similarity, "current", "https://www.gov.uk/child-benefit")],
    )
    return typed_outcome(
        params=SearchParams(query="HICBC threshold", quality=quality),
        hits=[hit],
        topic=TopicFacts(concept=TOPIC, unit_count=0, thresholds=[]),
        concept_rows=[(1, 0.93)],  # the topic's own text is very near the question
        thresholds=THRESHOLDS,
        day=dt.date(2024, 12, 1),
    )


def test_a_unit_filed_under_a_sibling_at_quality_answers_for_an_empty_topic():
    assert _outcome(unit_similarity=0.55) == ("ok", [])


def test_an_empty_topic_with_no_fact_near_the_question_has_no_facts_for_it():
    assert _outcome(unit_similarity=0.45) == ("no_match", ["no_facts_for_concept"])


def test_a_sibling_concept_nearly_as_near_as_the_topic_still_answers():
    # its unit below quality: then the search's quality rule speaks, not the empty topic's
    assert _outcome(unit_similarity=0.45, sibling_similarity=0.7) == (
        "low_confidence",
        ["below_quality"],
    )


def test_the_quality_asked_for_decides_what_is_near():
    assert _outcome(unit_similarity=0.55, quality=0.6) == ("no_match", ["no_facts_for_concept"])
