"""The jobs screen: ingestion, extraction and the editors' bootstrap jobs with their progress,
polled while they run."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from curation.models import BootstrapJob
from curation.selectors import jobs as selectors
from curation.views.access import admin_page, staff_required
from knowledge.models import ExtractionJob, IngestJob

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


# The fragment endpoints exist only to be polled, so they always answer with the partial.
@require_GET
@never_cache
@staff_required
def extraction_job_progress(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        job = selectors.extraction_job_status(job_id=job_id)
    except ExtractionJob.DoesNotExist:
        raise Http404("No such extraction job.") from None
    return render(request, f"{JOBS_TEMPLATE}#extraction-job", {"job": job})


@require_GET
@never_cache
@staff_required
def ingest_job_progress(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        job = selectors.ingest_job_status(job_id=job_id)
    except IngestJob.DoesNotExist:
        raise Http404("No such ingest job.") from None
    return render(request, f"{JOBS_TEMPLATE}#ingest-job", {"job": job})


@require_GET
@never_cache
@staff_required
def bootstrap_job_progress(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        job = selectors.bootstrap_job_status(job_id=job_id)
    except BootstrapJob.DoesNotExist:
        raise Http404("No such bootstrap job.") from None
    return render(request, f"{JOBS_TEMPLATE}#bootstrap-job", {"job": job})
