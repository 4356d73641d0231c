"""What experts should look at first: every living unit, ranked by how much users were shown
it times how much the product doubts it; and how much of what users were served had been
reviewed (signed off or corrected by an expert).

Exposure comes from the API's query log through `curation.exposure` (the caller reads it and
passes it in, so the ranking is a function of its arguments). Doubt is a sum of named
reasons, each with a weight (the table below). The machine's reasons (nobody checked it, the
rule-based extractor made it, another concept may fit it better, its category's audit
failures) are answered by an expert's sign-off or correction, which leaves only the small
REVIEWED doubt; the world's reasons (its page no longer states it, its period has ended with
nothing newer known) stand whoever checked it.

Score = max(exposure, EXPOSURE_FLOOR) × doubt: a unit never served weighs as one served once
at rank 100, so it comes after every served unit of like doubt, in the order of its doubt.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Q

from curation.exposure import UnitExposure
from curation.models import AuditJudgement
from curation.selectors.review import unit_signoffs
from curation.services.audit_sample import ANSWER_FIELDS
from knowledge.domain.temporal import TemporalStatus
from knowledge.models import AtomicUnit, Category, QualityFlag

QUEUE_PER_PAGE = 25
DEFAULT_DAYS = 30
MAX_DAYS = 365
CHART_WEEKS = 12
EXPOSURE_FLOOR = 0.01

# The weight of each reason for doubt (the audit-failure weight is scaled by the share).
MACHINE_ONLY = 1.0  # nobody has signed it off or corrected it
HEURISTIC = 0.5  # made by the rule-based extractor, the less precise one in the audits
MISPLACED = 0.75  # an open misplaced flag: another concept of its category is nearer
AUDIT_FAILURES = 1.0  # × the share of its category's audit judgements with any "no"
UNCONFIRMED = 1.0  # its page's current version no longer states it
OUTDATED = 0.5  # its period has ended and the knowledge base holds nothing newer
REVIEWED = 0.1  # what is left of the machine's doubt once an expert has checked it


@dataclass(frozen=True)
class Reason:
    code: str
    weight: float
    words: str


@dataclass(frozen=True)
class UnitFacts:
    """What the product knows of a unit that bears on how far to trust it."""

    unit_id: int
    category_id: int | None = None
    approved: bool = False
    corrected: bool = False
    heuristic: bool = False
    misplaced: bool = False
    misplaced_margin: float | None = None
    unconfirmed: bool = False
    ended_on: dt.date | None = None  # its period ended then, and nothing newer is known


@dataclass(frozen=True)
class CategoryAudit:
    failed: int  # judgements with a "no" to any question
    judged: int

    @property
    def share(self) -> float:
        return self.failed / self.judged if self.judged else 0.0


@dataclass(frozen=True)
class QueueEntry:
    unit_id: int
    exposure: UnitExposure | None
    reasons: list[Reason]

    @property
    def doubt(self) -> float:
        return sum(reason.weight for reason in self.reasons)

    @property
    def score(self) -> float:
        weight = self.exposure.weight if self.exposure else 0.0
        return max(weight, EXPOSURE_FLOOR) * self.doubt


# --- the ranking (pure) -----------------------------------------------------------------------


def unit_doubt(facts: UnitFacts, *, audits: dict[int, CategoryAudit]) -> list[Reason]:
    """The reasons to doubt a unit, each with its weight, in the order they are told."""
    if facts.approved:
        words = "corrected by an expert" if facts.corrected else "signed off"
        reasons = [Reason("reviewed", REVIEWED, words)]
    else:
        reasons = [Reason("machine_only", MACHINE_ONLY, "machine-only")]
        if facts.heuristic:
            reasons.append(Reason("heuristic", HEURISTIC, "heuristic"))
        if facts.misplaced:
            reasons.append(Reason("misplaced", MISPLACED, _misplaced_words(facts)))
        audit = audits.get(facts.category_id)
        if audit and audit.failed:
            words = f"its category failed {audit.share:.0%} of audit judgements"
            reasons.append(Reason("audit_failures", AUDIT_FAILURES * audit.share, words))
    if facts.unconfirmed:
        reasons.append(Reason("unconfirmed", UNCONFIRMED, "its page no longer states it"))
    if facts.ended_on:
        ended = f"{facts.ended_on.day} {facts.ended_on:%b %Y}"
        words = f"its period ended {ended}, nothing newer known"
        reasons.append(Reason("outdated", OUTDATED, words))
    return reasons


def _misplaced_words(facts: UnitFacts) -> str:
    if facts.misplaced_margin is None:
        return "may belong to another concept"
    return f"may belong to another concept (nearer by {facts.misplaced_margin:.2f})"


def queue_rank(
    facts: list[UnitFacts],
    *,
    exposure: dict[int, UnitExposure],
    audits: dict[int, CategoryAudit],
) -> list[QueueEntry]:
    """Every unit of `facts`, highest score first (then most doubt, then lowest id)."""
    entries = [
        QueueEntry(f.unit_id, exposure.get(f.unit_id), unit_doubt(f, audits=audits)) for f in facts
    ]
    return sorted(entries, key=lambda e: (-e.score, -e.doubt, e.unit_id))


# --- reading the facts ------------------------------------------------------------------------


def unit_queue(*, exposure: dict[int, UnitExposure], today: dt.date) -> list[QueueEntry]:
    """Every living unit, ranked; `exposure` is what users were served (curation.exposure)."""
    misplaced = dict(
        QualityFlag.objects.filter(
            kind=QualityFlag.Kind.MISPLACED, status=QualityFlag.Status.OPEN
        ).values_list("unit_id", "margin")
    )
    ended = _ended_without_newer(today)
    rows = (
        AtomicUnit.objects.alive()
        .order_by()
        .values_list(
            "pk",
            "concept__category_id",
            "review_status",
            "corrected_at",
            "provider",
            "unconfirmed_at",
        )
    )
    facts = [
        UnitFacts(
            unit_id=pk,
            category_id=category_id,
            approved=status == AtomicUnit.ReviewStatus.APPROVED,
            corrected=corrected_at is not None,
            heuristic=provider == AtomicUnit.Provider.HEURISTIC,
            misplaced=pk in misplaced,
            misplaced_margin=misplaced.get(pk),
            unconfirmed=unconfirmed_at is not None,
            ended_on=ended.get(pk),
        )
        for pk, category_id, status, corrected_at, provider, unconfirmed_at in rows
    ]
    return queue_rank(facts, exposure=exposure, audits=category_audits())


def _ended_without_newer(today: dt.date) -> dict[int, dt.date]:
    """Living units whose period ended before `today` with no newer one known (`outdated`:
    a search serves them marked as the newest figure known), with the day it ended."""
    units = (
        AtomicUnit.objects.alive()
        .filter(valid_to__lt=today)
        .with_temporal_status(today)
        .filter(temporal_status=TemporalStatus.OUTDATED.value)
        .order_by()
    )
    return dict(units.values_list("pk", "valid_to"))


def category_audits() -> dict[int, CategoryAudit]:
    """Per category: its audit judgements, and those with a "no" to any question."""
    any_no = Q()
    for name in ANSWER_FIELDS:
        any_no |= Q(**{name: AuditJudgement.Answer.NO})
    rows = (
        AuditJudgement.objects.filter(category__isnull=False)
        .values("category_id")
        .annotate(judged=Count("id"), failed=Count("id", filter=any_no))
        .order_by()
    )
    return {row["category_id"]: CategoryAudit(row["failed"], row["judged"]) for row in rows}


# --- the reviewed share of what was served ----------------------------------------------------


@dataclass(frozen=True)
class ServedShare:
    reviewed: float  # exposure weight of the units reviewed
    served: float  # exposure weight of every unit served

    @property
    def fraction(self) -> float | None:
        return self.reviewed / self.served if self.served else None

    @property
    def percent(self) -> int | None:
        return None if self.fraction is None else round(100 * self.fraction)


@dataclass(frozen=True)
class CategoryShare:
    slug: str
    name: str
    share: ServedShare


@dataclass(frozen=True)
class WeekShare:
    start: dt.datetime
    end: dt.datetime
    share: ServedShare


def served_share(exposure: dict[int, UnitExposure], reviewed: set[int]) -> ServedShare:
    return ServedShare(
        reviewed=sum(e.weight for pk, e in exposure.items() if pk in reviewed),
        served=sum(e.weight for e in exposure.values()),
    )


def reviewed_share(*, exposure: dict[int, UnitExposure]) -> tuple[ServedShare, list[CategoryShare]]:
    """The exposure-weighted share of the units served that are reviewed now, overall and
    per category (the most served first). Units removed since count, as they were served;
    ids the knowledge base no longer holds at all do not."""
    rows = list(
        AtomicUnit.objects.filter(pk__in=list(exposure)).values_list(
            "pk", "review_status", "concept__category_id"
        )
    )
    reviewed = {pk for pk, status, _ in rows if status == AtomicUnit.ReviewStatus.APPROVED}
    by_category: dict[int, dict[int, UnitExposure]] = {}
    for pk, _, category_id in rows:
        by_category.setdefault(category_id, {})[pk] = exposure[pk]
    names = Category.objects.in_bulk(list(by_category))
    shares = [
        CategoryShare(names[pk].slug, names[pk].name, served_share(served, reviewed))
        for pk, served in by_category.items()
    ]
    shares.sort(key=lambda c: (-c.share.served, c.name))
    known = {pk: exposure[pk] for pk, _, _ in rows}
    return served_share(known, reviewed), shares


def week_share(
    exposure: dict[int, UnitExposure], approved_since: dict[int, dt.datetime | None], *, end
) -> ServedShare:
    """The share of one week's exposure whose units had been reviewed by its `end`:
    `approved_since` holds the units reviewed now, with since when (None: not known, so
    counted as reviewed all along)."""
    reviewed = {
        pk
        for pk, since in approved_since.items()
        if pk in exposure and (since is None or since < end)
    }
    return served_share(exposure, reviewed)


def reviewed_share_by_week(
    *, weeks: list[tuple[dt.datetime, dt.datetime, dict[int, UnitExposure]]]
) -> list[WeekShare]:
    """Each week's (start, end, exposure): the share reviewed by the week's end."""
    served = {pk for _, _, exposure in weeks for pk in exposure}
    since = approval_times(unit_ids=list(served))
    return [
        WeekShare(start, end, week_share(exposure, since, end=end))
        for start, end, exposure in weeks
    ]


def approval_times(*, unit_ids: list[int]) -> dict[int, dt.datetime | None]:
    """The units of `unit_ids` reviewed now, each with the earliest time known of its standing
    review: its sign-off (not reverted) or its correction; None when neither is recorded."""
    approved = dict(
        AtomicUnit.objects.filter(
            pk__in=unit_ids, review_status=AtomicUnit.ReviewStatus.APPROVED
        ).values_list("pk", "corrected_at")
    )
    signoffs = unit_signoffs(unit_ids=list(approved))
    return {
        pk: min(
            (t for t in (signoffs[pk].at if pk in signoffs else None, corrected) if t), default=None
        )
        for pk, corrected in approved.items()
    }
