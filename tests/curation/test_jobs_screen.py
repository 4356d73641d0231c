"""The operators' jobs screen: who may see it, what it shows, and its polled fragments."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from curation.selectors.jobs import extraction_job_status
from knowledge.models import ExtractionJob, ExtractionRun, IngestItem, IngestJob
from tests.factories import SnapshotFactory

pytestmark = pytest.mark.django_db

HEURISTIC_LABEL = "heuristic (rule-based, no LLM)"
JOBS_URL = "/curation/jobs/"


def make_run(job: ExtractionJob, status: str, **fields) -> ExtractionRun:
    return ExtractionRun.objects.create(
        snapshot=SnapshotFactory(),
        job=job,
        provider=job.provider,
        prompt_version="v1",
        status=status,
        **fields,
    )


def extraction_progress_url(job) -> str:
    return reverse("curation:extraction-job-progress", args=[job.pk])


def ingest_progress_url(job) -> str:
    return reverse("curation:ingest-job-progress", args=[job.pk])


@pytest.fixture
def running_extraction():
    job = ExtractionJob.objects.create(provider="heuristic", total=2)
    make_run(job, "succeeded", units_made=3, units_rejected=1, units_unassigned=2)
    make_run(job, "running")
    return job


@pytest.fixture
def finished_extraction():
    job = ExtractionJob.objects.create(provider="heuristic", total=2)
    make_run(job, "succeeded", units_made=4, units_rejected=0, units_unassigned=1)
    failed = make_run(job, "failed", error="pass 1 named an unknown category 'pets'")
    job.failed_url = failed.snapshot.source.url
    return job


@pytest.fixture
def finished_ingest():
    job = IngestJob.objects.create(
        kind="govuk", refs=["/a", "/b", "/c"], total=3, status="finished"
    )
    IngestItem.objects.create(job=job, ref="/a", outcome="new")
    IngestItem.objects.create(job=job, ref="/b", outcome="failed", reason="gov.uk answered 503")
    IngestItem.objects.create(job=job, ref="/c", outcome="gone", reason="410 Gone")
    return job


@pytest.fixture
def running_ingest():
    job = IngestJob.objects.create(kind="govuk", refs=["/x", "/y"], total=2)
    IngestItem.objects.create(job=job, ref="/x", outcome="unchanged")
    return job


@pytest.fixture
def visitor():
    return get_user_model().objects.create_user("visitor", password="pw-123456")


# --- the page ---------------------------------------------------------------------------------


def test_staff_sees_extraction_counts_and_failures(client, editor, finished_extraction):
    client.force_login(editor)
    response = client.get(JOBS_URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert f'id="extraction-job-{finished_extraction.pk}"' in page
    assert "2/2" in page and "100%" in page
    assert '<td class="num">4</td>' in page  # units made
    assert '<td class="num">1</td>' in page  # unassigned
    assert finished_extraction.failed_url in page
    assert "pass 1 named an unknown category &#x27;pets&#x27;" in page
    assert "finished, 1 failed" in page


def test_staff_sees_ingest_counts_and_failures_with_their_addresses(
    client, editor, finished_ingest
):
    client.force_login(editor)
    page = client.get(JOBS_URL).content.decode()
    assert f'id="ingest-job-{finished_ingest.pk}"' in page
    assert "3/3" in page
    assert "https://www.gov.uk/b" in page and "gov.uk answered 503" in page
    assert "https://www.gov.uk/c" in page and "410 Gone" in page


def test_jobs_are_listed_newest_first(client, editor):
    older = ExtractionJob.objects.create(provider="heuristic", total=1)
    newer = ExtractionJob.objects.create(provider="heuristic", total=1)
    client.force_login(editor)
    page = client.get(JOBS_URL).content.decode()
    assert page.index(f"extraction-job-{newer.pk}") < page.index(f"extraction-job-{older.pk}")


def test_page_loads_htmx_and_polls_only_unfinished_jobs(
    client, editor, running_extraction, finished_extraction
):
    client.force_login(editor)
    page = client.get(JOBS_URL).content.decode()
    assert "/static/vendor/htmx.min.js" in page
    assert f'hx-get="{extraction_progress_url(running_extraction)}"' in page
    assert f'hx-get="{extraction_progress_url(finished_extraction)}"' not in page
    assert page.count('hx-trigger="every 1s"') == 1


def test_heuristic_provider_is_never_presented_as_an_llm(client, editor, running_extraction):
    client.force_login(editor)
    page = client.get(JOBS_URL).content.decode()
    fragment = client.get(extraction_progress_url(running_extraction)).content.decode()
    for html in (page, fragment):
        assert HEURISTIC_LABEL in html
        assert "LLM (OpenAI" not in html


def test_token_and_cost_totals_across_extraction_runs(client, editor, running_extraction):
    llm_job = ExtractionJob.objects.create(provider="openai", total=2)
    make_run(
        llm_job,
        "succeeded",
        model="gpt-4o-mini",
        prompt_tokens=1200,
        completion_tokens=300,
        cost=Decimal("0.00036"),
    )
    make_run(
        llm_job,
        "succeeded",
        model="gpt-4o-mini",
        prompt_tokens=800,
        completion_tokens=200,
        cost=Decimal("0.00024"),
    )
    client.force_login(editor)
    page = client.get(JOBS_URL).content.decode()
    assert "LLM (OpenAI-compatible)" in page and "gpt-4o-mini" in page
    assert "2,000 / 500" in page  # this job's tokens in / out
    assert "0.0006" in page  # its cost, and the openai total
    assert page.count(HEURISTIC_LABEL) == 2  # its job row and its totals row


# --- the fragments ----------------------------------------------------------------------------


def test_running_fragment_is_only_the_job_and_keeps_polling(client, editor, running_extraction):
    client.force_login(editor)
    response = client.get(extraction_progress_url(running_extraction))
    assert response.status_code == 200
    html = response.content.decode().strip()
    assert html.startswith("<tbody") and html.endswith("</tbody>")
    assert "<html" not in html and "Extraction jobs" not in html
    assert 'hx-trigger="every 1s"' in html
    assert f'hx-get="{extraction_progress_url(running_extraction)}"' in html
    assert 'hx-swap="outerHTML"' in html
    assert "1/2" in html and "50%" in html
    assert "no-cache" in response["Cache-Control"]


def test_finished_fragment_stops_polling(client, editor, finished_extraction):
    client.force_login(editor)
    html = client.get(extraction_progress_url(finished_extraction)).content.decode()
    assert html.strip().startswith("<tbody")
    assert "hx-trigger" not in html and "hx-get" not in html
    assert "2/2" in html


def test_fragment_follows_the_job_to_its_end(client, editor, running_extraction):
    client.force_login(editor)
    url = extraction_progress_url(running_extraction)
    assert "hx-trigger" in client.get(url).content.decode()
    running_extraction.runs.filter(status="running").update(status="succeeded", units_made=2)
    html = client.get(url).content.decode()
    assert "hx-trigger" not in html
    assert "2/2" in html and '<td class="num">5</td>' in html  # 3 + 2 units made


def test_ingest_fragments_poll_while_running_only(client, editor, running_ingest, finished_ingest):
    client.force_login(editor)
    running = client.get(ingest_progress_url(running_ingest)).content.decode()
    finished = client.get(ingest_progress_url(finished_ingest)).content.decode()
    assert running.strip().startswith("<tbody") and finished.strip().startswith("<tbody")
    assert 'hx-trigger="every 1s"' in running and "1/2" in running
    assert "hx-trigger" not in finished and "gov.uk answered 503" in finished


def test_fragment_of_an_unknown_job_is_404(client, editor):
    client.force_login(editor)
    assert client.get("/curation/jobs/extraction/999999/progress/").status_code == 404
    assert client.get("/curation/jobs/ingest/999999/progress/").status_code == 404


# --- who may look -----------------------------------------------------------------------------


def test_anonymous_is_sent_to_the_admin_login(client, running_extraction):
    response = client.get(JOBS_URL)
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/curation/jobs/"
    fragment = client.get(extraction_progress_url(running_extraction))
    assert fragment.status_code == 302


def test_anonymous_htmx_poll_reloads_the_page_instead_of_swapping_a_login_form(
    client, running_extraction
):
    response = client.get(extraction_progress_url(running_extraction), HTTP_HX_REQUEST="true")
    assert response.status_code == 401
    assert response["HX-Refresh"] == "true"


def test_signed_in_non_staff_are_refused(client, visitor, running_extraction, running_ingest):
    client.force_login(visitor)
    assert client.get(JOBS_URL).status_code == 403
    assert client.get(extraction_progress_url(running_extraction)).status_code == 403
    assert client.get(ingest_progress_url(running_ingest)).status_code == 403


def test_the_screen_only_reads(client, editor, running_extraction):
    client.force_login(editor)
    assert client.post(JOBS_URL).status_code == 405
    assert client.post(extraction_progress_url(running_extraction)).status_code == 405


# --- the selector -----------------------------------------------------------------------------


def test_status_counts_snapshots_extracted_by_an_earlier_job_as_done():
    job = ExtractionJob.objects.create(provider="heuristic", total=3)
    make_run(job, "pending")  # two of the three snapshots were extracted before
    status = extraction_job_status(job_id=job.pk)
    assert (status.done, status.reused, status.finished, status.state) == (2, 2, False, "running")


def test_a_job_with_nothing_started_is_queued():
    job = ExtractionJob.objects.create(provider="heuristic", total=1)
    make_run(job, "pending")
    status = extraction_job_status(job_id=job.pk)
    assert (status.done, status.percent, status.state) == (0, 0, "queued")
