"""Celery tasks: thin, taking ids, each calling one service. Safe with acks_late because
the services are idempotent (see knowledge.services.ingest and the run claim of
knowledge.services.extract)."""

from __future__ import annotations

from celery import chain, chord, group, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from knowledge.models import IngestJob
from knowledge.services import ingest, sweep


class RetryableExtractionFailure(Exception):
    """An extraction that failed on a transient LLM error, raised for Celery to retry."""


@shared_task(acks_late=True, rate_limit="10/s")
def ingest_page(job_id: int, ref: str) -> str:
    """Fetch and store one page. No Celery retry: the gov.uk client already retried the fetch
    with backoff (honouring Retry-After), so a page that still fails is recorded as failed and
    the next refresh is its next try. A page that outlives the soft time limit is failed
    with the reason (its half-done transaction rolled back); a worker lost mid-page puts
    the task back on the queue (acks_late, CELERY_TASK_REJECT_ON_WORKER_LOST)."""
    try:
        item = ingest.ingest_item_run(job_id=job_id, ref=ref)
    except SoftTimeLimitExceeded:
        reason = f"{ingest.WORKER_LOST}: the task's soft time limit passed"
        item = ingest.ingest_item_fail(job_id=job_id, ref=ref, reason=reason)
    ingest.ingest_job_refresh(job_id=job_id)
    return item.outcome


@shared_task
def ingest_batch(job_id: int, extract: bool = False) -> None:
    """Fan out one task per page; with `extract`, fetch and extract each page, then embed
    once after the last one, so that a refresh starts one superseding-detector run."""
    job = IngestJob.objects.get(pk=job_id)
    if extract:
        fetch_and_extract = [page_fetch_extract(job_id, ref) for ref in job.refs]
        chord(fetch_and_extract)(embed_units.si())
    else:
        group(ingest_page.s(job_id, ref) for ref in job.refs).apply_async()


def page_fetch_extract(job_id: int, ref: str):
    """fetch → pass 1 + pass 2 of one page, as one Celery chain."""
    return chain(ingest_page.si(job_id, ref), extract_ingested.si(job_id, ref))


def page_pipeline(job_id: int, ref: str):
    """fetch → pass 1 + pass 2 → embed, as one Celery chain for a page on its own."""
    return page_fetch_extract(job_id, ref) | embed_units.si()


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=(RetryableExtractionFailure,),
    retry_backoff=30,  # seconds: at most 30, 60, 120 before attempts 2, 3, 4
    retry_jitter=True,
    max_retries=3,
)
def extract_ingested(self, job_id: int, ref: str) -> str:
    """Extract the snapshot a page's ingestion just stored, when it is new or changed; a
    transient LLM error (timeout, rate limit, 5xx) is retried."""
    from knowledge.providers import ProviderTransientError
    from knowledge.services.extract import ExtractionFailed, snapshot_extract

    snapshot_id = ingest.ingested_snapshot_id(job_id=job_id, ref=ref)
    if snapshot_id is None:
        return "nothing new"
    try:
        return snapshot_extract(snapshot_id=snapshot_id).status
    except ExtractionFailed as exc:
        if isinstance(exc.__cause__, ProviderTransientError) and _retries_left(self):
            raise RetryableExtractionFailure(exc.run.error) from exc
        return exc.run.status
    except SoftTimeLimitExceeded:  # the run is failed with the reason; the job's embedding
        return "failed"  # step, waiting for every page, still runs


def _retries_left(task) -> bool:
    """Whether a failed attempt should be retried rather than stand as the run's result.

    Run eagerly (no worker: the CLI and tests), Celery would retry at once, without the
    backoff, so the failed run stands. The last attempt returns the run's status instead of
    raising, so that the chord waiting on it (the job's embedding step) still completes.
    """
    return not task.request.is_eager and task.request.retries < task.max_retries


@shared_task
def sweep_stale_work() -> str:
    """Fail the pages and runs a lost or timed-out worker left running (beat, idempotent)."""
    return str(sweep.stale_work_sweep())


@shared_task
def refresh_all_sources() -> int | None:
    job = ingest.refresh_job_create()
    if job is None:
        return None
    ingest_batch.delay(job.pk, extract=True)  # changed pages are re-extracted
    return job.pk


@shared_task
def embed_units() -> int:
    """Embed what changed; when new unit vectors were stored, tell whoever listens (the
    superseding detector, in curation) through `knowledge.signals.units_embedded`."""
    from knowledge.services.embed import concepts_embed, units_embed
    from knowledge.signals import units_embedded

    concepts_embed()
    embedded = units_embed()
    if embedded:
        units_embedded.send(sender=embed_units, count=embedded)
    return embedded
