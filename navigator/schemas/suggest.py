"""What a person should know before they ask, from their profile."""

from __future__ import annotations

import datetime as dt

from ninja import Field
from pydantic import BaseModel, ConfigDict, field_validator

from knowledge.domain.profile import Profile
from knowledge.query.suggest import MAX_SUGGESTIONS
from knowledge.retrieval.params import AsOf
from navigator.schemas.common import Out
from navigator.schemas.search import ConceptHitOut


class SuggestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

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
