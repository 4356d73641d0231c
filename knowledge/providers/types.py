"""What the chat-model providers are asked and answer: the shared data types, the answer
schemas an LLM fills in, the errors, and the `Provider` protocol. Every provider imports this
module; it imports no provider.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from knowledge.glossary import GlossaryEntry

UnitType = Literal["rule", "threshold", "definition", "procedure", "eligibility", "example"]
ValueUnit = Literal["GBP", "percent", "count", "years", "weeks", "days", "hours"]
ValuePeriod = Literal["year", "month", "four_weeks", "week", "day", "hour", "one_off"]


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


class LlmUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unit_type: UnitType
    text: str = Field(min_length=1)
    concept_id: str | None
    evidence_quote: str = Field(min_length=1)
    valid_from: str | None
    valid_to: str | None
    value_amount: float | None
    value_unit: ValueUnit | None
    value_period: ValuePeriod | None
    example_of: int | None


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


@dataclass
class UnitProposal:
    """One proposed unit, before validation. Dates are ISO strings as the provider said."""

    unit_type: str
    text: str
    concept_id: str | None
    evidence_quote: str
    valid_from: str | None = None
    valid_to: str | None = None
    value_amount: Decimal | None = None
    value_unit: str | None = None
    value_period: str | None = None
    example_of: int | None = None
    validity_basis: str = ""
    section: str = ""  # heading path, a hint for binding
    candidates: list[tuple[str, float]] = field(default_factory=list)

    def as_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k != "candidates"}
        data["value_amount"] = None if self.value_amount is None else str(self.value_amount)
        data["candidates"] = [[concept, round(score, 4)] for concept, score in self.candidates]
        return data


@dataclass(frozen=True)
class Usage:
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class PageInput:
    title: str
    url: str
    document_type: str
    text: str
    sections: list[dict]
    period_hint: str
    public_updated_at: dt.datetime | None


@dataclass(frozen=True)
class ConceptInfo:
    taxonomy_id: str
    name: str
    description: str
    category: str
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True)
class CategoryInfo:
    slug: str
    name: str
    description: str


@dataclass(frozen=True)
class UnitText:
    """What an adjudicator sees of one unit."""

    unit_type: str
    text: str
    concept: str = ""  # "taxonomy_id: name"
    value_amount: Decimal | None = None
    value_unit: str = ""
    value_period: str = ""
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    source_url: str = ""
    vector: tuple[float, ...] | None = None  # the heuristic placement check compares these


@dataclass(frozen=True)
class PageDigest:
    """What a bootstrap proposer reads of one page: its headings and the start of its text."""

    title: str
    url: str
    headings: list[str]
    excerpt: str


@dataclass(frozen=True)
class Adjudication:
    """Are two units the same rule at different times? `confidence` is in 0..1."""

    same_rule: bool
    confidence: float
    rationale: str
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Placement:
    """Does a unit belong to its concept? `suggested` is the taxonomy id of one of the
    alternatives the checker was given (None when the unit belongs, or fits none of them);
    `confidence` is in 0..1; `margin` is how much nearer the suggestion's vector is than the
    concept's (the heuristic's evidence; None from an LLM)."""

    belongs: bool
    suggested: str | None
    reason: str
    confidence: float
    usage: Usage = field(default_factory=Usage)
    margin: float | None = None


@dataclass(frozen=True)
class ProposedConcept:
    """One concept an LLM proposes, as it said it: `id_suffix` is the taxonomy id without the
    category's prefix. Not validated yet."""

    id_suffix: str
    name: str
    description: str


# --- understanding a question -----------------------------------------------------------

TurnType = Literal["new", "follow_up", "clarification"]
QueryScope = Literal["topic", "life_situation"]
Strategy = Literal["none", "specific", "broad"]
Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ConversationTurn:
    role: str  # "user" | "assistant"
    content: str


@dataclass(frozen=True)
class LifeEventInfo:
    slug: str
    name: str
    triggers: tuple[str, ...]
    searches: tuple[str, ...]


@dataclass(frozen=True)
class QueryVocabulary:
    """What an analysis knows of the knowledge base: its categories, its glossary, its
    life-event map, and the names its topics go by (concept and category names without
    their qualifiers), which tell a question that names its topic from one that does not."""

    categories: tuple[CategoryInfo, ...] = ()
    glossary: tuple[GlossaryEntry, ...] = ()
    life_events: tuple[LifeEventInfo, ...] = ()
    topic_names: tuple[str, ...] = ()


class QueryEntities(BaseModel):
    """Facts about the person asking, as the question or conversation states them."""

    model_config = ConfigDict(extra="forbid")

    age: int | None = None
    income: float | None = None
    nation: Literal["England", "Scotland", "Wales", "Northern Ireland"] | None = None
    relationship: str | None = None
    children: int | None = None
    employment: str | None = None
    date_asked: str | None = None  # YYYY-MM-DD: the day the question is about


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


@dataclass
class QueryAnalysis:
    """How a turn is understood before it is searched. `analysed_by` says who did it:
    "heuristic", or the model's name; a model that failed leaves "heuristic" and the reason
    in `fallback`."""

    turn_type: str
    scope: str
    topic_shift: bool
    entities: dict
    standalone_query: str
    strategy: str
    sub_queries: list[str] = field(default_factory=list)
    life_event: str | None = None
    analysed_by: str = "heuristic"
    fallback: str = ""
    usage: Usage = field(default_factory=Usage)

    def as_json(self) -> dict:
        return {
            "turn_type": self.turn_type,
            "scope": self.scope,
            "topic_shift": self.topic_shift,
            "entities": self.entities,
            "standalone_query": self.standalone_query,
            "strategy": self.strategy,
            "sub_queries": self.sub_queries,
            "life_event": self.life_event,
            "analysed_by": self.analysed_by,
            "fallback": self.fallback,
        }


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

ClaimVerdictName = Literal["supported", "contradicted", "unsupported"]


class LlmClaimJudgement(BaseModel):
    """What a chat model answers about one claim checked against numbered facts."""

    model_config = ConfigDict(extra="forbid")

    verdict: ClaimVerdictName
    fact_numbers: list[int]
    explanation: str = Field(min_length=1, max_length=600)


@dataclass(frozen=True)
class ClaimJudgement:
    """A model's verdict on a claim: `facts` are indexes into the facts it was shown;
    `judged_by` is the model's name."""

    verdict: str
    facts: tuple[int, ...]
    explanation: str
    judged_by: str
    usage: Usage = field(default_factory=Usage)
