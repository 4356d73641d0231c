"""Claim-verification evaluation over answers in the format of
../shared/eval/verify_cases_dev.jsonl, scored as that folder's README says: returned claims
matched to gold claims by character overlap (at least half the gold claim), greedily, largest
overlap first; verdict accuracy per class, contradicted recall, supported precision, missed
claims, the confusion matrix, and the latency of verifying each answer."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluation.retrieval import latency_summary
from knowledge.validation import first_error
from knowledge.verification.check import Thresholds, Verification, answer_verify
from knowledge.verification.evidence import claim_evidence
from knowledge.verification.judge import RememberingJudge

VERDICTS = ("supported", "contradicted", "unsupported")


class CaseFileError(ValueError):
    """The case file is missing or a line does not have the README's shape."""


class GoldPage(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    url: str


class GoldClaim(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    text: str
    verdict: str
    gold: tuple[GoldPage, ...] = ()


class VerifyCase(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    answer: str
    as_of: date | None = None
    claims: tuple[GoldClaim, ...]


@dataclass
class CaseResult:
    id: str
    pairs: list[tuple[str, str, str]]  # (gold verdict, returned verdict or "no match", reason)
    unmatched_returned: list[str]  # verdicts of returned claims matching no gold claim
    milliseconds: float


def load_cases(path: Path) -> list[VerifyCase]:
    if not path.is_file():
        raise CaseFileError(f"case file not found: {path}")
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                cases.append(VerifyCase.model_validate_json(line))
            except ValidationError as error:
                raise CaseFileError(f"line {number}: {first_error(error)}") from None
    return cases


# Verified once before any answer is timed; no case's claim is about a £1 allowance.
WARM_UP_ANSWER = "The warm-up allowance is £1 a year for everyone who asks for it."


def verification_warm() -> None:
    """One verification before any is timed, as a served process has made many: the
    embedding model loads and makes its first, slow, call; the database session opens."""
    answer_verify(answer=WARM_UP_ANSWER)


def evaluate_case(case: VerifyCase, *, judge=None) -> CaseResult:
    """The case verified as the API verifies an answer (its `milliseconds` time that alone,
    not the scoring), then scored."""
    found = answer_verify(answer=case.answer, as_of=case.as_of, judge=judge)
    return score_case(case, found)


def score_case(case: VerifyCase, found: Verification) -> CaseResult:
    gold = [
        (case.answer.index(c.text), case.answer.index(c.text) + len(c.text), c) for c in case.claims
    ]
    candidates = []
    for gi, (gs, ge, _) in enumerate(gold):
        for ri, returned in enumerate(found.claims):
            overlap = min(ge, returned.claim.end) - max(gs, returned.claim.start)
            if overlap >= 0.5 * (ge - gs):
                candidates.append((overlap, gi, ri))
    used_gold, used_returned, matched = set(), set(), {}
    for _, gi, ri in sorted(candidates, reverse=True):
        if gi not in used_gold and ri not in used_returned:
            used_gold.add(gi), used_returned.add(ri)
            matched[gi] = found.claims[ri]
    pairs = [
        (claim.verdict, matched[gi].verdict, matched[gi].reason)
        if gi in matched
        else (claim.verdict, "no match", "")
        for gi, (_, _, claim) in enumerate(gold)
    ]
    extra = [c.verdict for ri, c in enumerate(found.claims) if ri not in used_returned]
    return CaseResult(case.id, pairs, extra, found.milliseconds)


def summarise_verification(results: list[CaseResult]) -> dict:
    pairs = [pair for r in results for pair in r.pairs]
    per_class = {v: _share([got == v for want, got, _ in pairs if want == v]) for v in VERDICTS}
    returned_supported = [want for want, got, _ in pairs if got == "supported"]
    return {
        "answers": len(results),
        "gold_claims": len(pairs),
        "verdict_accuracy": _share([want == got for want, got, _ in pairs]),
        "accuracy_by_class": per_class,
        "contradicted_recall": per_class["contradicted"],
        "supported_precision": _share([want == "supported" for want in returned_supported]),
        "missed_claims": _share([got == "no match" for _, got, _ in pairs]),
        "confusion": dict(Counter((want, got) for want, got, _ in pairs)),
        "reasons": dict(Counter((want, got, reason) for want, got, reason in pairs)),
        "unmatched_returned": dict(Counter(v for r in results for v in r.unmatched_returned)),
        "latency_ms": verification_latency(results),
    }


def verification_latency(results: list[CaseResult]) -> dict:
    """p50 and p95 of verifying one answer, in milliseconds, over `n` answers."""
    return latency_summary([r.milliseconds for r in results]) | {"n": len(results)}


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


# --- thresholds by cross-validation ------------------------------------------------------------

GRID = {
    "figure_topic": (0.35, 0.45, 0.55, 0.65),
    "differs_topic": (0.5, 0.6, 0.7, 0.8),
    "meaning": (0.6, 0.7, 0.8),
    "topic_margin": (0.0, 0.05, 1.0),
}
FOLDS = 5


def remembering_evidence():
    """`claim_evidence` that searches each (claim, day) once: the thresholds vary, the
    evidence does not."""
    memo: dict = {}

    def evidence_of(claim, day):
        key = (claim.context, claim.text, day)
        if key not in memo:
            memo[key] = claim_evidence(claim, day)
        return memo[key]

    return evidence_of


def case_group(case: VerifyCase) -> str:
    """An answer's first gold page, which keeps the answers about it on one side of a split."""
    urls = [page.url for claim in case.claims for page in claim.gold]
    return urls[0] if urls else f"case:{case.id}"


def cross_validate_thresholds(cases: list[VerifyCase], *, judge=None) -> dict:
    """Held-out figures with the thresholds chosen on the other folds, folds grouped by the
    first gold page of each answer. The choice weighs verdict accuracy and contradicted
    recall equally: a wrong amount passed as supported is the failure that matters most.
    The latency is that of each answer verified as the API does it, before the thresholds
    are varied over remembered evidence."""
    from sklearn.model_selection import GroupKFold

    judge = RememberingJudge(judge) if judge is not None else None
    latency = verification_latency([evaluate_case(case, judge=judge) for case in cases])
    evidence_of = remembering_evidence()
    grid = [Thresholds(*values) for values in itertools.product(*GRID.values())]
    results = {
        t: [
            score_case(
                c,
                answer_verify(
                    answer=c.answer,
                    as_of=c.as_of,
                    thresholds=t,
                    evidence_of=evidence_of,
                    judge=judge,
                ),
            )
            for c in cases
        ]
        for t in grid
    }
    held_out: list[CaseResult | None] = [None] * len(cases)
    chosen = []
    groups = [case_group(case) for case in cases]
    for train, test in GroupKFold(n_splits=FOLDS).split(cases, groups=groups):
        best = max(grid, key=lambda t: _objective([results[t][i] for i in train]))
        chosen.append(best)
        for i in test:
            held_out[i] = results[best][i]
    report = summarise_verification(held_out) | {"latency_ms": latency}
    report["thresholds_chosen"] = [vars(t) for t in chosen]
    report["best_on_all"] = vars(max(grid, key=lambda t: _objective(results[t])))
    return report


def _objective(results: list[CaseResult]) -> float:
    pairs = [pair for r in results for pair in r.pairs]
    accuracy = sum(want == got for want, got, _ in pairs) / len(pairs)
    contradicted = [got == "contradicted" for want, got, _ in pairs if want == "contradicted"]
    return accuracy + (sum(contradicted) / len(contradicted) if contradicted else 0.0)
