"""A drafted answer checked claim by claim."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field
from pydantic import BaseModel, ConfigDict, field_validator

from knowledge.domain.profile import Profile
from knowledge.retrieval.params import (
    MAX_CONVERSATION_CHARS,
    MAX_TURNS,
    AsOf,
    Conversation,
    storable_text,
)
from navigator.schemas.common import Out

MAX_ANSWER_CHARS = 4000


class VerifyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

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
