"""Reads for audit samples: the samples, the unit being judged, and the knowledge base's
estimated precision (Wilson 95% intervals) per question, per category, provider and type,
and over time (one point per sample)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from curation.models import AuditJudgement, AuditSample
from curation.services.audit_sample import ANSWER_FIELDS, QUESTIONS
from knowledge.models import AtomicUnit

EVERY_COUNT = ("every_count", "Right on every count (yes on every applicable question)")
COLUMNS = (*QUESTIONS, EVERY_COUNT)
SAMPLES_PER_PAGE = 100


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion; (0, 1) when nothing was judged."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


@dataclass(frozen=True)
class Estimate:
    successes: int
    n: int

    @property
    def precision(self) -> float | None:
        return self.successes / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.n)

    def as_json(self) -> dict:
        low, high = self.interval
        return {
            "yes": self.successes,
            "n": self.n,
            "precision": self.precision,
            "low": round(low, 4),
            "high": round(high, 4),
        }


@dataclass(frozen=True)
class Row:
    label: str
    estimates: list[Estimate]  # one per column of COLUMNS


@dataclass(frozen=True)
class Results:
    judged: int
    overall: Row
    by_category: list[Row]
    by_provider: list[Row]
    by_type: list[Row]
    over_time: list[tuple[AuditSample, Estimate]]

    def as_json(self) -> dict:
        def rows(items):
            return [{"label": r.label, **_columns_json(r)} for r in items]

        return {
            "judged": self.judged,
            "overall": _columns_json(self.overall),
            "by_category": rows(self.by_category),
            "by_provider": rows(self.by_provider),
            "by_type": rows(self.by_type),
            "over_time": [
                {"sample": s.pk, "drawn_at": s.drawn_at.isoformat(), **e.as_json()}
                for s, e in self.over_time
            ],
        }


def _columns_json(row: Row) -> dict:
    return {name: e.as_json() for (name, _), e in zip(COLUMNS, row.estimates, strict=True)}


def estimates_of(answers: Iterable[dict]) -> list[Estimate]:
    """Per question (its "n/a" answers left out), then right on every count."""
    answers = list(answers)
    estimates = []
    for name in ANSWER_FIELDS:
        applicable = [a[name] for a in answers if a[name] != AuditJudgement.Answer.NA]
        estimates.append(Estimate(applicable.count("yes"), len(applicable)))
    every = sum(all(a[name] != "no" for name in ANSWER_FIELDS) for a in answers)
    estimates.append(Estimate(every, len(answers)))
    return estimates


def audit_results(*, sample_id: int | None = None) -> Results:
    """Estimates over every judgement (or one sample's)."""
    judgements = AuditJudgement.objects.all()
    if sample_id is not None:
        judgements = judgements.filter(sample_id=sample_id)
    rows = list(
        judgements.values("sample_id", "category__name", "provider", "unit_type", *ANSWER_FIELDS)
    )
    by_sample = _per_sample(rows)
    samples = AuditSample.objects.filter(pk__in=by_sample).order_by("drawn_at", "pk")
    return Results(
        judged=len(rows),
        overall=Row("All", estimates_of(rows)),
        by_category=_grouped(rows, lambda r: r["category__name"] or "(none)"),
        by_provider=_grouped(rows, lambda r: _label(AtomicUnit.Provider, r["provider"])),
        by_type=_grouped(rows, lambda r: _label(AtomicUnit.Type, r["unit_type"])),
        over_time=[(sample, by_sample[sample.pk]) for sample in samples],
    )


def sample_summaries(*, sample_ids: Iterable[int]) -> dict[int, Estimate]:
    """ "Right on every count" of each sample, in one query; a sample judged in nothing
    has an empty estimate."""
    sample_ids = list(sample_ids)
    rows = AuditJudgement.objects.filter(sample_id__in=sample_ids).values(
        "sample_id", *ANSWER_FIELDS
    )
    summaries = _per_sample(rows)
    return {pk: summaries.get(pk, Estimate(0, 0)) for pk in sample_ids}


def _per_sample(rows: Iterable[dict]) -> dict[int, Estimate]:
    groups: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["sample_id"]].append(row)
    return {pk: estimates_of(answers)[-1] for pk, answers in groups.items()}


def _label(choices, value: str) -> str:
    return dict(choices.choices).get(value, value or "(none)")


def _grouped(rows: list[dict], key) -> list[Row]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return [Row(label, estimates_of(groups[label])) for label in sorted(groups)]


def samples_list() -> QuerySet[AuditSample]:
    """Newest first (said again here: a query that counts drops the model's ordering)."""
    samples = AuditSample.objects.select_related("drawn_by", "category")
    return samples.annotate(judged=Count("judgements")).order_by("-drawn_at", "-id")


def sample_get(*, sample_id: int) -> AuditSample:
    """Raises AuditSample.DoesNotExist."""
    return AuditSample.objects.select_related("category").get(pk=sample_id)


def sample_unit(*, sample: AuditSample, position: int) -> AtomicUnit:
    """The unit at 1-based `position`, whatever has happened to it since (moved, removed)."""
    return AtomicUnit.objects.select_related("concept__category", "source", "snapshot").get(
        pk=sample.unit_ids[position - 1]
    )


def judgements_by_unit(*, sample: AuditSample) -> dict[int, AuditJudgement]:
    return {j.unit_id: j for j in sample.judgements.all()}


def first_unjudged(*, sample: AuditSample) -> int:
    """The 1-based position of the first unit not judged yet (the last when all are)."""
    judged = set(sample.judgements.values_list("unit_id", flat=True))
    for position, unit_id in enumerate(sample.unit_ids, start=1):
        if unit_id not in judged:
            return position
    return len(sample.unit_ids)
