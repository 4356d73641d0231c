"""Claim-verification evaluation over answers in the format of
../shared/eval/verify_cases_dev.jsonl, scored as that folder's README says: returned claims
matched to gold claims by character overlap (at least half the gold claim), greedily, largest
overlap first; verdict accuracy per class, contradicted recall, supported precision, missed
claims, the confusion matrix, and the latency of verifying each answer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluation.retrieval import latency_summary
from knowledge.band_table import person_on
from knowledge.domain.profile import Profile
from knowledge.domain.temporal import as_of_or_today
from knowledge.reading.claims import answer_claims
from knowledge.validation import first_error
from knowledge.verification.check import (
    Prepared,
    Verification,
    answer_verify,
    claims_prepared,
    verdicts_read,
)
from knowledge.verification.evidence import claims_evidence

VERDICTS = ("supported", "contradicted", "unsupported")


class CaseFileError(ValueError):
    """The case file is missing or a line does not have the README's shape."""


class GoldPage(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    url: str
    span: str = ""
    part_url: str | None = None


class GoldClaim(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    text: str
    verdict: str
    gold: tuple[GoldPage, ...] = ()
    note: str = ""


class VerifyCase(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    answer: str
    as_of: date | None = None
    claims: tuple[GoldClaim, ...]
    # Who the answer is for (our own labelled claims carry it where the verdict depends on
    # the person); checked as the API's request model checks it.
    profile: dict | None = None


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


def cases_prepared(cases: list[VerifyCase], *, evidence_of=None) -> dict[str, list[Prepared]]:
    """Each case's claims with their candidates and aboutness signals, read once."""
    evidence_of = evidence_of or remembered_evidence()
    return {
        case.id: claims_prepared(
            answer=case.answer, as_of=case.as_of, evidence_of=evidence_of(case)
        )
        for case in cases
    }


def case_read(case: VerifyCase, prepared: list[Prepared], reader, *, judge=None) -> CaseResult:
    """A prepared case's verdicts under one reading, scored."""
    verdicts = verdicts_read(prepared, reader=reader, person=case_person(case), judge=judge)
    return score_case(case, Verification(verdicts, as_of_or_today(case.as_of), 0.0))


def evaluate_case(case: VerifyCase, *, judge=None, reader=None, evidence_of=None) -> CaseResult:
    """The case verified as the API verifies an answer (its `milliseconds` time that alone,
    not the scoring), then scored. `reader`: the aboutness reading (the served one when
    None); `evidence_of`: remembered candidates (`remembered_evidence`)."""
    found = answer_verify(
        answer=case.answer,
        as_of=case.as_of,
        judge=judge,
        person=case_person(case),
        reader=reader,
        evidence_of=None if evidence_of is None else evidence_of(case),
    )
    return score_case(case, found)


def case_person(case: VerifyCase):
    """The person the case's profile describes, as the API reads a profile."""
    if case.profile is None:
        return None
    day = as_of_or_today(case.as_of)
    return person_on(Profile.model_validate(case.profile), day)


def remembered_evidence():
    """Each case's candidates searched once (the readings vary, the candidates do not):
    `evidence_of(case)` gives the `evidence_of(claim, day)` answer_verify takes."""
    memo: dict[str, dict] = {}

    def evidence_of(case: VerifyCase):
        if case.id not in memo:
            claims = answer_claims(case.answer)
            day = as_of_or_today(case.as_of)
            found = claims_evidence(claims, day, answer=case.answer)
            memo[case.id] = {(c.start, c.end): e for c, e in zip(claims, found, strict=True)}

        def of_claim(claim, day):
            return memo[case.id][(claim.start, claim.end)]

        return of_claim

    return evidence_of


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


def case_group(case: VerifyCase) -> str:
    """An answer's first gold page, which keeps the answers about it on one side of a split
    (an answer with none is a group of its own)."""
    urls = [page.url for claim in case.claims for page in claim.gold]
    return urls[0] if urls else f"case:{case.id}"
