"""Reads for the curation screens. Job progress comes from knowledge's own progress services,
so the jobs screen, the CLI and the API agree on what "done" means; the superseding review
reads its queue, progress and decision log here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Max, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from curation.models import AuditEvent, SupersedingCandidate
from knowledge.documents import GOVUK_ORIGIN
from knowledge.models import (
    AtomicUnit,
    Category,
    ExtractionJob,
    ExtractionRun,
    IngestItem,
    IngestJob,
    PageSnapshot,
)
from knowledge.services.extract import extraction_job_progress
from knowledge.services.ingest import ingest_job_progress

RECENT_JOBS = 20
# Never let a rule-based run pass for a language model's work.
PROVIDER_LABELS = {
    "heuristic": "heuristic (rule-based, no LLM)",
    "openai": "LLM (OpenAI-compatible)",
}


def provider_label(provider: str) -> str:
    return PROVIDER_LABELS.get(provider, provider)


@dataclass(frozen=True)
class Failure:
    url: str
    reason: str
    outcome: str = "failed"


@dataclass(frozen=True)
class ExtractionJobStatus:
    id: int
    provider: str
    provider_label: str
    models: list[str]
    created_at: dt.datetime
    created_by: str
    total: int
    done: int
    percent: int
    finished: bool
    state: str
    by_status: dict[str, int]
    reused: int
    units_made: int
    units_rejected: int
    units_unassigned: int
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal
    duration: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def is_llm(self) -> bool:
        return self.provider != "heuristic"

    @property
    def failed_count(self) -> int:
        return len(self.failures)


@dataclass(frozen=True)
class IngestJobStatus:
    id: int
    kind_label: str
    created_at: dt.datetime
    total: int
    done: int
    percent: int
    finished: bool
    state: str
    counts: dict[str, int]
    duration: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def failed_count(self) -> int:
        return self.counts.get(IngestItem.Outcome.FAILED, 0)


@dataclass(frozen=True)
class ProviderTotals:
    provider_label: str
    runs: int
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal


# --- extraction -------------------------------------------------------------------------------


def extraction_job_status(*, job_id: int) -> ExtractionJobStatus:
    """One extraction job as the jobs screen shows it. Raises ExtractionJob.DoesNotExist."""
    progress = extraction_job_progress(job_id=job_id)
    job = ExtractionJob.objects.annotate(
        units_made=Sum("runs__units_made", default=0),
        units_rejected=Sum("runs__units_rejected", default=0),
        units_unassigned=Sum("runs__units_unassigned", default=0),
        prompt_tokens=Sum("runs__prompt_tokens", default=0),
        completion_tokens=Sum("runs__completion_tokens", default=0),
        cost=Sum("runs__cost", default=Decimal(0)),
        last_finished_at=Max("runs__finished_at"),
        run_count=Count("runs"),
    ).get(pk=job_id)
    models = []
    if job.provider != "heuristic":
        models = sorted(set(job.runs.exclude(model="").values_list("model", flat=True)))
    finished = progress["finished"]
    return ExtractionJobStatus(
        id=job.pk,
        provider=job.provider,
        provider_label=provider_label(job.provider),
        models=models,
        created_at=job.created_at,
        created_by=job.created_by,
        total=progress["total"],
        done=progress["done"],
        percent=progress["percent"],
        finished=finished,
        state=_extraction_state(progress),
        by_status=progress["by_status"],
        reused=job.total - job.run_count,
        units_made=job.units_made,
        units_rejected=job.units_rejected,
        units_unassigned=job.units_unassigned,
        prompt_tokens=job.prompt_tokens,
        completion_tokens=job.completion_tokens,
        cost=job.cost,
        duration=_duration(job.created_at, job.last_finished_at if finished else None),
        failures=[Failure(url=url, reason=error) for url, error in progress["failures"]],
    )


def _extraction_state(progress: dict) -> str:
    if progress["finished"]:
        return "finished"
    started = progress["done"] or progress["by_status"].get(ExtractionRun.Status.RUNNING)
    return "running" if started else "queued"


def extraction_jobs_recent(*, limit: int = RECENT_JOBS) -> list[ExtractionJobStatus]:
    ids = ExtractionJob.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)
    return [extraction_job_status(job_id=job_id) for job_id in ids[:limit]]


def extraction_totals_by_provider() -> list[ProviderTotals]:
    """Tokens and cost of every extraction run ever made, per provider."""
    rows = (
        ExtractionRun.objects.values("provider")
        .annotate(
            runs=Count("id"),
            prompt=Sum("prompt_tokens"),
            completion=Sum("completion_tokens"),
            spent=Sum("cost"),
        )
        .order_by("provider")
    )
    return [
        ProviderTotals(
            provider_label=provider_label(row["provider"]),
            runs=row["runs"],
            prompt_tokens=row["prompt"],
            completion_tokens=row["completion"],
            cost=row["spent"],
        )
        for row in rows
    ]


# --- ingestion --------------------------------------------------------------------------------


def ingest_job_status(*, job_id: int) -> IngestJobStatus:
    """One ingest job as the jobs screen shows it. Raises IngestJob.DoesNotExist."""
    progress = ingest_job_progress(job_id=job_id)
    job = IngestJob.objects.annotate(last_item_at=Max("items__created_at")).get(pk=job_id)
    done, total = progress["done"], progress["total"]
    finished = progress["status"] == IngestJob.Status.FINISHED or done >= total
    return IngestJobStatus(
        id=job.pk,
        kind_label=job.get_kind_display(),
        created_at=job.created_at,
        total=total,
        done=done,
        percent=round(100 * done / total) if total else 100,
        finished=finished,
        state="finished" if finished else ("running" if done else "queued"),
        counts=progress["counts"],
        duration=_duration(
            job.created_at, (job.finished_at or job.last_item_at) if finished else None
        ),
        failures=_ingest_failures(job),
    )


def _ingest_failures(job: IngestJob) -> list[Failure]:
    items = job.items.filter(outcome__in=[IngestItem.Outcome.FAILED, IngestItem.Outcome.GONE])
    rows = items.values_list("ref", "reason", "outcome", "source__url")
    return [
        Failure(url=url or _ref_address(job, ref), reason=reason, outcome=outcome)
        for ref, reason, outcome, url in rows
    ]


def _ref_address(job: IngestJob, ref: str) -> str:
    if job.kind == IngestJob.Kind.DIRECTORY:
        return f"{job.params.get('root', '')}/{ref}"
    return GOVUK_ORIGIN + ref


def ingest_jobs_recent(*, limit: int = RECENT_JOBS) -> list[IngestJobStatus]:
    ids = IngestJob.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)
    return [ingest_job_status(job_id=job_id) for job_id in ids[:limit]]


# --- helpers ----------------------------------------------------------------------------------


def _duration(started: dt.datetime, finished: dt.datetime | None) -> str:
    """How long a job took (or has been going): '42 s', '3 min 5 s', '2 h 10 min'."""
    seconds = max(0, int(((finished or timezone.now()) - started).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"


# --- superseding review -----------------------------------------------------------------------

REVIEW_LIST_LIMIT = 50
DECISION_LOG_LIMIT = 100
CHART_DAYS = 14
DECISION_ACTIONS = tuple(f"candidate.{status}" for status in SupersedingCandidate.Status.values)


@dataclass(frozen=True)
class ReviewFilters:
    """What the expert narrowed the queue to; empty values filter nothing."""

    category: str = ""
    concept: str = ""
    min_confidence: float | None = None
    source: str = ""

    def params(self) -> list[tuple[str, str]]:
        """The non-empty filters as query parameters, in a stable order."""
        values = [
            ("category", self.category),
            ("concept", self.concept),
            ("min_confidence", "" if self.min_confidence is None else f"{self.min_confidence:g}"),
            ("source", self.source),
        ]
        return [(name, value) for name, value in values if value]


@dataclass(frozen=True)
class ReviewProgress:
    total: int
    pending: int
    by_status: dict[str, int]

    @property
    def decided(self) -> int:
        return self.total - self.pending

    @property
    def percent(self) -> int:
        return round(100 * self.decided / self.total) if self.total else 100


@dataclass(frozen=True)
class DayDecisions:
    day: dt.date
    approved: int = 0
    rejected: int = 0
    flagged: int = 0

    @property
    def total(self) -> int:
        return self.approved + self.rejected + self.flagged


CANDIDATE_RELATED = (
    "concept__category",
    "older__source",
    "older__snapshot",
    "newer__source",
    "newer__snapshot",
    "reviewer",
)
# Page texts and vectors stay in the database: the queue shows quotes and dates, not pages.
CANDIDATE_DEFERRED = tuple(
    f"{side}__{name}"
    for side in ("older", "newer")
    for name in ("embedding", "snapshot__raw", "snapshot__text", "snapshot__sections")
)


def candidates_pending(*, filters: ReviewFilters | None = None):
    """Pending pairs, most confident first, with everything the review screen shows."""
    filters = filters or ReviewFilters()
    pairs = SupersedingCandidate.objects.filter(status=SupersedingCandidate.Status.PENDING)
    if filters.category:
        pairs = pairs.filter(concept__category__slug=filters.category)
    if filters.concept:
        pairs = pairs.filter(concept__taxonomy_id__icontains=filters.concept)
    if filters.min_confidence is not None:
        pairs = pairs.filter(confidence__gte=filters.min_confidence)
    if filters.source:
        pairs = pairs.filter(
            Q(older__source__url__icontains=filters.source)
            | Q(newer__source__url__icontains=filters.source)
        )
    return (
        pairs.select_related(*CANDIDATE_RELATED)
        .defer(*CANDIDATE_DEFERRED)
        .order_by("-confidence", "id")
    )


def candidate_for_review(*, candidate_id: int) -> SupersedingCandidate:
    """One pair, whatever its status. Raises SupersedingCandidate.DoesNotExist."""
    pairs = SupersedingCandidate.objects.select_related(*CANDIDATE_RELATED)
    return pairs.defer(*CANDIDATE_DEFERRED).get(pk=candidate_id)


def candidate_next_pending(
    *, filters: ReviewFilters, after: SupersedingCandidate | None = None
) -> SupersedingCandidate | None:
    """The pending pair that follows `after` in queue order (wrapping round to the first)."""
    pending = candidates_pending(filters=filters)
    if after is not None:
        later = pending.filter(
            Q(confidence__lt=after.confidence) | Q(confidence=after.confidence, id__gt=after.pk)
        ).first()
        if later is not None:
            return later
    return pending.first()


def review_progress() -> ReviewProgress:
    rows = SupersedingCandidate.objects.values("status").annotate(n=Count("id")).order_by()
    by_status = {status: 0 for status in SupersedingCandidate.Status.values}
    by_status.update({row["status"]: row["n"] for row in rows})
    return ReviewProgress(
        total=sum(by_status.values()),
        pending=by_status[SupersedingCandidate.Status.PENDING],
        by_status=by_status,
    )


def decisions_per_day(
    *, days: int = CHART_DAYS, today: dt.date | None = None
) -> list[DayDecisions]:
    """Decisions that stand (a reverted one is pending again), per local day, oldest first."""
    today = today or timezone.localdate()
    first = today - dt.timedelta(days=days - 1)
    rows = (
        SupersedingCandidate.objects.exclude(status=SupersedingCandidate.Status.PENDING)
        .annotate(day=TruncDate("decided_at", tzinfo=timezone.get_current_timezone()))
        .filter(day__gte=first, day__lte=today)
        .values("day", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts: dict[dt.date, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["day"], {})[row["status"]] = row["n"]
    status = SupersedingCandidate.Status
    return [
        DayDecisions(
            day=day,
            approved=counts.get(day, {}).get(status.APPROVED, 0),
            rejected=counts.get(day, {}).get(status.REJECTED, 0),
            flagged=counts.get(day, {}).get(status.FLAGGED, 0),
        )
        for day in (first + dt.timedelta(days=n) for n in range(days))
    ]


def review_categories() -> list[tuple[str, str, int]]:
    """(slug, name, pending pairs) of every category, for the queue's filter."""
    pending = (
        SupersedingCandidate.objects.filter(status=SupersedingCandidate.Status.PENDING)
        .values_list("concept__category_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts = dict(pending)
    rows = Category.objects.order_by("order", "name").values_list("pk", "slug", "name")
    return [(slug, name, counts.get(pk, 0)) for pk, slug, name in rows]


def decision_events_recent(*, limit: int = DECISION_LOG_LIMIT) -> list[AuditEvent]:
    """Superseding decisions and their reverts, newest first, with who reverted what."""
    decisions = Q(action__in=DECISION_ACTIONS) | Q(
        action__in=[f"{action}.revert" for action in DECISION_ACTIONS]
    )
    events = AuditEvent.objects.filter(decisions, target_type="supersedingcandidate")
    return list(
        events.select_related("actor", "reverts", "reverted_by__actor").order_by(
            "-created_at", "-id"
        )[:limit]
    )


def snapshot_for_reading(*, snapshot_id: int) -> PageSnapshot:
    """Raises PageSnapshot.DoesNotExist."""
    return PageSnapshot.objects.select_related("source").get(pk=snapshot_id)


def snapshot_unit(*, snapshot_id: int, unit_id: int) -> AtomicUnit | None:
    """The unit whose evidence quotes this snapshot, removed ones included (they stay in the
    audit trail), or None."""
    return AtomicUnit.objects.defer("embedding").filter(pk=unit_id, snapshot_id=snapshot_id).first()
