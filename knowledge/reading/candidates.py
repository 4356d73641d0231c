"""A unit a claim (or a question) is read against, with how near it was found: the
candidates claim checking reads a claim's verdict from (knowledge.verification.evidence finds
them), and a search's shown units read for whether they state what was asked."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.models import AtomicUnit


@dataclass
class Evidence:
    unit: AtomicUnit
    similarity: float  # to the claim's own words
    temporal_status: str
    # To the claim as the question it answers (its figures out), and to the claim after the
    # sentence before it (the answer's topic); the rank of the unit's concept in the
    # question search (None: found otherwise).
    masked_similarity: float = 0.0
    context_similarity: float = 0.0
    concept_rank: int | None = None
    # Whether the unit is about the same quantity as the claim (knowledge.verification.
    # aboutness), filled once the candidates are read.
    about: float | None = None
