"""The curation side of the sweeper: closes curation work a lost worker left open.

knowledge's sweeper (knowledge.services.sweep) cannot see curation's records, so the same
rule is applied here to detector runs and editors' bootstrap jobs: no result for longer
than any task may run (JOB_STALE_AFTER_SECONDS) means the worker was lost, or the job was
never picked up (the broker was unreachable when it was queued). Idempotent.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from curation.models import BootstrapJob, DetectionRun
from knowledge.services.ingest import WORKER_LOST

NEVER_STARTED = "never picked up by a worker"


@dataclass(frozen=True)
class CurationSweepReport:
    detection_runs: int
    bootstrap_jobs: int

    def __str__(self) -> str:
        return (
            f"{self.detection_runs} detection run(s) failed, "
            f"{self.bootstrap_jobs} bootstrap job(s) failed"
        )


def stale_curation_work_sweep(*, older_than: dt.timedelta | None = None) -> CurationSweepReport:
    """Fail detector runs and bootstrap jobs still open `older_than` after they started (or,
    for a job never started, after it was queued)."""
    age = older_than or dt.timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS)
    now = timezone.now()
    cutoff = now - age
    minutes = round(age.total_seconds() / 60)
    runs = DetectionRun.objects.filter(
        status=DetectionRun.Status.RUNNING, started_at__lt=cutoff
    ).update(
        status=DetectionRun.Status.FAILED,
        error=f"{WORKER_LOST}: no result after {minutes} minutes",
        finished_at=now,
    )
    Status = BootstrapJob.Status
    lost = BootstrapJob.objects.filter(status=Status.RUNNING, started_at__lt=cutoff).update(
        status=Status.FAILED,
        error=f"{WORKER_LOST}: no result after {minutes} minutes",
        finished_at=now,
    )
    unstarted = BootstrapJob.objects.filter(
        Q(status=Status.QUEUED) & Q(created_at__lt=cutoff)
    ).update(
        status=Status.FAILED, error=f"{NEVER_STARTED} within {minutes} minutes", finished_at=now
    )
    return CurationSweepReport(detection_runs=runs, bootstrap_jobs=lost + unstarted)
