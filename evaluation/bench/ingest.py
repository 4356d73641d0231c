"""Ingestion benchmark: parsing and full ingestion throughput on a directory of page files.

Runs in a throwaway database (created like a test database and dropped afterwards), so the
first ingest of every repeat starts empty and the figures never touch real data.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from knowledge.documents import document_from_json
from knowledge.models import PageSnapshot, SnapshotLink
from knowledge.parsing import parse_document
from knowledge.services import ingest

INGEST_TABLES = [
    "knowledge_ingestitem",
    "knowledge_ingestjob",
    "knowledge_snapshotlink",
    "knowledge_pagesnapshot",
    "knowledge_source",
]


@dataclass
class IngestBenchResult:
    pages: int
    load_seconds: list[float]
    parse_seconds: list[float]
    first_ingest_seconds: list[float]
    unchanged_ingest_seconds: list[float]
    sections: int
    table_rows: int
    list_items: int
    cross_references: int
    snapshots: int
    failed: int

    @staticmethod
    def median(values: list[float]) -> float:
        return statistics.median(values)


def bench_ingest(*, root: Path, repeats: int, progress=lambda message: None) -> IngestBenchResult:
    files = sorted(root.glob("*.json"))
    if not files:
        raise ValueError(f"no page files (*.json) in {root}")
    result = IngestBenchResult(len(files), [], [], [], [], 0, 0, 0, 0, 0, 0)
    for repeat in range(1, repeats + 1):
        progress(f"repeat {repeat}/{repeats}: load + parse")
        result.load_seconds.append(_timed(lambda: [json.loads(f.read_text()) for f in files]))
        started = time.perf_counter()
        parsed = list(_parse_all(files))
        result.parse_seconds.append(time.perf_counter() - started)
        result.sections = sum(len(page.sections) for page in parsed)
        result.table_rows = sum(page.table_rows for page in parsed)
        result.list_items = sum(page.list_items for page in parsed)
        progress(f"repeat {repeat}/{repeats}: full ingest, then unchanged ingest")
        _empty_ingest_tables()
        result.first_ingest_seconds.append(_timed(lambda: _ingest_directory(root)))
        result.cross_references = SnapshotLink.objects.count()
        result.snapshots = PageSnapshot.objects.count()
        started = time.perf_counter()
        result.failed = _ingest_directory(root)
        result.unchanged_ingest_seconds.append(time.perf_counter() - started)
    return result


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _parse_all(files: list[Path]):
    for path in files:
        document = document_from_json(json.loads(path.read_text()), origin=path.name)
        yield parse_document(document)


def _ingest_directory(root: Path) -> int:
    job = ingest.directory_job_create(root=root)
    for ref in job.refs:
        ingest.ingest_item_run(job_id=job.pk, ref=ref)
    ingest.ingest_job_refresh(job_id=job.pk)
    return ingest.ingest_job_progress(job_id=job.pk)["counts"]["failed"]


def _empty_ingest_tables() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(INGEST_TABLES)} RESTART IDENTITY CASCADE")
