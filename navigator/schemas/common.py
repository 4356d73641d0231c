"""What every response is built on, and the API's own answers: a refusal, its health."""

from __future__ import annotations

from typing import Literal

from ninja import Field
from pydantic import BaseModel


class Out(BaseModel):
    """Responses are built from plain dicts (navigator.presenters), so they skip ninja's
    Schema, whose ORM attribute getter runs on every nested field (~6 ms a search)."""


class ErrorOut(Out):
    # "unavailable": the database could not be reached (503, Retry-After); nothing was served.
    outcome: Literal["invalid", "unavailable"] = "invalid"
    detail: str
    fields: list[dict] = Field(default_factory=list)


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
