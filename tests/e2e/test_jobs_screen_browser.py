"""The jobs screen in a real browser: sign in, watch a job finish live, be refused."""

import re

import pytest
from django.conf import settings
from django.test import Client

from knowledge.models import ExtractionJob, ExtractionRun, IngestItem, IngestJob
from tests.e2e.conftest import admin_login
from tests.factories import SnapshotFactory

pytestmark = pytest.mark.slow

LIVE_TIMEOUT_MS = 10_000


def extraction_job_one_of_three_done() -> ExtractionJob:
    job = ExtractionJob.objects.create(provider="heuristic", total=3, created_by="operator")
    for status, made in (("succeeded", 4), ("running", 0), ("pending", 0)):
        ExtractionRun.objects.create(
            snapshot=SnapshotFactory(),
            job=job,
            provider="heuristic",
            prompt_version="v1",
            status=status,
            units_made=made,
        )
    return job


def ingest_job_with_a_failure() -> IngestJob:
    job = IngestJob.objects.create(
        kind="govuk", refs=["/child-benefit", "/vat-rates"], total=2, status="finished"
    )
    IngestItem.objects.create(job=job, ref="/child-benefit", outcome="new")
    IngestItem.objects.create(
        job=job, ref="/vat-rates", outcome="failed", reason="gov.uk answered 503 three times"
    )
    return job


def test_operator_watches_an_extraction_job_finish_without_reloading(page, operator, tmp_path):
    from playwright.sync_api import expect

    job = extraction_job_one_of_three_done()
    ingest_job_with_a_failure()
    page.goto("/curation/jobs/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/curation/jobs/"))
    admin_login(page, username="operator")
    expect(page).to_have_url(re.compile(r"/curation/jobs/$"))

    row = page.locator(f"#extraction-job-{job.pk}")
    expect(row).to_contain_text("1/3")
    expect(row).to_contain_text("heuristic (rule-based, no LLM)")
    expect(row).to_have_attribute("hx-trigger", "every 1s")
    expect(page.locator("#ingest-jobs")).to_contain_text("gov.uk answered 503 three times")
    page.screenshot(path=tmp_path / "jobs-screen-running.png", full_page=True)
    page.evaluate("window.loadedOnce = true")  # gone if the page were reloaded

    ExtractionRun.objects.filter(job=job).exclude(status="succeeded").update(
        status="succeeded", units_made=2
    )

    expect(row).to_contain_text("3/3", timeout=LIVE_TIMEOUT_MS)
    expect(row).to_contain_text("100%")
    expect(row.locator("td.num").first).to_have_text("8")  # 4 + 2 + 2 units made
    expect(row).not_to_have_attribute("hx-trigger", re.compile(".*"))  # polling stopped
    assert page.evaluate("window.loadedOnce") is True
    page.screenshot(path=tmp_path / "jobs-screen.png", full_page=True)


def test_non_staff_user_is_refused(page, browser, live_server, visitor):
    from playwright.sync_api import expect

    page.goto("/curation/jobs/")
    admin_login(page, username="visitor")
    expect(page.locator(".errornote")).to_contain_text("staff account")

    # Signed in another way (a session of their own), they still get no jobs screen.
    client = Client()
    client.force_login(visitor)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    browser.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
    )
    response = page.goto("/curation/jobs/")
    assert response.status == 403
    expect(page.locator("body")).not_to_contain_text("Extraction jobs")
