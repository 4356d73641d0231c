"""Domain objects -> API payloads (plain dicts matching navigator.schemas)."""

from __future__ import annotations

from collections import defaultdict

from curation.selectors.review import Signoff, unit_signoffs
from knowledge.domain.temporal import TemporalStatus
from knowledge.extraction.dating import unit_confirmed_on
from knowledge.models import AtomicUnit, Concept
from knowledge.retrieval.hits import unit_part_url


def unit_payload(
    unit: AtomicUnit,
    *,
    status: str,
    part_url: str = "",
    similarity=None,
    signoffs: dict[int, Signoff] | None = None,
    fit=None,
) -> dict:
    """`signoffs`: the sign-offs of a batch of units read at once (`unit_signoffs`); without
    it a signed-off unit reads its own. The corrector is read from `unit.corrected_by`: load
    it with the unit (select_related), or each corrected unit costs a query."""
    value = None
    if unit.value_amount is not None:
        value = {
            "amount": float(unit.value_amount),
            "unit": unit.value_unit,
            "period": unit.value_period or None,
        }
    return {
        "id": unit.pk,
        "type": unit.unit_type,
        "text": unit.text,
        "value": value,
        "figures": [
            {
                "amount": float(figure["amount"]),
                "unit": figure["unit"],
                "period": figure.get("period") or None,
                "role": figure["role"],
                "printed": figure.get("printed") or "",
            }
            for figure in unit.figures
        ],
        "valid_from": unit.valid_from,
        "valid_to": unit.valid_to,
        "superseded_date": unit.superseded_date,
        "temporal_status": status,
        "ended_on": unit.valid_to if status == TemporalStatus.OUTDATED else None,
        "evidence": {
            "quote": unit.evidence_quote,
            "start": unit.evidence_start,
            "end": unit.evidence_end,
            "verified": unit.evidence_verified,
            "snapshot_id": unit.snapshot_id,
            "snapshot_date": unit.snapshot.fetched_at,
        },
        "source_url": unit.source.url,
        "source_status": _source_status(unit.source),
        "validity_basis": unit.validity_basis or None,
        "confirmed_on": unit_confirmed_on(snapshot=unit.snapshot, confirmed_at=unit.confirmed_at),
        "unconfirmed_since": unit.unconfirmed_at.date() if unit.unconfirmed_at else None,
        "also_found_in": also_found_in(unit),
        "part_url": part_url or unit_part_url(unit),
        "provider": unit.provider,
        "review_status": unit.review_status,
        **signoff_fields(unit, signoffs),
        "corrected_by": unit.corrected_by.get_username() if unit.corrected_by else None,
        "corrected_at": unit.corrected_at,
        "similarity": similarity,
        "applies_to": unit.applicability or {},
        "applies": fit.applies if fit else None,
        "applies_reason": fit.reason if fit else "",
    }


def signoffs_for(units: list[AtomicUnit]) -> dict[int, Signoff]:
    """The sign-offs of a batch of units in one query. Only signed-off units have one to read,
    so there is no query at all when none of them is signed off."""
    approved = [unit.pk for unit in units if unit.review_status == AtomicUnit.ReviewStatus.APPROVED]
    return unit_signoffs(unit_ids=approved) if approved else {}


def signoff_fields(unit: AtomicUnit, signoffs: dict[int, Signoff] | None) -> dict:
    signoff = None
    if unit.review_status == AtomicUnit.ReviewStatus.APPROVED:
        if signoffs is None:
            signoffs = unit_signoffs(unit_ids=[unit.pk])
        signoff = signoffs.get(unit.pk)
    return {
        "signed_off_by": signoff.by if signoff else None,
        "signed_off_at": signoff.at if signoff else None,
    }


def _source_status(source) -> str:
    """current / changed / gone, as a downstream app needs it (an error is still current)."""
    return {"changed": "changed", "gone": "gone"}.get(source.status, "current")


def also_found_in(unit: AtomicUnit) -> list[str]:
    """The other pages that state the unit: annotated by `with_sightings()` (no query)."""
    if hasattr(unit, "also_found_in_urls"):
        return unit.also_found_in_urls
    return [sighting.source.url for sighting in unit.sightings.select_related("source")]


def category_ref(concept: Concept) -> dict:
    return {"slug": concept.category.slug, "name": concept.category.name}


def concept_hit_payload(hit, *, signoffs: dict[int, Signoff], found_by: str = "your words") -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for unit_hit in hit.units:
        groups[unit_hit.unit.source.url].append(
            unit_payload(
                unit_hit.unit,
                status=unit_hit.temporal_status,
                part_url=unit_hit.part_url,
                similarity=unit_hit.similarity,
                signoffs=signoffs,
                fit=unit_hit.fit,
            )
        )
    return {
        "taxonomy_id": hit.concept.taxonomy_id,
        "name": hit.concept.name,
        "category": category_ref(hit.concept),
        "score": hit.score,
        "score_parts": {
            "concept": hit.concept_similarity,
            "units": hit.unit_similarity,
            "text": hit.text_rank,
        },
        "below_quality": hit.below_quality,
        "found_by": found_by,
        "sources": [{"source_url": url, "units": units} for url, units in groups.items()],
    }


def search_payload(answered) -> dict:
    """The response to a question search (`knowledge.query.search.QuestionResult`)."""
    result = answered.result
    signoffs = signoffs_for([unit_hit.unit for hit in result.concepts for unit_hit in hit.units])
    found_by = answered.found_by
    return {
        "outcome": result.outcome,
        "reasons": result.reasons,
        "confidence": result.confidence,
        "as_of": result.as_of,
        "mode": result.mode,
        "thresholds": result.thresholds,
        "concepts": [
            concept_hit_payload(hit, signoffs=signoffs, found_by=found_by.get(hit.concept.pk, ""))
            for hit in result.concepts
        ],
        "sources": result.sources,
        "context": result.context,
        "context_tokens": result.context_tokens,
        "timings_ms": result.timings_ms,
        "analysis": answered.plan.as_json(),
    }


def verification_payload(checked) -> dict:
    """The response to a verification (`knowledge.verification.check.Verification`)."""
    return {
        "as_of": checked.as_of,
        "claims": [
            {
                "start": c.claim.start,
                "end": c.claim.end,
                "text": c.claim.text,
                "verdict": c.verdict,
                "reason": c.reason,
                "checked_by": c.checked_by,
                "explanation": c.explanation or None,
                "fallback": c.fallback or None,
                "units": [
                    {
                        "id": e.unit.pk,
                        "text": e.unit.text,
                        "evidence_quote": e.unit.evidence_quote,
                        "source_url": e.unit.source.url,
                        "temporal_status": e.temporal_status,
                        "similarity": e.similarity,
                    }
                    for e in c.evidence
                ],
                "knowledge_base_value": c.knowledge_base_value,
                "caveat": c.caveat or None,
            }
            for c in checked.claims
        ],
        "support_score": checked.support_score,
        "timings_ms": {"total": checked.milliseconds},
    }


def suggestions_payload(result) -> dict:
    """The response to a suggestion request (`knowledge.query.suggest.SuggestResult`)."""
    hits = [s.hit for s in result.suggestions]
    signoffs = signoffs_for([unit_hit.unit for hit in hits for unit_hit in hit.units])
    return {
        "as_of": result.as_of,
        "life_events": result.life_events,
        "suggestions": [
            concept_hit_payload(s.hit, signoffs=signoffs, found_by=s.found_by)
            | {"reasons": s.reasons}
            for s in result.suggestions
        ],
        "timings_ms": result.timings_ms,
    }
