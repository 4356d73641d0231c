"""A question and its search: what is asked, how it was understood, what was found."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field

from knowledge.retrieval import Question, SearchParams
from knowledge.retrieval.params import Conversation
from navigator.schemas.common import Out
from navigator.schemas.facts import CategoryRefOut, SourceGroupOut

Outcome = Literal["ok", "outdated", "low_confidence", "not_reviewed", "no_match", "invalid"]


class QuestionIn(Question):
    """A user's question, mid-conversation the turns before it, and who the user is."""

    conversation: Conversation


class SearchIn(SearchParams):
    """A search's parameters (their bounds held once, in `SearchParams`) and the turns
    before its question."""

    conversation: Conversation

    def search_params(self) -> SearchParams:
        """The parameters alone, without validating them again."""
        return SearchParams.model_construct(
            **{name: getattr(self, name) for name in SearchParams.model_fields}
        )


class ScorePartsOut(Out):
    concept: float
    units: float
    text: float


class ConceptHitOut(Out):
    taxonomy_id: str
    name: str
    category: CategoryRefOut
    score: float
    score_parts: ScorePartsOut
    below_quality: bool
    found_by: str = Field(description="Which of the question's searches found it")
    sources: list[SourceGroupOut]


class SearchPlanOut(Out):
    text: str
    origin: str


class AsOfOut(Out):
    date: dt.date
    reason: str
    phrase: str | None = None


class AnalysisOut(Out):
    """How the question was understood before it was searched."""

    turn_type: Literal["new", "follow_up", "clarification"]
    scope: Literal["topic", "life_situation"]
    topic_shift: bool
    entities: dict
    standalone_query: str
    strategy: Literal["none", "specific", "broad"]
    sub_queries: list[str]
    life_event: str | None
    no_lookup: str = Field(
        "",
        description="With strategy 'none', why the turn needs no lookup: 'small_talk' "
        "(greetings, thanks, words not about money), 'restates_answer' (asks to say the "
        "answer again), 'arithmetic', 'own_plan' (the user's own plan, budget or app), "
        "'general' (money in general, not a UK rule), 'other_country', or 'model' (a "
        "model's analysis decided). Empty when a lookup is needed.",
    )
    analysed_by: str = Field(description="'heuristic' (rules, no model) or the model's name")
    fallback: str = Field(description="Why a model's analysis was not used, when it was not")
    searches: list[SearchPlanOut]
    as_of: AsOfOut
    profile: dict[str, str] = Field(
        default_factory=dict,
        description="The profile the search used, by field, each with where it came from: "
        "'profile' (sent by the caller) or the user's own words in the conversation ('I'm 45', "
        "'we live in Glasgow'), which fill only the fields the caller did not send. The "
        "values are not repeated here.",
    )


class SearchOut(Out):
    outcome: Outcome = Field(
        description="ok: the facts to answer are here. outdated: the facts are here, but the "
        "leading units' period has ended and the knowledge base holds nothing newer: they are "
        "the newest figures known, each marked temporal_status 'outdated' with its period and "
        'ended_on; say so ("the newest figure held is £25.60 a week, for 2024 to 2025"), '
        "never as this period's. low_confidence: facts were found but may "
        "not answer (below quality, no amount of the topic, not confident). not_reviewed: "
        "asked with min_review 'signed_off', facts for the question are held but none an "
        "expert signed off or corrected answers it (no unreviewed unit is served). no_match: "
        "the facts are not here. invalid: the request was refused."
    )
    reasons: list[str] = Field(
        description="Why, when not ok: newest_period_ended (outdated), "
        "only_unreviewed (not_reviewed), "
        "out_of_scope (no topic of the taxonomy), "
        "nothing_above_floor, no_facts_for_concept (the topic is known, its facts are not), "
        "no_amount_in_kb, no_rule_in_force_on_date, only_historical, below_quality, "
        "not_confident (no rule objects, but the signals together do not reach the threshold), "
        "no_lookup_needed (nothing to look up), "
        "not_for_this_profile (no_match: with the profile sent, every fact found is for other "
        "people: another nation, age, income or circumstance)"
    )
    confidence: float | None = Field(
        description="How likely the knowledge base holds the answer, 0 to 1, calibrated on "
        "questions with known answers (of searches at 0.8, about 8 in 10 are answerable); "
        "null when no fitted model is installed or nothing was looked up"
    )
    as_of: dt.date
    mode: str
    thresholds: dict[str, float]
    concepts: list[ConceptHitOut]
    sources: list[str]
    context: str
    context_tokens: int
    timings_ms: dict[str, float]
    analysis: AnalysisOut
