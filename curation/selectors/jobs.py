"""Reads for the jobs screen. Job progress comes from knowledge's own progress services, so
the jobs screen, the CLI and the API agree on what "done" means."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import ClassVar

from django.db.models import Count, Max, Sum
from django.utils import timezone

from curation.models import BootstrapJob
from knowledge.documents import GOVUK_ORIGIN
from knowledge.models import ExtractionJob, ExtractionRun, IngestItem, IngestJob
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


def job_anchor(kind: str, job_id: int) -> str:
    """The id of a job's row on the jobs screen, where it is followed."""
    return f"{kind}-job-{job_id}"


class _JobRow:
    """What every kind of job's status shares on the jobs screen."""

    kind: ClassVar[str]
    id: int
    failures: list[Failure]

    @property
    def anchor(self) -> str:
        return job_anchor(self.kind, self.id)

    @property
    def failed_count(self) -> int:
        return len(self.failures)


def _progress(*, done: int, total: int, finished: bool, started: bool) -> dict:
    """How far a job of any kind is: done of total, the percentage, and its state."""
    return {
        "done": done,
        "total": total,
        "percent": round(100 * done / total) if total else 100,
        "finished": finished,
        "state": "finished" if finished else ("running" if started else "queued"),
    }


@dataclass(frozen=True)
class ExtractionJobStatus(_JobRow):
    kind: ClassVar[str] = "extraction"
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


@dataclass(frozen=True)
class IngestJobStatus(_JobRow):
    kind: ClassVar[str] = "ingest"
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
    units: dict[str, int] = field(default_factory=dict)  # confirmed, unconfirmed, new

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
    started = progress["done"] or progress["by_status"].get(ExtractionRun.Status.RUNNING)
    return ExtractionJobStatus(
        id=job.pk,
        provider=job.provider,
        provider_label=provider_label(job.provider),
        models=models,
        created_at=job.created_at,
        created_by=job.created_by,
        **_progress(
            done=progress["done"], total=progress["total"], finished=finished, started=started
        ),
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
        **_progress(done=done, total=total, finished=finished, started=bool(done)),
        counts=progress["counts"],
        duration=_duration(
            job.created_at, (job.finished_at or job.last_item_at) if finished else None
        ),
        failures=_ingest_failures(job),
        units=progress["units"],
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


# --- editors' bootstrap work -----------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapJobStatus(_JobRow):
    kind: ClassVar[str] = "bootstrap"
    id: int
    kind_label: str
    category: str
    created_at: dt.datetime
    created_by: str
    total: int
    done: int
    percent: int
    finished: bool
    state: str
    outcome: str
    details: list[str]
    duration: str
    failures: list[Failure] = field(default_factory=list)


def bootstrap_job_status(*, job_id: int) -> BootstrapJobStatus:
    """One bootstrap job as the jobs screen shows it. Raises BootstrapJob.DoesNotExist."""
    job = BootstrapJob.objects.select_related("category", "created_by").get(pk=job_id)
    return _bootstrap_status(job)


def bootstrap_jobs_recent(*, limit: int = RECENT_JOBS) -> list[BootstrapJobStatus]:
    jobs = BootstrapJob.objects.select_related("category", "created_by")[:limit]
    return [_bootstrap_status(job) for job in jobs]


def _bootstrap_status(job: BootstrapJob) -> BootstrapJobStatus:
    finished = job.status in (BootstrapJob.Status.FINISHED, BootstrapJob.Status.FAILED)
    failed = job.status == BootstrapJob.Status.FAILED
    return BootstrapJobStatus(
        id=job.pk,
        kind_label=job.get_kind_display(),
        category=job.category.name,
        created_at=job.created_at,
        created_by=job.created_by.get_username() if job.created_by else "",
        **_progress(
            done=job.done,
            total=job.total,
            finished=finished,
            started=job.status == BootstrapJob.Status.RUNNING,
        ),
        outcome=job.outcome,
        details=job.details,
        duration=_duration(job.created_at, job.finished_at if finished else None),
        failures=[Failure(url=job.category.name, reason=job.error)] if failed else [],
    )


# --- any kind ---------------------------------------------------------------------------------

JOB_KINDS = {
    ExtractionJobStatus.kind: extraction_job_status,
    IngestJobStatus.kind: ingest_job_status,
    BootstrapJobStatus.kind: bootstrap_job_status,
}


def job_status(
    *, kind: str, job_id: int
) -> ExtractionJobStatus | IngestJobStatus | BootstrapJobStatus:
    """One job of `kind` (a key of JOB_KINDS) as the jobs screen shows it. Raises the job
    model's DoesNotExist (an ObjectDoesNotExist)."""
    return JOB_KINDS[kind](job_id=job_id)


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
