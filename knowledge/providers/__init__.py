"""The one door to chat language models, and the provider interface for extraction,
superseding adjudication, the quality job's placement check and bootstrap proposals.

Two providers answer the same questions: `openai` (any OpenAI-compatible endpoint, with
structured outputs; knowledge.providers.openai_compatible) and `heuristic` (offline and
deterministic; knowledge.providers.heuristic; everything it makes is labelled
provider=heuristic). What they are asked and answer is in knowledge.providers.types, which
both import and which imports neither. Prompts are versioned files in
knowledge/providers/prompts/. Bootstrap proposals are the one question only `openai` answers
here: the heuristic bootstrap reads stored pages as a whole and lives in curation.

The names below are the package's public interface: other apps import them from here.
"""

from __future__ import annotations

from knowledge.domain.extraction import (
    Adjudication,
    CategoryInfo,
    ConceptInfo,
    PageDigest,
    PageInput,
    Placement,
    ProposedConcept,
    UnitProposal,
    UnitText,
    Usage,
)
from knowledge.providers.heuristic import HeuristicProvider
from knowledge.providers.openai_compatible import OpenAIProvider
from knowledge.providers.prompts import (
    PROMPT_VERSION,
    adjudicate_prompt,
    bootstrap_prompt,
    context_prompt,
    placement_prompt,
    units_prompt,
)
from knowledge.providers.types import (
    LlmAdjudication,
    LlmConceptProposals,
    LlmPlacement,
    LlmProposedConcept,
    LlmUnit,
    LlmUnits,
    PageContext,
    Provider,
    ProviderError,
    ProviderTransientError,
)

__all__ = [
    "PROMPT_VERSION",
    "Adjudication",
    "CategoryInfo",
    "ConceptInfo",
    "HeuristicProvider",
    "LlmAdjudication",
    "LlmConceptProposals",
    "LlmPlacement",
    "LlmProposedConcept",
    "LlmUnit",
    "LlmUnits",
    "OpenAIProvider",
    "PageContext",
    "PageDigest",
    "PageInput",
    "Placement",
    "ProposedConcept",
    "Provider",
    "ProviderError",
    "ProviderTransientError",
    "UnitProposal",
    "UnitText",
    "Usage",
    "adjudicate_prompt",
    "bootstrap_prompt",
    "context_prompt",
    "get_provider",
    "placement_prompt",
    "units_prompt",
]


def get_provider(name: str | None = None) -> Provider:
    """The provider `name` names, or the one settings.LLM_PROVIDER does."""
    from django.conf import settings

    name = name or settings.LLM_PROVIDER
    if name == "heuristic":
        return HeuristicProvider()
    if name == "openai":
        return OpenAIProvider.from_settings()
    raise ProviderError(f"unknown provider {name!r}: use heuristic or openai")
