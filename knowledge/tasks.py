"""Celery tasks: thin, taking ids, each calling one service. Safe with acks_late because
the services are idempotent (see knowledge.services.ingest)."""

from __future__ import annotations

from celery import chain, group, shared_task

from knowledge.govuk import TransientFetchError
from knowledge.services import ingest


@shared_task(bind=True, acks_late=True, max_retries=5, rate_limit="10/s")
def ingest_page(self, job_id: int, ref: str) -> str:
    try:
        item = ingest.ingest_item_run(job_id=job_id, ref=ref)
    except TransientFetchError as exc:
        if self.request.is_eager or self.request.retries >= self.max_retries:
            item = ingest.ingest_item_fail(job_id=job_id, ref=ref, reason=exc.reason)
        else:
            raise self.retry(exc=exc, countdown=60 * 2**self.request.retries) from exc
    ingest.ingest_job_refresh(job_id=job_id)
    return item.outcome


@shared_task
def ingest_batch(job_id: int, extract: bool = False) -> None:
    """Fan out one task per page; with `extract`, each page runs the whole pipeline."""
    job = ingest.IngestJob.objects.get(pk=job_id)
    if extract:
        group(page_pipeline(job_id, ref) for ref in job.refs).apply_async()
    else:
        group(ingest_page.s(job_id, ref) for ref in job.refs).apply_async()


def page_pipeline(job_id: int, ref: str):
    """fetch → pass 1 + pass 2 → embed, as one Celery chain for one page."""
    return chain(ingest_page.si(job_id, ref), extract_ingested.si(job_id, ref), embed_units.si())


@shared_task(acks_late=True)
def extract_ingested(job_id: int, ref: str) -> str:
    """Extract the snapshot a page's ingestion just stored, when it is new or changed."""
    from knowledge.services.extract import ExtractionFailed, snapshot_extract

    item = ingest.IngestItem.objects.filter(job_id=job_id, ref=ref).first()
    if item is None or item.outcome not in ("new", "changed") or item.snapshot_id is None:
        return "nothing new"
    try:
        return snapshot_extract(snapshot_id=item.snapshot_id).status
    except ExtractionFailed as exc:
        return exc.run.status


@shared_task
def fetch_source(source_id: int) -> None:
    job = ingest.source_fetch_job_create(source_id=source_id)
    ingest_page.delay(job.pk, job.refs[0])


@shared_task
def refresh_all_sources() -> int | None:
    job = ingest.refresh_job_create()
    if job is None:
        return None
    ingest_batch.delay(job.pk, extract=True)  # changed pages are re-extracted
    return job.pk


@shared_task(bind=True, acks_late=True, max_retries=3)
def extract_snapshot(self, snapshot_id: int, provider: str | None = None) -> str:
    from knowledge.providers import ProviderTransientError, get_provider
    from knowledge.services.extract import ExtractionFailed, snapshot_extract

    try:
        run = snapshot_extract(snapshot_id=snapshot_id, provider=get_provider(provider))
    except ExtractionFailed as exc:
        transient = isinstance(exc.__cause__, ProviderTransientError)
        if transient and not self.request.is_eager and self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=30 * 2**self.request.retries) from exc
        return exc.run.status
    return run.status


@shared_task
def extract_job(job_id: int) -> None:
    from knowledge.models import ExtractionJob

    job = ExtractionJob.objects.get(pk=job_id)
    snapshot_ids = list(job.runs.values_list("snapshot_id", flat=True))
    chord_body = group(
        extract_snapshot.s(snapshot_id, job.provider) for snapshot_id in snapshot_ids
    )
    (chord_body | embed_units.si()).apply_async()


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
