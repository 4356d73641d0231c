"""Ingestion: page documents become immutable snapshots; unchanged pages cost nothing.

Every write here is idempotent. A page whose normalised content hash is already stored for
its source adds nothing; an ingest item is claimed by its unique (job, ref) row, written in
the same transaction as the snapshot, so a task that runs twice, or is redelivered after its
worker died, finds its item and stops.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from knowledge import govuk
from knowledge.documents import GOVUK_ORIGIN, PageDocument
from knowledge.models import AtomicUnit, IngestItem, IngestJob, PageSnapshot, SnapshotLink, Source
from knowledge.parsing import parse_document
from knowledge.services.freshness import Reverification, capture_units_extend, source_reverify

Outcome = IngestItem.Outcome


@dataclass(frozen=True)
class StoredPage:
    outcome: str
    source: Source
    snapshot: PageSnapshot
    reverified: Reverification | None = None  # when a newer version became current


def page_store(
    *,
    document: PageDocument,
    requested_url: str | None = None,
    captured_on: dt.date | None = None,
) -> StoredPage:
    """Store `document` as a snapshot of its source unless that content is already stored.

    A page received byte-for-byte as before is recognised by its raw hash without parsing;
    otherwise the parsed content hash decides. `requested_url` is the address asked for:
    when gov.uk redirected, the source found under it moves to the canonical address.
    `captured_on`: the day gov.uk showed the page, when not today (a directory of page files
    captured earlier); the page file's own `captured_at` wins. Content stored already still
    counts as a capture: its yearly figures printed with no year hold for that day's year.
    """
    captured_on = document.captured_on or captured_on
    raw_hash = raw_content_hash(document.raw)
    if requested_url in (None, document.url):
        known = _snapshot_with_raw_hash(document.url, raw_hash)
        if known is not None:
            _source_touch(known.source)
            _capture_record(known, document, captured_on)
            return StoredPage(Outcome.UNCHANGED, known.source, known)
    parsed = parse_document(document)
    now = timezone.now()
    with transaction.atomic():
        source, created = _source_for(document, requested_url=requested_url)
        snapshot = PageSnapshot.objects.filter(
            source=source, content_hash=parsed.content_hash
        ).first()
        if snapshot is not None:
            outcome = Outcome.UNCHANGED
            _capture_record(snapshot, document, captured_on)
        else:
            snapshot = _snapshot_create(source, document, parsed, raw_hash, captured_on)
            outcome = Outcome.NEW if created else Outcome.CHANGED
        was_current = source.current_snapshot_id
        _source_refresh(source, document, outcome=outcome, now=now)
        reverified = None
        if source.current_snapshot_id != was_current and not created:
            # A newer version is current: the units of the page are looked up in it. An
            # older capture stored late does not become current and changes nothing.
            reverified = source_reverify(source_id=source.pk)
    return StoredPage(outcome, source, snapshot, reverified)


def _capture_record(snapshot: PageSnapshot, document: PageDocument, captured_on) -> None:
    capture_units_extend(
        snapshot=snapshot,
        captured_on=captured_on or timezone.localdate(),
        period_hint=document.period_hint,
    )


def captured_on_checked(value: str) -> dt.date:
    """An operator's capture date: an ISO date (YYYY-MM-DD), not in the future."""
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"captured on: {value!r} is not a date (YYYY-MM-DD)") from None
    if day > timezone.localdate():
        raise ValueError(f"captured on: {day} is in the future")
    return day


def raw_content_hash(raw: dict) -> str:
    canonical = json.dumps(raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _snapshot_with_raw_hash(url: str, raw_hash: str) -> PageSnapshot | None:
    return (
        PageSnapshot.objects.filter(source__url=url, raw_hash=raw_hash)
        .select_related("source")
        .defer("raw", "text", "sections")
        .first()
    )


def _source_touch(source: Source) -> None:
    """An unchanged fetch: remember when, and clear a gone/error status it no longer has."""
    fields = {
        "last_fetched_at": timezone.now(),
        "updated_at": timezone.now(),
        "failures_in_a_row": 0,
        "failing_since": None,
    }
    if source.status in (Source.Status.GONE, Source.Status.ERROR):
        fields.update(status=Source.Status.OK, status_reason="")
    Source.objects.filter(pk=source.pk).update(**fields)


def _source_for(document: PageDocument, *, requested_url: str | None) -> tuple[Source, bool]:
    if requested_url and requested_url != document.url:
        moved = Source.objects.select_for_update().filter(url=requested_url).first()
        if moved is not None and not Source.objects.filter(url=document.url).exists():
            moved.url = document.url
            moved.base_path = document.base_path
            moved.save(update_fields=["url", "base_path", "updated_at"])
            return moved, False
    source, created = Source.objects.get_or_create(
        url=document.url, defaults={"base_path": document.base_path, "title": document.title}
    )
    source = Source.objects.select_for_update().get(pk=source.pk)  # one writer per source
    return source, created


def _snapshot_create(
    source, document: PageDocument, parsed, raw_hash: str, captured_on: dt.date | None
) -> PageSnapshot:
    snapshot = PageSnapshot.objects.create(
        source=source,
        content_hash=parsed.content_hash,
        raw_hash=raw_hash,
        origin=document.origin,
        raw=document.raw,
        text=parsed.text,
        sections=parsed.sections,
        public_updated_at=document.public_updated_at,
        period_hint=document.period_hint[:64],
        captured_on=captured_on,
    )
    SnapshotLink.objects.bulk_create(
        SnapshotLink(
            snapshot=snapshot,
            target_path=link.target_path[:500],
            anchor_text=link.anchor_text[:500],
            heading_path=list(link.heading_path),
        )
        for link in parsed.links
    )
    return snapshot


def _source_refresh(source: Source, document: PageDocument, *, outcome: str, now) -> None:
    versions = source.snapshots.only(
        "id",
        "content_hash",
        "origin",
        "public_updated_at",
        "period_hint",
        "fetched_at",
        "captured_on",
    )
    latest = max(versions, key=snapshot_recency)
    source.current_snapshot = latest
    source.content_hash = latest.content_hash
    source.title = document.title if latest.origin == document.origin else source.title
    source.document_type = document.document_type or source.document_type
    if document.public_updated_at and (
        source.public_updated_at is None or document.public_updated_at > source.public_updated_at
    ):
        source.public_updated_at = document.public_updated_at
    source.last_fetched_at = now
    source.failures_in_a_row, source.failing_since = 0, None
    if outcome == Outcome.CHANGED:
        source.last_changed_at = now
        source.status = Source.Status.CHANGED
    elif outcome == Outcome.NEW:
        source.last_changed_at = now
        source.status = Source.Status.OK
    elif source.status in (Source.Status.GONE, Source.Status.ERROR):
        source.status = Source.Status.OK
    if source.status in (Source.Status.OK, Source.Status.CHANGED):
        source.status_reason = ""
    source.save()


_YEAR = re.compile(r"(19|20)\d\d")


def snapshot_recency(snapshot: PageSnapshot) -> tuple:
    """Which version of a page is the latest: gov.uk's date, else the period a page file
    states its figures are for, else the day it was captured, else when it was fetched."""
    published = snapshot.public_updated_at.timestamp() if snapshot.public_updated_at else 0.0
    match = _YEAR.search(snapshot.period_hint or "")
    period_year = int(match.group()) if match else 0
    if period_year and snapshot.period_hint.startswith("pre-"):
        period_year -= 1
    captured = snapshot.captured_on or snapshot.fetched_at.date()
    return (published, period_year, captured, snapshot.fetched_at.timestamp(), snapshot.pk)


def source_record_failure(*, url: str, gone: bool, reason: str) -> Source | None:
    """Record a failed fetch of a known source; its snapshots and units stay. A page gov.uk
    says is gone counts as gone only after SOURCE_GONE_AFTER_FAILURES failures in a row over
    SOURCE_GONE_AFTER_DAYS days; before that it is in error, with the count in its reason."""
    now = timezone.now()
    with transaction.atomic():
        source = Source.objects.select_for_update().filter(url=url).first()
        if source is None:
            return None
        source.failures_in_a_row += 1
        source.failing_since = source.failing_since or now
        source.status = (
            Source.Status.GONE if gone and _gone_for_good(source, now) else Source.Status.ERROR
        )
        if gone and source.status == Source.Status.ERROR:
            reason = (
                f"{reason} (failure {source.failures_in_a_row} in a row: gone after "
                f"{settings.SOURCE_GONE_AFTER_FAILURES} over {settings.SOURCE_GONE_AFTER_DAYS} days)"
            )
        source.status_reason = reason[:2000]
        source.last_fetched_at = now
        source.save(
            update_fields=[
                "status",
                "status_reason",
                "last_fetched_at",
                "failures_in_a_row",
                "failing_since",
                "updated_at",
            ]
        )
        return source


def _gone_for_good(source: Source, now) -> bool:
    span = now - source.failing_since
    return (
        source.failures_in_a_row >= settings.SOURCE_GONE_AFTER_FAILURES
        and span.days >= settings.SOURCE_GONE_AFTER_DAYS
    )


# --- jobs ---------------------------------------------------------------------------------


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
    match = _YEAR.search(document.period_hint)
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
