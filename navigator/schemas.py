"""Request and response shapes of the public API (`XIn` / `XOut`)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema
from pydantic import BaseModel, field_validator

from knowledge.query.suggest import MAX_SUGGESTIONS
from knowledge.retrieval import Question, SearchParams
from knowledge.retrieval.params import (
    MAX_CONVERSATION_CHARS,
    MAX_TURNS,
    AsOf,
    Conversation,
    Profile,
    storable_text,
)

Outcome = Literal["ok", "outdated", "low_confidence", "not_reviewed", "no_match", "invalid"]


class Out(BaseModel):
    """Responses are built from plain dicts (navigator.presenters), so they skip ninja's
    Schema, whose ORM attribute getter runs on every nested field (~6 ms a search)."""


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


class ValueOut(Out):
    amount: float
    unit: str
    period: str | None


class FigureOut(Out):
    amount: float
    unit: str
    period: str | None
    role: str = Field(
        description="What it is to the unit's value: per, each additional, above, up to, at "
        "least, between, from, to, or, if, also (or a table's column head)"
    )
    printed: str = Field(description="As the page prints it: £60,000")


class EvidenceOut(Out):
    quote: str
    start: int
    end: int
    verified: bool
    snapshot_id: int
    snapshot_date: dt.datetime


class UnitOut(Out):
    id: int
    type: str
    text: str
    value: ValueOut | None
    figures: list[FigureOut] = Field(
        default_factory=list,
        description="The statement's other figures, each with its role (one statement is one "
        "unit: 'the charge is 1% for every £200 over £60,000' has value 1%, figures £200 'per' "
        "and £60,000 'above')",
    )
    valid_from: dt.date | None
    valid_to: dt.date | None
    superseded_date: dt.date | None
    temporal_status: str = Field(
        description="On the day asked about: current; outdated (its period has ended and no "
        "newer figure is held: the newest known, not this period's); historical (a newer "
        "one is held, or it was superseded); upcoming"
    )
    ended_on: dt.date | None = Field(
        None, description="For an outdated unit, the day its period ended (its valid_to)"
    )
    evidence: EvidenceOut
    source_url: str
    source_status: Literal["current", "changed", "gone"] = Field(
        description="The page: current, changed since it was first read, or gone from gov.uk"
    )
    validity_basis: str | None = Field(
        None,
        description="Why it has its dates: 'stated year' (its own sentence or table row names "
        "the period), 'heading' (a heading, caption or lead-in above it does), 'capture of a "
        "yearly figure' (a figure set each year printed with no year: the tax or academic year "
        "its page was captured in, extended by each newer capture still printing it), 'open' "
        "(a rule or standing figure not tied to a year)",
    )
    confirmed_on: dt.date | None = Field(
        None,
        description="The day gov.uk last confirmed it: when the newest version of its page "
        "still printing it was captured",
    )
    unconfirmed_since: dt.date | None = Field(
        None,
        description="Since when the page's current version no longer states it (not served "
        "by default until an expert confirms, supersedes or retires it)",
    )
    also_found_in: list[str] = Field(
        default_factory=list, description="Other pages that state the same unit (merged duplicates)"
    )
    part_url: str
    provider: str
    review_status: str = Field(
        description="pending, approved (signed off, or corrected by an expert) or rejected"
    )
    signed_off_by: str | None = Field(
        None, description="The domain expert who signed the unit off, when it is signed off"
    )
    signed_off_at: dt.datetime | None = Field(None, description="When it was signed off")
    corrected_by: str | None = Field(
        None,
        description="The domain expert who last corrected the unit's facts, when an expert "
        "corrected them (null when none did, or the expert's account is gone)",
    )
    corrected_at: dt.datetime | None = Field(
        None, description="When an expert last corrected it; null when none did"
    )
    similarity: float | None = None
    applies_to: dict = Field(
        default_factory=dict,
        description="Who the unit is for, where its words, headings or page say: nations, "
        "age_min, age_max (inclusive years), state_pension_age (under/reached), income_min, "
        "income_max (£ a year), employment, partner, children, benefits, student_loan_plans, "
        "tax_bands (basic/higher/additional: the Income Tax rate the reader pays), any_of (the "
        "ways in of a list of alternatives: one naming the user names them, none excludes); "
        "{} is everyone, UK-wide",
    )
    applies: bool | None = Field(
        None,
        description="With a profile: true when the unit is for this person (it names them), "
        "false when it is for someone else (kept, ranked after, see applies_reason), null when "
        "it is for everyone or the profile does not say",
    )
    applies_reason: str = Field(
        "", description="Why applies is what it is: 'for people living in England'"
    )


class SourceGroupOut(Out):
    source_url: str
    units: list[UnitOut]


class CategoryRefOut(Out):
    slug: str
    name: str


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


class SuggestIn(Schema):
    profile: Profile = Field(
        ...,
        description="What you know about the user, only the fields you know (at least one): "
        "age, nation, annual_income, employment, partner, children_ages, benefits, "
        "student_loan_plan. Never stored.",
    )
    as_of: AsOf
    k: int = Field(10, ge=1, le=MAX_SUGGESTIONS, description="Suggestions wanted")

    @field_validator("profile")
    @classmethod
    def _profile_says_something(cls, profile: Profile) -> Profile:
        if not profile.fields_present():
            raise ValueError("is empty: send at least one field you know about the user")
        return profile


class SuggestionOut(ConceptHitOut):
    """A concept suggested, with its units for this person or for everyone (a search would
    also show other people's, labelled applies: false)."""

    reasons: list[str] = Field(
        description="Why it was suggested: the life stage the profile is in ('life stage: "
        "Having a baby'), or what its units are for that the profile meets ('for incomes over "
        "£60,000 a year')"
    )


class SuggestOut(Out):
    as_of: dt.date
    life_events: list[str] = Field(description="The life stages the profile is in, by slug")
    suggestions: list[SuggestionOut]
    timings_ms: dict[str, float]


class ErrorOut(Out):
    # "unavailable": the database could not be reached (503, Retry-After); nothing was served.
    outcome: Literal["invalid", "unavailable"] = "invalid"
    detail: str
    fields: list[dict] = Field(default_factory=list)


class ConceptOut(Out):
    taxonomy_id: str
    name: str
    description: str
    status: str
    category: CategoryRefOut
    aliases: list[str]
    resolved_from_alias: str | None
    units: list[UnitOut]


class CategoryOut(Out):
    slug: str
    name: str
    description: str
    concepts: int


class HealthOut(Out):
    status: Literal["ok", "degraded"]
    database: str
    redis: str
    embedder: str
    limits: str = Field(
        "",
        description="Empty while the shared cache answers; else how long the API's "
        "limits have been counted per process",
    )


MAX_ANSWER_CHARS = 4000


class VerifyIn(Schema):
    answer: str = Field(
        ...,
        min_length=1,
        description=f"The assistant's drafted answer (at most {MAX_ANSWER_CHARS} characters)",
    )
    as_of: AsOf
    cited_unit_ids: list[int] = Field(
        default_factory=list, max_length=50, description="The units the assistant used"
    )
    profile: Profile | None = Field(
        None,
        description="Who the answer is for (the fields of /search's profile): a claim that "
        "only other people's facts support (another nation, age, income) comes back "
        "unsupported with reason not_for_this_profile. Never stored.",
    )
    # Before an answer, not a question: its latest user turn is what the answer replies to.
    conversation: Conversation = Field(
        description=f"The turns before the answer, oldest first (at most {MAX_TURNS} turns and "
        f"{MAX_CONVERSATION_CHARS} characters): the latest user turn is the question answered, "
        "which the answer's first sentence may lean on ('You can get it for 6 months')",
    )

    @field_validator("answer")
    @classmethod
    def _answer_bounded(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain words, not only spaces")
        if len(value) > MAX_ANSWER_CHARS:
            raise ValueError(
                f"is {len(value)} characters: at most {MAX_ANSWER_CHARS} (check it in parts)"
            )
        return storable_text(value)


class ClaimUnitOut(Out):
    id: int
    text: str
    evidence_quote: str
    source_url: str
    temporal_status: str
    similarity: float


class ClaimOut(Out):
    start: int
    end: int
    text: str
    verdict: Literal["supported", "contradicted", "unsupported"]
    reason: str = Field(
        description="value_matches, meaning_matches, value_differs, different_period, "
        "not_in_force_on_date, meaning_differs, wrong_fact_cited, no_fact_found, "
        "not_for_this_profile (with a profile: only other people's facts support it)"
    )
    checked_by: str = Field(
        description="'rules' (figures compared exactly; meaning by similarity and denial), or "
        "'model:<name>' for a claim without figures a chat model judged (CLAIM_JUDGE_PROVIDER)"
    )
    explanation: str | None = Field(
        None,
        description="A model's one sentence on its verdict; for not_for_this_profile, whom the "
        "facts that state it are for",
    )
    fallback: str | None = Field(
        None, description="Why a model's judgement was asked for and not used (the rules decided)"
    )
    units: list[ClaimUnitOut]
    knowledge_base_value: str | None = Field(
        None, description="For a contradiction: what the knowledge base holds"
    )
    caveat: str | None = Field(
        None,
        description="For a claim supported by the newest figure held whose period ended before "
        "as_of (nothing newer is known): the period that ended; say the figure is that "
        "period's",
    )


class VerifyOut(Out):
    as_of: dt.date
    claims: list[ClaimOut]
    support_score: float | None = Field(description="Share of claims supported; null with none")
    timings_ms: dict[str, float]
