"""What the chat-model providers are asked and answer: the shared data types, the answer
schemas an LLM fills in, the errors, and the `Provider` protocol. Every provider imports this
module; it imports no provider.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from knowledge.domain.extraction import (
    Adjudication,
    CategoryInfo,
    ConceptInfo,
    PageInput,
    Placement,
    UnitProposal,
    UnitText,
    UnitType,
    Usage,
    ValuePeriod,
    ValueUnit,
)
from knowledge.domain.profile import Employment, Nation, StudentLoanPlan, TaxBand
from knowledge.domain.questions import (
    ClaimVerdictName,
    ConversationTurn,
    QueryAnalysis,
    QueryEntities,
    QueryScope,
    QueryVocabulary,
    Strategy,
    TurnType,
)


class ProviderError(Exception):
    """The provider's answer cannot be used (invalid JSON, wrong shape, refused request)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ProviderTransientError(ProviderError):
    """Rate limits, server errors or timeouts that outlasted the bounded retries."""


# --- what providers answer ------------------------------------------------------------------


class PageContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    audience: str
    period: str | None
    category: str
    related_categories: list[str]


class LlmFigure(BaseModel):
    """One of a statement's other figures, with what it is to the statement's value."""

    model_config = ConfigDict(extra="forbid")

    amount: float
    unit: ValueUnit
    period: ValuePeriod | None
    role: str = Field(min_length=1, max_length=40)
    printed: str


class LlmWayIn(BaseModel):
    """One way in of a fact for people meeting any one of several conditions: what that
    condition alone says of the reader."""

    model_config = ConfigDict(extra="forbid")

    age_min: int | None
    age_max: int | None
    state_pension_age: Literal["under", "reached"] | None
    income_min: float | None
    income_max: float | None
    employment: list[Employment]
    partner: bool | None
    children_min: int | None
    children_max: int | None
    benefits: list[str]
    student_loan_plans: list[StudentLoanPlan]
    tax_bands: list[TaxBand]


class LlmApplies(LlmWayIn):
    """Who a fact is for, as the extraction prompt asks (empty lists and nulls: everyone): a
    way in's fields, the nations, and the ways in of a list of alternatives."""

    nations: list[Nation]
    any_of: list[LlmWayIn]


class LlmUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unit_type: UnitType
    text: str = Field(min_length=1)
    concept_id: str | None
    evidence_quote: str = Field(min_length=1)
    valid_from: str | None
    valid_to: str | None
    # Where the page states the period: the fact's own sentence or row, a heading or lead-in
    # above it, or nowhere (then both dates are null).
    period_basis: Literal["stated", "heading", "none"]
    value_amount: float | None
    value_unit: ValueUnit | None
    value_period: ValuePeriod | None
    figures: list[LlmFigure]
    example_of: int | None
    # Who the fact is for; an answer of an earlier prompt version has none (the page is read
    # for it after the units are stored).
    applies_to: LlmApplies | None = None

    @model_validator(mode="after")
    def _period_matches_its_basis(self) -> LlmUnit:
        # A date that is not ISO is the unit's own problem (it is kept as rejected, with the
        # reason); a basis that contradicts the dates makes the whole answer unusable.
        dated = self.valid_from is not None or self.valid_to is not None
        if self.period_basis == "none" and dated:
            raise ValueError("period_basis 'none' with a valid_from or valid_to")
        if self.period_basis != "none" and not dated:
            raise ValueError(f"period_basis {self.period_basis!r} without valid_from or valid_to")
        return self


class LlmUnits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    units: list[LlmUnit]


def _a_share(value: float) -> float:
    # Kept out of the JSON schema (strict outputs reject bounds on some endpoints).
    if not 0 <= value <= 1:
        raise ValueError("confidence must be between 0 and 1")
    return value


Share = Annotated[float, AfterValidator(_a_share)]


class LlmAdjudication(BaseModel):
    """The model's verdict on two units. It says nothing about which one is newer: the
    detector decides that from dates, never from the model."""

    model_config = ConfigDict(extra="forbid")

    same_rule: bool
    confidence: Share
    rationale: str = Field(min_length=1)


class LlmPlacement(BaseModel):
    """The model's view of one unit: does it belong to its concept, or to one of the
    alternatives listed (by taxonomy id)?"""

    model_config = ConfigDict(extra="forbid")

    belongs: bool
    suggested_concept: str | None
    confidence: Share
    reason: str = Field(min_length=1)


# Items are unchecked on purpose (no pattern or length here): a bad item is dropped and
# counted by the caller, not a reason to throw the whole answer away.
class LlmProposedConcept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id_suffix: str
    name: str
    description: str


class LlmConceptProposals(BaseModel):
    model_config = ConfigDict(extra="forbid")

    concepts: list[LlmProposedConcept]


# --- understanding a question -----------------------------------------------------------


class LlmQueryAnalysis(BaseModel):
    """What a chat model answers about one conversation turn."""

    model_config = ConfigDict(extra="forbid")

    turn_type: TurnType
    scope: QueryScope
    topic_shift: bool
    entities: QueryEntities
    standalone_query: str = Field(min_length=1, max_length=2000)
    strategy: Strategy
    sub_queries: list[str]


class Provider(Protocol):
    name: str
    prompt_version: str

    def page_context(
        self, *, page: PageInput, categories: list[CategoryInfo], concepts: list[ConceptInfo]
    ) -> tuple[PageContext, Usage]: ...

    def extract_units(
        self, *, page: PageInput, context: PageContext, concepts: list[ConceptInfo]
    ) -> tuple[list[UnitProposal], Usage]: ...

    def adjudicate_superseding(self, *, older: UnitText, newer: UnitText) -> Adjudication: ...

    def check_unit_placement(
        self, *, unit: UnitText, concept: ConceptInfo, alternatives: list[ConceptInfo]
    ) -> Placement: ...

    def analyse_query(
        self,
        *,
        query: str,
        conversation: list[ConversationTurn],
        vocabulary: QueryVocabulary,
        today: dt.date,
    ) -> QueryAnalysis: ...


# --- judging a claim of a drafted answer ----------------------------------------------------


class LlmClaimJudgement(BaseModel):
    """What a chat model answers about one claim checked against numbered facts."""

    model_config = ConfigDict(extra="forbid")

    verdict: ClaimVerdictName
    fact_numbers: list[int]
    explanation: str = Field(min_length=1, max_length=600)
