"""Claim checking measured a part at a time, on answers in the verify-case format (the dev
file as a test, our own labelled claims to fit and validate on): (1) does a claim find its
unit — is a unit quoting a gold span among its candidates, and how high; the later parts
(aboutness, comparison) can only be as good as this."""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.retrieval import normal_url, span_overlaps
from evaluation.verification import GoldClaim, GoldPage, VerifyCase
from knowledge.models import AtomicUnit
from knowledge.reading.claims import Claim, answer_claims

RANKS = (1, 3, 5, 10)


@dataclass
class ClaimFound:
    case: str
    claim: str
    verdict: str
    rank: int | None  # of the first candidate quoting a gold span, 1-based; None: not found
    candidates: int


def gold_unit(unit: AtomicUnit, gold: tuple[GoldPage, ...]) -> bool:
    """The unit is on a gold page and quotes its span (the README's strict match)."""
    urls = {normal_url(unit.source.url)}
    return any(
        urls & {normal_url(page.url), normal_url(page.part_url or page.url)}
        and (span_overlaps(page.span, unit.evidence_quote) or span_overlaps(page.span, unit.text))
        for page in gold
    )


def matched_claims(case: VerifyCase, claims: list[Claim]) -> list[tuple[GoldClaim, Claim]]:
    """Each gold claim with the returned claim overlapping at least half of it, largest
    overlap first, each used once (the README's matching)."""
    spans = [(case.answer.index(c.text), c) for c in case.claims]
    pairs = sorted(
        (
            (min(start + len(g.text), c.end) - max(start, c.start), gi, ci)
            for gi, (start, g) in enumerate(spans)
            for ci, c in enumerate(claims)
        ),
        reverse=True,
    )
    used_gold, used_claims, matched = set(), set(), []
    for overlap, gi, ci in pairs:
        if (
            overlap >= 0.5 * len(spans[gi][1].text)
            and gi not in used_gold
            and ci not in used_claims
        ):
            used_gold.add(gi), used_claims.add(ci)
            matched.append((spans[gi][1], claims[ci]))
    return matched


def claims_found(cases: list[VerifyCase], *, evidence_of) -> list[ClaimFound]:
    """For each gold claim with gold spans (supported or contradicted), where its first
    gold unit ranks among the candidates `evidence_of(claim, day, answer)` gives."""
    found = []
    for case in cases:
        claims = answer_claims(case.answer)
        for gold, claim in matched_claims(case, claims):
            if not gold.gold:
                continue
            evidence = evidence_of(claim, case.as_of, case.answer)
            rank = next(
                (i for i, e in enumerate(evidence, 1) if gold_unit(e.unit, gold.gold)), None
            )
            found.append(ClaimFound(case.id, gold.text, gold.verdict, rank, len(evidence)))
    return found


def retrieval_summary(found: list[ClaimFound]) -> dict:
    def recall(items: list[ClaimFound], k: int | None) -> float | None:
        if not items:
            return None
        hits = [f.rank is not None and (k is None or f.rank <= k) for f in items]
        return round(sum(hits) / len(hits), 4)

    by_verdict = {
        verdict: {
            f"recall@{k}": recall([f for f in found if f.verdict == verdict], k) for k in RANKS
        }
        for verdict in ("supported", "contradicted")
    }
    return {
        "claims": len(found),
        **{f"recall@{k}": recall(found, k) for k in RANKS},
        "recall@all": recall(found, None),
        "by_verdict": by_verdict,
    }


def candidates_found(cases: list[VerifyCase], prepared: dict) -> list[ClaimFound]:
    """`claims_found` over prepared cases (their candidates read once)."""
    by_answer = {case.answer: prepared[case.id] for case in cases}

    def evidence_of(claim, day, answer):
        return next(p.evidence for p in by_answer[answer] if p.claim.start == claim.start)

    return claims_found(cases, evidence_of=evidence_of)


def comparator_accuracy(cases: list[VerifyCase], prepared: dict) -> dict:
    """Part 3 on its own: each figure claim of a gold verdict compared with the units quoting
    its gold spans (the units the claim is about, by the labels): right when a supported
    claim's figure is found the same in one of them, and a contradicted claim's found to
    differ (or to be given for another period). Claims whose gold units the knowledge base
    does not hold are counted apart."""
    from knowledge.reading.compare import DIFFERS, OTHER_PERIOD, SAME, figure_compared

    live = list(AtomicUnit.objects.filter(deleted_at__isnull=True).select_related("source"))
    right = wrong = not_held = 0
    for case in cases:
        items = {(p.claim.start, p.claim.end): p for p in prepared[case.id]}
        claims = [p.claim for p in prepared[case.id]]
        for gold, claim in matched_claims(case, claims):
            if gold.verdict == "unsupported" or not claim.figures:
                continue
            units = [unit for unit in live if gold_unit(unit, gold.gold)]
            if not units:
                not_held += 1
                continue
            day = items[(claim.start, claim.end)].day
            relations = {
                figure_compared(claim, figure, unit, day).relation
                for unit in units
                for figure in claim.figures
            }
            wanted = {SAME} if gold.verdict == "supported" else {DIFFERS, OTHER_PERIOD}
            right += bool(relations & wanted)
            wrong += not relations & wanted
    return {
        "claims": right + wrong,
        "accuracy": round(right / max(1, right + wrong), 4),
        "gold_unit_not_held": not_held,
    }
