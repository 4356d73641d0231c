"""What the OpenAI-compatible provider's answers become: the model's structured answers
(knowledge.providers.types) read into the knowledge base's own types, every answer the checks
refuse named as a ProviderError. Nothing here talks to the endpoint."""

from __future__ import annotations

import datetime as dt
import logging
from decimal import Decimal

from knowledge.domain.extraction import UnitProposal, Usage, ValidityBasis
from knowledge.domain.questions import MAX_SUB_QUERIES, ClaimJudgement, QueryAnalysis
from knowledge.providers.types import (
    LlmApplies,
    LlmClaimJudgement,
    LlmFigure,
    LlmQueryAnalysis,
    LlmUnits,
    ProviderError,
)
from knowledge.text.applicability import applicability_checked

logger = logging.getLogger(__name__)

# The model says where the page states a fact's period; whether an undated yearly figure holds
# for its capture's year is decided where proposals become units, as for every provider.
_PERIOD_BASES = {
    "stated": ValidityBasis.STATED,
    "heading": ValidityBasis.HEADING,
    "none": ValidityBasis.OPEN,
}


def unit_proposals(answer: LlmUnits) -> list[UnitProposal]:
    """The units the model extracted, as proposals (checked where proposals become units)."""
    return [
        UnitProposal(
            unit_type=unit.unit_type,
            text=unit.text,
            concept_id=unit.concept_id,
            evidence_quote=unit.evidence_quote,
            valid_from=unit.valid_from,
            valid_to=unit.valid_to,
            value_amount=None if unit.value_amount is None else Decimal(str(unit.value_amount)),
            value_unit=unit.value_unit,
            value_period=unit.value_period,
            figures=[_figure(figure) for figure in unit.figures],
            example_of=unit.example_of,
            validity_basis=_PERIOD_BASES[unit.period_basis],
            applicability=_applicability(unit.applies_to),
        )
        for unit in answer.units
    ]


def query_analysis(answer: LlmQueryAnalysis, usage: Usage) -> QueryAnalysis:
    searches = [" ".join(q.split()) for q in answer.sub_queries if q.strip()]
    if answer.strategy == "broad" and not searches:
        raise ProviderError("the LLM analysis chose strategy 'broad' but gave no sub_queries")
    entities = answer.entities.model_dump(exclude_none=True)
    if "date_asked" in entities:
        try:
            dt.date.fromisoformat(entities["date_asked"])
        except ValueError:
            raise ProviderError(
                f"the LLM analysis gave date_asked {entities['date_asked']!r}, not YYYY-MM-DD"
            ) from None
    return QueryAnalysis(
        turn_type=answer.turn_type,
        scope=answer.scope,
        topic_shift=answer.topic_shift,
        entities=entities,
        standalone_query=" ".join(answer.standalone_query.split()),
        strategy=answer.strategy,
        sub_queries=searches[:MAX_SUB_QUERIES] if answer.strategy == "broad" else [],
        no_lookup="model" if answer.strategy == "none" else "",
        analysed_by=usage.model,
        usage=usage,
    )


def claim_judgement(answer: LlmClaimJudgement, usage: Usage, *, shown: int) -> ClaimJudgement:
    unknown = sorted({n for n in answer.fact_numbers if not 1 <= n <= shown})
    if unknown:
        raise ProviderError(
            f"the LLM judgement cites fact {unknown[0]}, but only {shown} were shown"
        )
    if answer.verdict != "unsupported" and not answer.fact_numbers:
        raise ProviderError(f"the LLM judgement says {answer.verdict} but names no fact")
    return ClaimJudgement(
        verdict=answer.verdict,
        facts=tuple(dict.fromkeys(n - 1 for n in answer.fact_numbers)),
        explanation=" ".join(answer.explanation.split()),
        judged_by=usage.model,
        usage=usage,
    )


def _applicability(applies: LlmApplies | None) -> dict | None:
    """The model's reading of who a fact is for, in the stored form; None when it gave none
    or one the checks refuse (a bad benefit code, an age of 500), so the page's reading is
    used instead of a guess."""
    if applies is None:
        return None
    try:
        return applicability_checked(applies.model_dump(exclude_none=True))
    except ValueError as exc:
        logger.warning("the model's applies_to was not used: %s", exc)
        return None


def _figure(figure: LlmFigure) -> dict:
    """A statement's other figure as a proposal carries it (checked where units are stored)."""
    return {
        "amount": str(Decimal(str(figure.amount))),
        "unit": figure.unit,
        "period": figure.period or "",
        "role": figure.role,
        "printed": figure.printed,
    }
