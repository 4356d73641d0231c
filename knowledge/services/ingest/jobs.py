"""Ingest jobs: a directory of page files, a seed list or GOV.UK paths, one item a page,
each stored by knowledge.services.ingest.pages; their progress, failures and closing.

Every write here is idempotent: an ingest item is claimed by its unique (job, ref) row,
written in the same transaction as the snapshot, so a task that runs twice, or is redelivered
after its worker died, finds its item and stops.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from knowledge import govuk
from knowledge.documents import GOVUK_ORIGIN
from knowledge.models import AtomicUnit, IngestItem, IngestJob, Source
from knowledge.services.ingest.pages import PERIOD_YEAR, Outcome, page_store, source_record_failure


def ingest_job_create(*, kind: str, refs: list[str], params: dict | None = None) -> IngestJob:
    if not refs:
        raise ValueError("nothing to ingest: the job has no pages")
    unique_refs = list(dict.fromkeys(refs))
    return IngestJob.objects.create(
        kind=kind, refs=unique_refs, total=len(unique_refs), params=params or {}
    )


def directory_job_create(*, root: Path, captured_on: dt.date | None = None) -> IngestJob:
    """A job for a directory of page files; `captured_on`: the day they were captured (a
    file's own `captured_at` wins), kept with the job for each page's task."""
    source = govuk.LocalDirectorySource(root)
    names = sorted(source.names(), key=lambda name: page_file_order(source, name))
    if not names:
        raise ValueError(f"no page files (*.json) in {root}")
    params = {"root": str(source.root)}
    if captured_on is not None:
        params["captured_on"] = captured_on.isoformat()
    return ingest_job_create(kind=IngestJob.Kind.DIRECTORY, refs=names, params=params)


def page_file_order(source: govuk.LocalDirectorySource, name: str) -> tuple:
    """Older versions of a page first, so that the newest becomes the source's current one."""
    try:
        document = source.fetch(name)
    except govuk.FetchError:
        return ("", 0, "", name)
    stamp = document.public_updated_at.isoformat() if document.public_updated_at else ""
    match = PERIOD_YEAR.search(document.period_hint)
    captured = document.captured_on.isoformat() if document.captured_on else ""
    return (stamp, int(match.group()) if match else 0, captured, name)


def ingest_item_run(*, job_id: int, ref: str) -> IngestItem:
    """Fetch and store one page of a job, once. Safe to run again: returns the first result.

    The fetch happens outside any transaction; the snapshot and the item that claims the
    page are written together. A page that cannot be fetched, including one gov.uk kept
    failing through the client's retries, is recorded as a failed (or gone) item.
    """
    job = IngestJob.objects.get(pk=job_id)
    existing = IngestItem.objects.filter(job=job, ref=ref).first()
    if existing is not None:
        return existing
    started = time.perf_counter()
    requested_url = None if job.kind == IngestJob.Kind.DIRECTORY else GOVUK_ORIGIN + ref
    try:
        document, failure = _page_source(job).fetch(ref), None
    except govuk.FetchError as exc:
        document, failure = None, exc
    try:
        with transaction.atomic():
            item = _item_store(job, ref, document, failure, requested_url)
            item.seconds = time.perf_counter() - started
            item.save()
    except IntegrityError:
        # Another delivery of the same task got there first; its result stands.
        return IngestItem.objects.get(job=job, ref=ref)
    return item


def _item_store(job, ref, document, failure, requested_url) -> IngestItem:
    if failure is not None:
        gone = isinstance(failure, govuk.PageGone)
        source = None
        if requested_url:
            source = source_record_failure(url=requested_url, gone=gone, reason=failure.reason)
        outcome = Outcome.GONE if gone else Outcome.FAILED
        return IngestItem(job=job, ref=ref, outcome=outcome, reason=failure.reason, source=source)
    captured_on = job.params.get("captured_on")
    stored = page_store(
        document=document,
        requested_url=requested_url,
        captured_on=dt.date.fromisoformat(captured_on) if captured_on else None,
    )
    return IngestItem(
        job=job, ref=ref, outcome=stored.outcome, source=stored.source, snapshot=stored.snapshot
    )


def _page_source(job: IngestJob):
    if job.kind == IngestJob.Kind.DIRECTORY:
        return govuk.LocalDirectorySource(job.params["root"])
    return govuk.content_api_client()


def ingest_job_refresh(*, job_id: int) -> IngestJob:
    """Mark the job finished once every page has an item (exactly once, by a guarded UPDATE)."""
    job = IngestJob.objects.get(pk=job_id)
    done = job.items.count()
    if done >= job.total:
        IngestJob.objects.filter(pk=job_id, status=IngestJob.Status.RUNNING).update(
            status=IngestJob.Status.FINISHED, finished_at=timezone.now()
        )
        job.refresh_from_db()
    return job


WORKER_LOST = "worker lost or timed out"


def ingest_item_fail(*, job_id: int, ref: str, reason: str) -> IngestItem:
    """Record one page as failed unless it already has an item (whose result then stands)."""
    item, _ = IngestItem.objects.get_or_create(
        job_id=job_id, ref=ref, defaults={"outcome": Outcome.FAILED, "reason": reason}
    )
    return item


def ingest_job_close(*, job_id: int, reason: str) -> int:
    """Fail every page of a job that has no item yet, with `reason`, and finish the job.

    Returns how many pages were failed; closing a closed job changes nothing. A lost task
    that still ends later finds its page's failed item: its own snapshot and item are
    refused together by the unique (job, ref) row, so nothing is half-written.
    """
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().get(pk=job_id)
        done = set(job.items.values_list("ref", flat=True))
        missing = [ref for ref in job.refs if ref not in done]
        IngestItem.objects.bulk_create(
            [
                IngestItem(job=job, ref=ref, outcome=Outcome.FAILED, reason=reason)
                for ref in missing
            ],
            ignore_conflicts=True,
        )
        IngestJob.objects.filter(pk=job_id, status=IngestJob.Status.RUNNING).update(
            status=IngestJob.Status.FINISHED, finished_at=timezone.now()
        )
    return len(missing)


def ingest_job_progress(*, job_id: int) -> dict:
    job = IngestJob.objects.get(pk=job_id)
    counts = dict(job.items.values_list("outcome").annotate(n=Count("id")))
    failures = list(
        job.items.filter(outcome__in=[Outcome.FAILED, Outcome.GONE]).values_list("ref", "reason")
    )
    done = sum(counts.values())
    return {
        "job_id": job.pk,
        "status": job.status,
        "done": done,
        "total": job.total,
        "counts": {outcome.value: counts.get(outcome.value, 0) for outcome in Outcome},
        "failures": failures,
        "units": _job_unit_figures(job),
    }


def _job_unit_figures(job: IngestJob) -> dict[str, int]:
    """What the job's pages did to the units since the job began: confirmed by a newer
    version, unconfirmed (the newer version dropped their quote), and new from extraction."""
    items = job.items.exclude(source=None)
    sources = items.values("source_id")
    snapshots = items.filter(outcome__in=[Outcome.NEW, Outcome.CHANGED]).values("snapshot_id")
    units = AtomicUnit.objects.alive()
    since = job.created_at
    return {
        "confirmed": units.filter(source_id__in=sources, confirmed_at__gte=since).count(),
        "unconfirmed": units.filter(
            source_id__in=sources, unconfirmed_at__isnull=False, updated_at__gte=since
        ).count(),
        "new": units.filter(snapshot_id__in=snapshots, created_at__gte=since).count(),
    }


def refresh_job_create() -> IngestJob | None:
    """A freshness check of every source that came from the Content API, gone ones too: a
    page gov.uk withdrew may come back."""
    paths = [
        source.url[len(GOVUK_ORIGIN) :]
        for source in Source.objects.select_related("current_snapshot")
        if source.current_snapshot and source.current_snapshot.origin.startswith(GOVUK_ORIGIN)
    ]
    if not paths:
        return None
    return ingest_job_create(kind=IngestJob.Kind.REFRESH, refs=paths)


def ingested_snapshot_id(*, job_id: int, ref: str) -> int | None:
    """The snapshot a job's page stored when it was new or changed; None when it stored
    nothing new (unchanged, failed, or not fetched yet)."""
    item = IngestItem.objects.filter(job_id=job_id, ref=ref).first()
    if item is None or item.outcome not in (Outcome.NEW, Outcome.CHANGED):
        return None
    return item.snapshot_id


def govuk_job_create(*, paths: list[str]) -> IngestJob:
    """A job for gov.uk paths or addresses; a bad one is refused with its position."""
    cleaned = []
    for position, raw in enumerate(paths, start=1):
        path = raw.strip()
        if path.startswith(GOVUK_ORIGIN + "/"):
            path = path[len(GOVUK_ORIGIN) :]
        try:
            govuk.ensure_govuk_path(path)
        except govuk.RefusedTarget as exc:
            raise ValueError(f"path {position} ({raw!r}): {exc.reason}") from None
        cleaned.append(path.rstrip("/") or "/")
    return ingest_job_create(kind=IngestJob.Kind.GOVUK, refs=cleaned)


def seed_list_read(*, path: Path) -> list[str]:
    """gov.uk paths from a seed file: one a line, '#' comments and blank lines ignored."""
    if not path.is_file():
        raise ValueError(f"seed list not found: {path}")
    paths = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        if not (entry.startswith("/") or entry.startswith(GOVUK_ORIGIN + "/")):
            raise ValueError(f"{path.name} line {number}: {entry!r} is not a gov.uk path")
        paths.append(entry)
    if not paths:
        raise ValueError(f"{path.name} lists no gov.uk paths")
    return paths
