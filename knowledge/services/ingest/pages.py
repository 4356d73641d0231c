"""Storing a page: a page document becomes an immutable snapshot of its source; an
unchanged page costs nothing (its normalised content hash is already stored for its source),
and a page that failed or is gone is recorded on its source.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from knowledge.documents import PageDocument
from knowledge.models import IngestItem, PageSnapshot, SnapshotLink, Source
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


# The first year a page file's stated period names ("2024-25", "pre-2019"): its place among
# the versions of its page.
PERIOD_YEAR = re.compile(r"(19|20)\d\d")


def snapshot_recency(snapshot: PageSnapshot) -> tuple:
    """Which version of a page is the latest: gov.uk's date, else the period a page file
    states its figures are for, else the day it was captured, else when it was fetched."""
    published = snapshot.public_updated_at.timestamp() if snapshot.public_updated_at else 0.0
    match = PERIOD_YEAR.search(snapshot.period_hint or "")
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
