"""The jobs screen: ingestion, extraction and the editors' bootstrap jobs with their progress,
polled while they run."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from curation.selectors import jobs as selectors
from curation.views.access import admin_page, staff_required

JOBS_TEMPLATE = "curation/jobs.html"


@require_GET
@never_cache
@staff_required
def jobs(request: HttpRequest) -> HttpResponse:
    context = admin_page(
        request,
        "Jobs",
        extraction_jobs=selectors.extraction_jobs_recent(),
        ingest_jobs=selectors.ingest_jobs_recent(),
        bootstrap_jobs=selectors.bootstrap_jobs_recent(),
        extraction_totals=selectors.extraction_totals_by_provider(),
        recent_limit=selectors.RECENT_JOBS,
    )
    return render(request, JOBS_TEMPLATE, context)


# Polled by an unfinished job's row, so it always answers with the row.
@require_GET
@never_cache
@staff_required
def job_progress(request: HttpRequest, kind: str, job_id: int) -> HttpResponse:
    try:
        job = selectors.job_status(kind=kind, job_id=job_id)
    except ObjectDoesNotExist:
        raise Http404(f"No such {kind} job.") from None
    return render(request, f"{JOBS_TEMPLATE}#job", {"job": job})


def job_url(kind: str, job_id: int) -> str:
    """Where a job's progress and outcome are followed: its row on the jobs screen."""
    return f"{reverse('curation:jobs')}#{selectors.job_anchor(kind, job_id)}"
