"""Request and response shapes of the public API (`XIn` / `XOut`)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema
from pydantic import BaseModel, field_validator, model_validator

Outcome = Literal["ok", "low_confidence", "no_match", "invalid"]


class Out(BaseModel):
    """Responses are built from plain dicts (navigator.presenters), so they skip ninja's
    Schema, whose ORM attribute getter runs on every nested field (~6 ms a search)."""


class SearchIn(Schema):
    query: str = Field(
        ..., min_length=1, max_length=2000, description="The user's question or search words"
    )
    k: int = Field(5, ge=1, le=50, description="Concepts wanted")
    floor: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Similarity below which nothing is considered (default per embedding model)",
    )
    quality: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Similarity a result needs to count as good (default per embedding model)",
    )
    min_results: int | None = Field(
        None,
        ge=0,
        le=50,
        description="Top up to this many from below-quality results (default min(3, k))",
    )
    categories: list[str] = Field(
        default_factory=list, max_length=23, description="Category slugs to search in"
    )
    include_historical: bool = Field(False, description="Also return historical and upcoming units")
    as_of: dt.date | None = Field(None, description="Answer as on this date (YYYY-MM-DD)")
    token_budget: int = Field(
        8000, ge=100, le=100_000, description="Tokens for the assembled context"
    )
    mode: Literal["concept", "units", "both"] | None = Field(
        None, description="How concepts are scored"
    )
    hybrid: bool | None = Field(None, description="Fuse full-text ranks with vector ranks")

    @field_validator("query")
    @classmethod
    def _query_has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain words, not only spaces")
        return value

    @field_validator("query", "categories")
    @classmethod
    def _storable_text(cls, value: str | list[str]) -> str | list[str]:
        # PostgreSQL text cannot hold them: refused here, not by the database.
        for text in [value] if isinstance(value, str) else value:
            if "\x00" in text:
                raise ValueError("must not contain a NUL byte")
            if not text.isascii() and not _encodable(text):
                raise ValueError("must be valid Unicode (no lone surrogates)")
        return value

    @field_validator("as_of")
    @classmethod
    def _as_of_sane(cls, value: dt.date | None) -> dt.date | None:
        if value is not None and not dt.date(1990, 1, 1) <= value <= dt.date(2100, 12, 31):
            raise ValueError("must be between 1990-01-01 and 2100-12-31")
        return value

    @model_validator(mode="after")
    def _floor_not_above_quality(self) -> SearchIn:
        if self.floor is not None and self.quality is not None and self.floor > self.quality:
            raise ValueError("floor must not be above quality")
        if self.min_results is None:
            self.min_results = min(3, self.k)
        if self.min_results > self.k:
            raise ValueError("min_results must not be above k")
        return self


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class ValueOut(Out):
    amount: float
    unit: str
    period: str | None


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
    valid_from: dt.date | None
    valid_to: dt.date | None
    superseded_date: dt.date | None
    temporal_status: str
    evidence: EvidenceOut
    source_url: str
    also_found_in: list[str] = Field(
        default_factory=list, description="Other pages that state the same unit (merged duplicates)"
    )
    part_url: str
    provider: str
    review_status: str = Field(description="pending, approved (signed off) or rejected")
    signed_off_by: str | None = Field(
        None, description="The domain expert who signed the unit off, when it is signed off"
    )
    signed_off_at: dt.datetime | None = Field(None, description="When it was signed off")
    similarity: float | None = None


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
    sources: list[SourceGroupOut]


class SearchOut(Out):
    outcome: Outcome
    reasons: list[str]
    as_of: dt.date
    mode: str
    thresholds: dict[str, float]
    concepts: list[ConceptHitOut]
    sources: list[str]
    context: str
    context_tokens: int
    timings_ms: dict[str, float]


class ErrorOut(Out):
    outcome: Outcome = "invalid"
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
