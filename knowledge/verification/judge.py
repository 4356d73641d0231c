"""Who judges a claim without figures. By default the rules of `check` do (a unit that says
the same, by similarity, unless one of the two denies what the other says). With
CLAIM_JUDGE_PROVIDER=openai a chat model reads the claim against the units in force and
judges it; its verdict says it comes from that model, and the rules' verdict stands whenever
the model fails (timeout, refusal, an answer of the wrong shape), with the failure named. A
model never judges a claim with figures: those are compared exactly, so no model can turn a
wrong amount into a supported one."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace

from django.conf import settings

from knowledge.providers import ProviderError, get_provider

logger = logging.getLogger(__name__)

FACTS_SHOWN = 5
_REASONS = {
    "supported": "meaning_matches",
    "contradicted": "meaning_differs",
    "unsupported": "no_fact_found",
}


def claim_judge():
    """The provider that judges claims without figures, or None for the rules alone."""
    if settings.CLAIM_JUDGE_PROVIDER == "openai":
        return get_provider("openai")
    return None


def judged(verdict, evidence, *, day: dt.date, judge):
    """`verdict` (the rules') judged again by `judge` against the units in force."""
    facts = [e for e in evidence if e.temporal_status == "current"][:FACTS_SHOWN]
    try:
        judgement = judge.judge_claim(
            claim=verdict.claim.text,
            sentence=verdict.claim.context,
            day=day,
            facts=[e.unit.as_unit_text() for e in facts],
        )
    except ProviderError as exc:
        logger.warning("claim judging by %s failed, rules used: %s", judge.name, exc.reason)
        return replace(verdict, fallback=f"{judge.name} judgement failed: {exc.reason}")
    chosen = [facts[index] for index in judgement.facts]
    return replace(
        verdict,
        verdict=judgement.verdict,
        reason=_REASONS[judgement.verdict],
        evidence=chosen or facts[:1],
        knowledge_base_value=chosen[0].unit.text[:200]
        if judgement.verdict == "contradicted" and chosen
        else None,
        checked_by=f"model:{judgement.judged_by}",
        explanation=judgement.explanation,
    )


class RememberingJudge:
    """A judge that asks its model once per claim, sentence, day and facts shown: a
    cross-validation varies the thresholds over the same answers, and the same question to
    the model would cost again for the same answer."""

    def __init__(self, judge):
        self.judge = judge
        self.name = judge.name
        self.analysis_model = getattr(judge, "analysis_model", "")
        self._answers: dict = {}

    def judge_claim(self, *, claim: str, sentence: str, day, facts):
        key = (claim, sentence, day, tuple(facts))
        if key not in self._answers:
            self._answers[key] = self.judge.judge_claim(
                claim=claim, sentence=sentence, day=day, facts=facts
            )
        return self._answers[key]
