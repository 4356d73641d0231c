"""The sweeper: work a lost or timed-out worker left "running" is closed with a reason."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from knowledge import govuk, tasks
from knowledge.models import ExtractionRun, IngestItem, IngestJob
from knowledge.services import ingest, sweep
from tests.factories import SnapshotFactory

pytestmark = pytest.mark.django_db
HOUR = dt.timedelta(hours=1)


def job_with_one_page_done(*, idle: dt.timedelta) -> IngestJob:
    """A three-page job whose first page was stored `idle` ago, the others never."""
    job = ingest.ingest_job_create(kind=IngestJob.Kind.GOVUK, refs=["/a", "/b", "/c"])
    IngestItem.objects.create(job=job, ref="/a", outcome=IngestItem.Outcome.UNCHANGED)
    IngestJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - idle - HOUR)
    IngestItem.objects.filter(job=job).update(created_at=timezone.now() - idle)
    return job


def test_a_job_idle_past_the_age_has_its_missing_pages_failed_with_a_reason_and_ends():
    job = job_with_one_page_done(idle=2 * HOUR)
    report = sweep.stale_work_sweep(older_than=HOUR)
    assert (report.ingest_jobs, report.ingest_items) == (1, 2)
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FINISHED and job.finished_at is not None
    failed = job.items.filter(outcome=IngestItem.Outcome.FAILED)
    assert sorted(failed.values_list("ref", flat=True)) == ["/b", "/c"]
    assert all(
        reason.startswith("worker lost or timed out")
        for reason in failed.values_list("reason", flat=True)
    )
    assert job.items.get(ref="/a").outcome == IngestItem.Outcome.UNCHANGED


def test_sweeping_again_changes_nothing():
    job_with_one_page_done(idle=2 * HOUR)
    sweep.stale_work_sweep(older_than=HOUR)
    items = list(IngestItem.objects.values_list("id", "outcome", "reason"))
    report = sweep.stale_work_sweep(older_than=HOUR)
    assert (report.ingest_jobs, report.ingest_items, report.extraction_runs) == (0, 0, 0)
    assert list(IngestItem.objects.values_list("id", "outcome", "reason")) == items


def test_a_job_still_storing_pages_is_left_running():
    job = job_with_one_page_done(idle=dt.timedelta(minutes=5))  # old job, recent progress
    assert sweep.stale_work_sweep(older_than=HOUR).ingest_jobs == 0
    job.refresh_from_db()
    assert job.status == IngestJob.Status.RUNNING and job.items.count() == 1


def test_a_redelivered_page_of_a_swept_job_stops_at_its_failed_item(monkeypatch):
    # A page that kills its worker each time would otherwise be redelivered for ever.
    job = job_with_one_page_done(idle=2 * HOUR)
    sweep.stale_work_sweep(older_than=HOUR)

    def no_fetch():
        raise AssertionError("a swept page must not be fetched again")

    monkeypatch.setattr(govuk, "content_api_client", no_fetch)
    assert tasks.ingest_page.delay(job.pk, "/b").get() == IngestItem.Outcome.FAILED


def extraction_run(*, started_ago: dt.timedelta) -> ExtractionRun:
    return ExtractionRun.objects.create(
        snapshot=SnapshotFactory(),
        provider="heuristic",
        prompt_version="v-test",
        status=ExtractionRun.Status.RUNNING,
        started_at=timezone.now() - started_ago,
    )


def test_an_extraction_run_running_past_the_age_fails_with_a_reason():
    stuck, busy = extraction_run(started_ago=2 * HOUR), extraction_run(started_ago=HOUR / 6)
    assert sweep.stale_work_sweep(older_than=HOUR).extraction_runs == 1
    stuck.refresh_from_db(), busy.refresh_from_db()
    assert stuck.status == ExtractionRun.Status.FAILED and stuck.finished_at is not None
    assert stuck.error.startswith("worker lost or timed out")
    assert busy.status == ExtractionRun.Status.RUNNING


def test_the_age_defaults_to_the_setting_which_outlasts_any_task(settings):
    assert settings.JOB_STALE_AFTER_SECONDS >= settings.CELERY_TASK_TIME_LIMIT
    settings.JOB_STALE_AFTER_SECONDS = 3 * 3600
    job_with_one_page_done(idle=2 * HOUR)
    assert sweep.stale_work_sweep().ingest_jobs == 0
    settings.JOB_STALE_AFTER_SECONDS = 3600
    assert sweep.stale_work_sweep().ingest_jobs == 1


def test_beat_runs_the_sweeper_and_the_command_reports(settings):
    schedule = settings.CELERY_BEAT_SCHEDULE.values()
    assert any(entry["task"] == "knowledge.tasks.sweep_stale_work" for entry in schedule)
    job_with_one_page_done(idle=2 * HOUR)
    out = StringIO()
    call_command("sweep_stale_work", "--older-than-minutes", "60", stdout=out)
    assert "1 ingest job(s) closed, 2 page(s) failed, 0 extraction run(s) failed" in out.getvalue()
