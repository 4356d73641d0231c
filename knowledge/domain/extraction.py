"""What extraction, adjudication and placement work with, whoever does the work (a chat
model or the heuristic): a page as read, a proposed unit, a unit's text, a concept, and the
verdicts. Plain typed objects; nothing here is about one provider."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Literal

UnitType = Literal["rule", "threshold", "definition", "procedure", "eligibility", "example"]


ValueUnit = Literal["GBP", "percent", "count", "years", "weeks", "days", "hours"]


ValuePeriod = Literal["year", "month", "four_weeks", "week", "day", "hour", "one_off"]


class ValidityBasis(StrEnum):
    """Why a unit has its validity dates (AtomicUnit.validity_basis), shown in the screens and
    the API. A figure's dates never come from gov.uk's `public_updated_at`: GOV.UK leaves it
    old over new text."""

    STATED = "stated year"  # its own sentence or table row names the period
    HEADING = "heading"  # a heading, table caption or lead-in sentence above it names the year
    CAPTURE = "capture of a yearly figure"  # a figure set each year, printed with no year:
    # it holds for the tax (or academic) year its page was captured in, extended by each newer
    # capture that still prints it
    OPEN = "open"  # a rule or standing limit not tied to a year: open until superseded
    EXPERT = "set by an expert"  # an expert corrected the dates (curation's unit editor)


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
    # The statement's other figures, each {"amount", "unit", "period", "role", "printed"}
    # ("1% per £200 above £60,000": 1% is the value, £200 role "per", £60,000 role "above");
    # the amount a decimal string, so the proposal stays JSON.
    figures: list[dict] = field(default_factory=list)
    # Who the fact is for, when the provider says (the stored form); None: read from the page.
    applicability: dict | None = None

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
    # The page as received stops mid-sentence (a stored excerpt capped at a length): its last,
    # unfinished sentence is not a fact.
    cut_off: bool = False


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
