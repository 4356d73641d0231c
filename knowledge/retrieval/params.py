"""What a search is asked: one model holding each parameter's bound and meaning once.

The API's request models extend it or share its field types (`AsOf`, `Conversation`), the
tool definitions for agents are generated from their JSON schema, and the search service
trusts what it holds: an instance exists only once its values passed these checks. The one
check left to the service is the one that needs the settings: a floor sent without a quality
must not be above the embedding model's default quality (and the reverse). Who the user is (`profile`) is the domain's request model,
knowledge.domain.profile.Profile, which suggestions and verification take too.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from knowledge.domain.profile import Profile
from knowledge.domain.temporal import as_of_or_today

MAX_QUERY_CHARS = 2000
MAX_K = 50
EARLIEST_DAY, LATEST_DAY = dt.date(1990, 1, 1), dt.date(2100, 12, 31)


def storable_text(text: str) -> str:
    """`text`, refused when PostgreSQL's text type could not hold it (NUL, lone surrogates)."""
    if "\x00" in text:
        raise ValueError("must not contain a NUL byte")
    try:
        text.encode()
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return text


def sane_day(value: dt.date | None) -> dt.date | None:
    if value is not None and not EARLIEST_DAY <= value <= LATEST_DAY:
        raise ValueError(f"must be between {EARLIEST_DAY} and {LATEST_DAY}")
    return value


AsOf = Annotated[
    dt.date | None,
    Field(
        None,
        description="The day asked about (YYYY-MM-DD): facts are taken as they stand on it; "
        "omit for today",
    ),
    AfterValidator(sane_day),
]

MAX_TURNS = 12
MAX_TURN_CHARS = 2000
MAX_CONVERSATION_CHARS = 8000


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"] = Field(..., description="Who said it")
    content: str = Field(..., min_length=1, description="What was said")

    @field_validator("content")
    @classmethod
    def _content_bounded(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain words, not only spaces")
        if len(value) > MAX_TURN_CHARS:
            raise ValueError(
                f"is {len(value)} characters: at most {MAX_TURN_CHARS} a turn (shorten or summarise it)"
            )
        return storable_text(value)


def _conversation_bounded(turns: list[Turn]) -> list[Turn]:
    if len(turns) > MAX_TURNS:
        raise ValueError(f"has {len(turns)} turns: send at most the latest {MAX_TURNS}")
    total = sum(len(turn.content) for turn in turns)
    if total > MAX_CONVERSATION_CHARS:
        raise ValueError(
            f"has {total} characters: at most {MAX_CONVERSATION_CHARS} in all (send the latest turns)"
        )
    return turns


Conversation = Annotated[
    list[Turn],
    Field(
        default_factory=list,
        description=(
            f"The turns before `query`, oldest first, each {{role: user|assistant, content}}: at "
            f"most {MAX_TURNS} turns and {MAX_CONVERSATION_CHARS} characters in all, so that a "
            "follow-up ('and for a Junior one?') is understood. Omit for a first question."
        ),
    ),
    AfterValidator(_conversation_bounded),
]


class Question(BaseModel):
    """A user's question and the day its answer should hold on."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        ...,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="The user's latest question, in their own words",
    )
    # A question's own words may name the day, which other requests' as_of cannot lean on.
    as_of: AsOf = Field(
        description="Answer as on this date (YYYY-MM-DD); without it, a date named in the "
        "question's words ('in 2018/19', 'last tax year') is used, else today",
    )

    @field_validator("query")
    @classmethod
    def _query_has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain words, not only spaces")
        return storable_text(value)

    profile: Profile | None = Field(
        None,
        description="What you know about the user (age, nation, annual_income, employment, "
        "partner, children_ages, benefits, student_loan_plan), only the fields you know; {} "
        "when you know none: what the user says of themselves in `conversation` and `query` "
        "('I'm 45', 'we live in Glasgow') fills the fields you did not send, and a child of 16 "
        "or over they say has left education for work is not counted (the analysis says "
        "which). Units for this person rank first, units for other people are labelled "
        "applies: false with the reason, and a question answered only for other people is "
        "refused (not_for_this_profile). Never stored.",
    )

    def day(self) -> dt.date:
        """The day the answer holds on: `as_of`, else today."""
        return as_of_or_today(self.as_of)


class SearchParams(Question):
    k: int = Field(5, ge=1, le=MAX_K, description="Concepts wanted")
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
        le=MAX_K,
        description="Top up to this many from below-quality results (default min(3, k))",
    )
    categories: list[str] = Field(
        default_factory=list, max_length=23, description="Category slugs to search in"
    )
    include_historical: bool = Field(
        False, description="Also return past and upcoming units (historical, superseded)"
    )
    token_budget: int = Field(
        8000, ge=100, le=100_000, description="Tokens for the assembled context"
    )
    mode: Literal["concept", "units", "both"] | None = Field(
        None, description="How concepts are scored (default from the settings)"
    )
    hybrid: bool | None = Field(None, description="Fuse full-text ranks with vector ranks")
    min_review: Literal["none", "signed_off"] = Field(
        "none",
        description="'signed_off': serve only units a domain expert signed off or corrected "
        "(review_status 'approved'); when facts are held for the question but none of them is "
        "reviewed, the outcome is 'not_reviewed'. 'none' (default): every unit",
    )

    @field_validator("categories")
    @classmethod
    def _storable_categories(cls, value: list[str]) -> list[str]:
        return [storable_text(text) for text in value]

    @model_validator(mode="after")
    def _bounds_agree(self) -> SearchParams:
        if self.floor is not None and self.quality is not None and self.floor > self.quality:
            raise ValueError("floor must not be above quality")
        if self.min_results is None:
            self.min_results = min(3, self.k)
        if self.min_results > self.k:
            raise ValueError("min_results must not be above k")
        return self
