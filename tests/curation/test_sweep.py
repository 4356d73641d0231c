"""The curation sweeper fails detector runs and bootstrap jobs a lost worker left open."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from curation.models import BootstrapJob, DetectionRun
from curation.services.sweep import stale_curation_work_sweep
from curation.tasks import sweep_stale_curation_work
from tests.factories import CategoryFactory

pytestmark = pytest.mark.django_db
HOUR = dt.timedelta(hours=1)


def _run(*, started_ago: dt.timedelta, status=DetectionRun.Status.RUNNING) -> DetectionRun:
    run = DetectionRun.objects.create(provider="heuristic", status=status)
    DetectionRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - started_ago)
    return run


def _job(*, status, created_ago: dt.timedelta, started_ago=None) -> BootstrapJob:
    job = BootstrapJob.objects.create(
        kind=BootstrapJob.Kind.PROPOSE, category=CategoryFactory(), status=status
    )
    BootstrapJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - created_ago,
        started_at=None if started_ago is None else timezone.now() - started_ago,
    )
    return job


def test_open_work_older_than_the_cutoff_is_failed_with_a_reason_and_the_rest_left_alone():
    lost_run = _run(started_ago=2 * HOUR)
    live_run = _run(started_ago=dt.timedelta(minutes=5))
    done_run = _run(started_ago=3 * HOUR, status=DetectionRun.Status.DONE)
    lost_job = _job(status=BootstrapJob.Status.RUNNING, created_ago=3 * HOUR, started_ago=2 * HOUR)
    never_started = _job(status=BootstrapJob.Status.QUEUED, created_ago=2 * HOUR)
    fresh_job = _job(status=BootstrapJob.Status.QUEUED, created_ago=dt.timedelta(minutes=1))

    report = stale_curation_work_sweep(older_than=HOUR)

    assert (report.detection_runs, report.bootstrap_jobs) == (1, 2)
    for record in (lost_run, live_run, done_run, lost_job, never_started, fresh_job):
        record.refresh_from_db()
    assert lost_run.status == "failed" and "worker lost or timed out" in lost_run.error
    assert lost_run.finished_at is not None
    assert (live_run.status, done_run.status) == ("running", "done")
    assert lost_job.status == "failed" and "worker lost" in lost_job.error
    assert never_started.status == "failed" and "never picked up" in never_started.error
    assert fresh_job.status == "queued"


def test_a_second_sweep_changes_nothing():
    _run(started_ago=2 * HOUR)
    _job(status=BootstrapJob.Status.QUEUED, created_ago=2 * HOUR)
    stale_curation_work_sweep(older_than=HOUR)
    again = stale_curation_work_sweep(older_than=HOUR)
    assert (again.detection_runs, again.bootstrap_jobs) == (0, 0)


def test_the_default_age_is_the_stale_setting_and_beat_runs_the_task(settings):
    settings.JOB_STALE_AFTER_SECONDS = 7200
    _run(started_ago=HOUR + dt.timedelta(minutes=30))  # stale at one hour, not at two
    assert sweep_stale_curation_work() == "0 detection run(s) failed, 0 bootstrap job(s) failed"
    schedule = settings.CELERY_BEAT_SCHEDULE.values()
    assert any(entry["task"] == "curation.tasks.sweep_stale_curation_work" for entry in schedule)
