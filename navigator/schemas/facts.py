"""The knowledge base's facts as served: a unit with its value, figures and evidence, its
concept and category."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field

from navigator.schemas.common import Out


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
