"""Celery tasks of curation: thin, taking ids, each calling one service."""

from __future__ import annotations

from celery import shared_task

from curation.services.bootstrap_jobs import bootstrap_job_run
from curation.services.detection import DetectionFailed, superseding_detect
from curation.services.sweep import stale_curation_work_sweep


@shared_task(acks_late=True)
def detect_superseding(concept_id: int | None = None) -> int:
    """Run the superseding detector; returns the run id. Safe to redeliver: units already
    compared are skipped and a pair is stored once. A failure is recorded on the run."""
    try:
        return superseding_detect(concept_id=concept_id).pk
    except DetectionFailed as exc:
        return exc.run.pk


# Not acks_late: a job is claimed once (queued → running), so a redelivery would do nothing.
@shared_task
def run_bootstrap_job(job_id: int) -> str:
    """Propose concepts for, or re-extract, an editor's category; returns how it ended."""
    return bootstrap_job_run(job_id=job_id).status


@shared_task
def sweep_stale_curation_work() -> str:
    """Fail detector runs and bootstrap jobs a lost worker left open; returns what it did."""
    return str(stale_curation_work_sweep())
