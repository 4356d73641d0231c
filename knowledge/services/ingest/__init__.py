"""Ingestion: page documents become immutable snapshots (pages), one job item a page (jobs).

Callers use the package: `from knowledge.services import ingest`, then `ingest.page_store`,
`ingest.directory_job_create`, …
"""

from knowledge.services.ingest.jobs import (
    WORKER_LOST,
    directory_job_create,
    govuk_job_create,
    ingest_item_fail,
    ingest_item_run,
    ingest_job_close,
    ingest_job_create,
    ingest_job_progress,
    ingest_job_refresh,
    ingested_snapshot_id,
    page_file_order,
    refresh_job_create,
    seed_list_read,
)
from knowledge.services.ingest.pages import (
    Outcome,
    StoredPage,
    captured_on_checked,
    page_store,
    raw_content_hash,
    snapshot_recency,
    source_record_failure,
)

__all__ = [
    "WORKER_LOST",
    "Outcome",
    "StoredPage",
    "captured_on_checked",
    "directory_job_create",
    "govuk_job_create",
    "ingest_item_fail",
    "ingest_item_run",
    "ingest_job_close",
    "ingest_job_create",
    "ingest_job_progress",
    "ingest_job_refresh",
    "ingested_snapshot_id",
    "page_file_order",
    "page_store",
    "raw_content_hash",
    "refresh_job_create",
    "seed_list_read",
    "snapshot_recency",
    "source_record_failure",
]
