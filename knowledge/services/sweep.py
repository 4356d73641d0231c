"""The sweeper: closes work that a lost or timed-out worker left "running".

A worker killed in the middle of a task (out of memory, a container stopped, the hard time
limit) writes nothing more: its ingest job would wait for the page for ever and its
extraction run would stay RUNNING. Work that has made no progress for longer than any task
may run is failed here with a reason, idempotently (beat runs this every few minutes).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max
from django.db.models.functions import Coalesce
from django.utils import timezone

from knowledge.models import ExtractionRun, IngestJob
from knowledge.services.ingest import WORKER_LOST, ingest_job_close


@dataclass(frozen=True)
class SweepReport:
    ingest_jobs: int
    ingest_items: int
    extraction_runs: int

    def __str__(self) -> str:
        return (
            f"{self.ingest_jobs} ingest job(s) closed, {self.ingest_items} page(s) failed, "
            f"{self.extraction_runs} extraction run(s) failed"
        )


def stale_work_sweep(*, older_than: dt.timedelta | None = None) -> SweepReport:
    """Fail the pages of ingest jobs idle for `older_than` (default JOB_STALE_AFTER_SECONDS)
    and the extraction runs started that long ago and still running."""
    age = older_than or dt.timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS)
    cutoff = timezone.now() - age
    reason = f"{WORKER_LOST}: no result after {_minutes(age)} minutes"
    stale_jobs = list(stale_ingest_job_ids(cutoff=cutoff))
    items = sum(ingest_job_close(job_id=job_id, reason=reason) for job_id in stale_jobs)
    runs = ExtractionRun.objects.filter(
        status=ExtractionRun.Status.RUNNING, started_at__lt=cutoff
    ).update(status=ExtractionRun.Status.FAILED, error=reason, finished_at=timezone.now())
    return SweepReport(ingest_jobs=len(stale_jobs), ingest_items=items, extraction_runs=runs)


def stale_ingest_job_ids(*, cutoff: dt.datetime):
    """Running jobs whose last stored page (or, with none, their creation) is before `cutoff`."""
    return (
        IngestJob.objects.filter(status=IngestJob.Status.RUNNING)
        .annotate(last_progress=Coalesce(Max("items__created_at"), "created_at"))
        .filter(last_progress__lt=cutoff)
        .values_list("pk", flat=True)
    )


def _minutes(age: dt.timedelta) -> int:
    return round(age.total_seconds() / 60)
