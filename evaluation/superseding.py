"""How good are the superseding proposals? Reads only.

- `superseding_quality()`: precision of the proposals the experts have decided, by cosine band
  and by adjudicator confidence band (approved and flagged-for-deletion count as correct
  proposals, rejected as wrong; pending ones are shown apart), and what that says about the
  detector's two thresholds.
- `superseding_gold_check(gold_path=...)`: the proposals against the superseding chains of the
  threshold gold: for each step of a chain (consecutive dated values of one fact), is there a
  proposal pairing a unit holding the older amount with a unit holding the newer one, in
  that order? And how many proposals are such a step?
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from django.conf import settings

from curation.models import SupersedingCandidate
from evaluation.thresholds import ChainStep, chain_steps

COSINE_BANDS = ((0.80, 0.85), (0.85, 0.90), (0.90, 0.95), (0.95, 1.00))
CONFIDENCE_BANDS = ((0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.0))
CORRECT = (SupersedingCandidate.Status.APPROVED, SupersedingCandidate.Status.FLAGGED)
# Fewer decisions than this in a band say nothing about a threshold.
MIN_DECISIONS = 10
LOW_PRECISION = 0.3
HIGH_PRECISION = 0.8
NEAR_DUPLICATE = 0.95  # text similarity of proposals that come close to the duplicate cut


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    correct: int
    wrong: int
    pending: int
    precision: float | None  # correct / decided; None when nothing was decided

    @property
    def decided(self) -> int:
        return self.correct + self.wrong

    @property
    def label(self) -> str:
        return f"{self.low:.2f}–{self.high:.2f}"


@dataclass(frozen=True)
class QualityReport:
    proposals: int
    decided: int
    pending: int
    by_cosine: tuple[Band, ...]
    by_confidence: tuple[Band, ...]
    recommendations: tuple[str, ...]


def superseding_quality() -> QualityReport:
    rows = list(
        SupersedingCandidate.objects.values_list(
            "cosine", "confidence", "text_similarity", "status"
        )
    )
    by_cosine = tuple(_band(rows, low, high, column=0) for low, high in COSINE_BANDS)
    by_confidence = tuple(_band(rows, low, high, column=1) for low, high in CONFIDENCE_BANDS)
    pending = sum(1 for row in rows if row[3] == SupersedingCandidate.Status.PENDING)
    return QualityReport(
        proposals=len(rows),
        decided=len(rows) - pending,
        pending=pending,
        by_cosine=by_cosine,
        by_confidence=by_confidence,
        recommendations=tuple(_recommendations(rows, by_cosine)),
    )


def _band(rows, low: float, high: float, *, column: int) -> Band:
    last = high >= 1.0  # the top band includes 1.0
    inside = [row[3] for row in rows if low <= row[column] < high or (last and row[column] >= high)]
    counts = Counter(inside)
    correct = sum(counts[status] for status in CORRECT)
    wrong = counts[SupersedingCandidate.Status.REJECTED]
    return Band(
        low=low,
        high=high,
        correct=correct,
        wrong=wrong,
        pending=counts[SupersedingCandidate.Status.PENDING],
        precision=correct / (correct + wrong) if correct + wrong else None,
    )


def _recommendations(rows, by_cosine: tuple[Band, ...]) -> list[str]:
    lines = [_cosine_recommendation(by_cosine), _duplicate_recommendation(rows)]
    return [line for line in lines if line]


def _cosine_recommendation(bands: tuple[Band, ...]) -> str:
    now = settings.SUPERSEDING_MIN_COSINE
    lowest = bands[0]
    if lowest.decided < MIN_DECISIONS:
        return (
            f"SUPERSEDING_MIN_COSINE={now:.2f}: no recommendation yet ({lowest.decided} decided "
            f"proposals in the {lowest.label} band, {MIN_DECISIONS} needed)."
        )
    if lowest.precision < LOW_PRECISION:
        return (
            f"SUPERSEDING_MIN_COSINE={now:.2f}: raise it to {lowest.high:.2f}; only "
            f"{lowest.precision:.0%} of the {lowest.decided} decided proposals in the "
            f"{lowest.label} band were correct."
        )
    if lowest.precision >= HIGH_PRECISION:
        return (
            f"SUPERSEDING_MIN_COSINE={now:.2f}: {lowest.precision:.0%} of the {lowest.decided} "
            f"decided proposals in the {lowest.label} band were correct; pairs below "
            f"{now:.2f} may be worth a look (lower it a little and watch this band)."
        )
    return (
        f"SUPERSEDING_MIN_COSINE={now:.2f}: keep it ({lowest.precision:.0%} correct in the "
        f"{lowest.label} band)."
    )


def _duplicate_recommendation(rows) -> str:
    """Proposals just under the duplicate cut that experts flagged for deletion were
    duplicates the detector should have dropped."""
    now = settings.SUPERSEDING_DUPLICATE_SIMILARITY
    near = [row[3] for row in rows if NEAR_DUPLICATE <= row[2] <= now and row[3] != "pending"]
    if len(near) < MIN_DECISIONS:
        return (
            f"SUPERSEDING_DUPLICATE_SIMILARITY={now:.2f}: no recommendation yet ({len(near)} "
            f"decided proposals with text similarity {NEAR_DUPLICATE:.2f}–{now:.2f}, "
            f"{MIN_DECISIONS} needed)."
        )
    flagged = near.count(SupersedingCandidate.Status.FLAGGED) / len(near)
    if flagged >= HIGH_PRECISION:
        return (
            f"SUPERSEDING_DUPLICATE_SIMILARITY={now:.2f}: lower it to {NEAR_DUPLICATE:.2f}; "
            f"{flagged:.0%} of the {len(near)} decided proposals that alike were flagged for "
            "deletion (duplicates, not supersedings)."
        )
    return (
        f"SUPERSEDING_DUPLICATE_SIMILARITY={now:.2f}: keep it ({flagged:.0%} of the "
        f"{len(near)} decided proposals with text similarity {NEAR_DUPLICATE:.2f}–{now:.2f} "
        "were flagged for deletion)."
    )


# --- against the gold chains ------------------------------------------------------------------

STEP, SKIP, SAME_VALUE, REVERSED, OTHER, OUTSIDE = (
    "gold step",
    "skips a value",
    "same value",
    "reversed",
    "one end off the chain",
    "outside the gold",
)
KINDS = (STEP, SKIP, SAME_VALUE, REVERSED, OTHER, OUTSIDE)


@dataclass(frozen=True)
class StepResult:
    fact_id: str
    older_value: Decimal
    newer_value: Decimal
    older_units: int
    newer_units: int
    proposals: tuple[int, ...]  # candidate ids pairing the two values in the right order

    @property
    def reachable(self) -> bool:
        return bool(self.older_units and self.newer_units)


@dataclass(frozen=True)
class GoldCheck:
    gold_path: str
    statuses: tuple[str, ...]
    steps: tuple[StepResult, ...]
    proposals: int
    by_kind: dict[str, int]
    sample: tuple[dict, ...] = field(default=())  # proposals that are not gold steps, to read

    @property
    def steps_found(self) -> int:
        return sum(1 for step in self.steps if step.proposals)

    @property
    def steps_reachable(self) -> int:
        return sum(1 for step in self.steps if step.reachable)

    @property
    def recall(self) -> float:
        return self.steps_found / len(self.steps) if self.steps else 0.0

    @property
    def recall_reachable(self) -> float:
        return self.steps_found / self.steps_reachable if self.steps_reachable else 0.0

    @property
    def precision_gold(self) -> float:
        """Proposals that are a gold chain step: a lower bound, since the gold covers only
        39 facts."""
        return self.by_kind.get(STEP, 0) / self.proposals if self.proposals else 0.0

    @property
    def precision_on_gold_facts(self) -> float:
        """Among proposals whose two units both hold values of one gold fact's chain."""
        on_chain = sum(self.by_kind.get(kind, 0) for kind in (STEP, SKIP, SAME_VALUE, REVERSED))
        return self.by_kind.get(STEP, 0) / on_chain if on_chain else 0.0


def superseding_gold_check(
    *, gold_path: Path, statuses: tuple[str, ...] = ("pending",), sample: int = 0, seed: int = 0
) -> GoldCheck:
    steps = chain_steps(gold_path=gold_path)
    rows = list(
        SupersedingCandidate.objects.filter(status__in=statuses)
        .order_by("pk")
        .values_list("pk", "older_id", "newer_id")
    )
    positions = _chain_positions(steps)
    kinds = {pk: _kind(positions, older, newer) for pk, older, newer in rows}
    results = tuple(
        StepResult(
            fact_id=step.fact_id,
            older_value=step.older_value,
            newer_value=step.newer_value,
            older_units=len(step.older_unit_ids),
            newer_units=len(step.newer_unit_ids),
            proposals=tuple(
                pk
                for pk, older, newer in rows
                if older in step.older_unit_ids and newer in step.newer_unit_ids
            ),
        )
        for step in steps
    )
    others = [pk for pk, kind in kinds.items() if kind != STEP]
    picked = sorted(random.Random(seed).sample(others, min(sample, len(others))))
    return GoldCheck(
        gold_path=str(gold_path),
        statuses=tuple(statuses),
        steps=results,
        proposals=len(rows),
        by_kind={kind: Counter(kinds.values())[kind] for kind in KINDS},
        sample=tuple(_described(pk, kinds[pk]) for pk in picked),
    )


def _chain_positions(steps: list[ChainStep]) -> dict[int, dict[str, set[int]]]:
    """unit id → {fact id → positions of the chain values the unit holds}."""
    positions: dict[int, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    index: dict[str, int] = defaultdict(int)
    for step in steps:
        at = index[step.fact_id]
        for unit_id in step.older_unit_ids:
            positions[unit_id][step.fact_id].add(at)
        for unit_id in step.newer_unit_ids:
            positions[unit_id][step.fact_id].add(at + 1)
        index[step.fact_id] = at + 1
    return positions


def _kind(positions, older: int, newer: int) -> str:
    if older not in positions and newer not in positions:
        return OUTSIDE
    found = {
        _step_kind(a, b)
        for fact_id, older_at in positions.get(older, {}).items()
        for a in older_at
        for b in positions.get(newer, {}).get(fact_id, ())
    }
    for kind in (STEP, SKIP, SAME_VALUE, REVERSED):
        if kind in found:
            return kind
    return OTHER


def _step_kind(older_at: int, newer_at: int) -> str:
    if newer_at == older_at + 1:
        return STEP
    if newer_at > older_at:
        return SKIP
    return SAME_VALUE if newer_at == older_at else REVERSED


def _described(pk: int, kind: str) -> dict:
    candidate = SupersedingCandidate.objects.select_related("older", "newer", "concept").get(pk=pk)
    return {
        "id": pk,
        "kind": kind,
        "concept": candidate.concept.taxonomy_id,
        "cosine": candidate.cosine,
        "confidence": candidate.confidence,
        "newer_basis": candidate.newer_basis,
        "older": _unit_line(candidate.older),
        "newer": _unit_line(candidate.newer),
        "rationale": candidate.rationale,
    }


def _unit_line(unit) -> str:
    dates = f"{unit.valid_from or 'open'}..{unit.valid_to or 'open'}"
    return f"#{unit.pk} [{dates}] {unit.text[:160]}"
