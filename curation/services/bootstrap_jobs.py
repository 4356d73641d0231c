"""Bootstrap work an editor starts from the screen, run by a worker: proposing concepts for a
category and re-extracting its pages may call an LLM for minutes (each call may wait 60 s and
be retried), far past a web worker's timeout. The screen creates a job
(curation.services.bootstrap_queue, which queues its task on commit) and answers at once; a
worker runs it here; the jobs screen shows its progress and outcome.

A job runs once: the worker claims it with a conditional UPDATE (queued → running), so a
redelivered task finds it claimed and does nothing. What it stores is idempotent anyway
(proposals skip taken ids; a page re-extracted for this state of the taxonomy costs nothing).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils import timezone

from curation.models import BootstrapJob
from curation.services.bootstrap import BootstrapRefused, category_reextract, concepts_bootstrap

Kind, Status = BootstrapJob.Kind, BootstrapJob.Status


def bootstrap_job_run(*, job_id: int) -> BootstrapJob:
    """Do a queued job and record how it ended (a refusal or error is recorded as its
    failure). Returns the job; one already claimed is returned untouched."""
    claimed = BootstrapJob.objects.filter(pk=job_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    job = BootstrapJob.objects.select_related("category", "created_by").get(pk=job_id)
    if not claimed:
        return job
    try:
        outcome, details = RUNNERS[job.kind](job)
    except (BootstrapRefused, PermissionDenied) as exc:
        return _finish(job, Status.FAILED, error=str(exc))
    except Exception as exc:
        _finish(job, Status.FAILED, error=f"stopped by an unexpected error ({type(exc).__name__})")
        raise
    return _finish(job, Status.FINISHED, outcome=outcome, details=details)


def _propose(job: BootstrapJob) -> tuple[str, list[str]]:
    report = concepts_bootstrap(
        category_slug=job.category.slug,
        prefix=job.params.get("prefix"),
        url_prefixes=job.params.get("url_prefixes"),
        limit=job.params.get("limit", 15),
        user=job.created_by,
    )
    _progress(job, 1, 1)
    proposed = f" ({', '.join(report.proposed)})" if report.proposed else ""
    outcome = (
        f"Read {report.pages} page(s): proposed {len(report.proposed)} new concept(s){proposed}."
    )
    details = []
    if report.existing:
        details.append(f"Already taken, not proposed again: {', '.join(report.existing)}")
    return outcome, details


def _reextract(job: BootstrapJob) -> tuple[str, list[str]]:
    report = category_reextract(
        category_slug=job.category.slug,
        url_prefixes=job.params.get("url_prefixes"),
        user=job.created_by,
        progress=lambda done, total: _progress(job, done, total),
    )
    outcome = (
        f"Re-extracted {report.pages} page(s) of {job.category.name}: "
        f"{report.units_made} new unit(s) bound to its active concepts."
    )
    return outcome, [f"extraction runs: {', '.join(map(str, report.runs))}"] if report.runs else []


RUNNERS = {Kind.PROPOSE: _propose, Kind.REEXTRACT: _reextract}


def _progress(job: BootstrapJob, done: int, total: int) -> None:
    """Saved at once (outside any transaction of the work) so the jobs screen sees it."""
    BootstrapJob.objects.filter(pk=job.pk).update(done=done, total=total)


def _finish(job: BootstrapJob, status: str, *, outcome="", details=(), error="") -> BootstrapJob:
    job.status, job.outcome, job.details, job.error = status, outcome, list(details), error
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "outcome", "details", "error", "finished_at"])
    job.refresh_from_db(fields=["done", "total"])
    return job
