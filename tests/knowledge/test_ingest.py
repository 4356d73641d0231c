"""Ingestion end to end on page files: snapshots only on change, jobs, redelivery, CLI."""

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from knowledge import tasks
from knowledge.models import IngestItem, IngestJob, PageSnapshot, SnapshotLink, Source
from knowledge.services import ingest

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"


def run_directory(root: Path) -> dict:
    job = ingest.directory_job_create(root=root)
    for ref in job.refs:
        tasks.ingest_page.delay(job.pk, ref)
    return ingest.ingest_job_progress(job_id=job.pk)


@pytest.fixture
def corpus_copy(corpus_pages, tmp_path):
    target = tmp_path / "pages"
    shutil.copytree(corpus_pages, target)
    return target


def test_real_corpus_ingests_without_failures_and_a_second_run_adds_nothing(corpus_copy):
    first = run_directory(corpus_copy)
    pages = len(list(corpus_copy.glob("*.json")))
    assert first["done"] == first["total"] == pages
    assert first["counts"]["failed"] == 0 and first["counts"]["gone"] == 0
    snapshots = PageSnapshot.objects.count()
    assert snapshots == pages  # every capture is its own version
    second = run_directory(corpus_copy)
    assert second["counts"]["unchanged"] == pages
    assert second["counts"]["new"] == second["counts"]["changed"] == 0
    assert PageSnapshot.objects.count() == snapshots


def test_modified_file_gives_exactly_one_changed_source_with_a_second_snapshot(corpus_copy):
    run_directory(corpus_copy)
    path = corpus_copy / "benefit-cap.json"
    page = json.loads(path.read_text())
    amounts = page["parts"][4]
    assert amounts["title"] == "Benefit cap amounts" and "£423.46" in amounts["body_html"]
    amounts["body_html"] = amounts["body_html"].replace("£423.46", "£430.00")
    path.write_text(json.dumps(page))
    progress = run_directory(corpus_copy)
    assert progress["counts"]["changed"] == 1
    assert progress["counts"]["unchanged"] == progress["total"] - 1
    source = Source.objects.get(url="https://www.gov.uk/benefit-cap")
    assert source.status == Source.Status.CHANGED
    assert source.snapshots.count() == 2
    assert "£430.00" in source.current_snapshot.text
    assert source.last_changed_at is not None


def test_newest_version_of_a_page_becomes_current_whatever_the_order():
    run_directory(FIXTURES)
    source = Source.objects.get(url="https://www.gov.uk/new-state-pension")
    assert source.snapshots.count() == 2
    assert "£221.20" in source.current_snapshot.text
    older = source.snapshots.exclude(pk=source.current_snapshot_id).get()
    assert "£203.85" in older.text


def test_cross_references_are_stored_per_snapshot():
    run_directory(FIXTURES)
    targets = set(SnapshotLink.objects.values_list("target_path", flat=True))
    assert {
        "/junior-individual-savings-accounts",
        "/lifetime-isa",
        "/marriage-allowance",
    } <= targets


def test_unchanged_page_keeps_its_snapshot_and_costs_nothing():
    run_directory(FIXTURES)
    before = {s.pk: s.content_hash for s in PageSnapshot.objects.all()}
    run_directory(FIXTURES)
    assert {s.pk: s.content_hash for s in PageSnapshot.objects.all()} == before


def test_redelivered_task_after_a_failure_past_its_write_duplicates_nothing(monkeypatch):
    job = ingest.directory_job_create(root=FIXTURES)
    ref = job.refs[0]
    real_refresh = ingest.ingest_job_refresh

    def worker_dies(**kwargs):
        raise RuntimeError("worker killed after writing")

    monkeypatch.setattr(ingest, "ingest_job_refresh", worker_dies)
    with pytest.raises(RuntimeError):
        tasks.ingest_page.apply(args=(job.pk, ref), throw=True)
    assert IngestItem.objects.filter(job=job).count() == 1
    snapshots = PageSnapshot.objects.count()

    monkeypatch.setattr(ingest, "ingest_job_refresh", real_refresh)
    outcome = tasks.ingest_page.apply(args=(job.pk, ref), throw=True).get()  # redelivery
    assert outcome == IngestItem.Outcome.NEW  # the first result stands
    assert IngestItem.objects.filter(job=job).count() == 1
    assert PageSnapshot.objects.count() == snapshots
    assert Source.objects.count() == 1


def test_same_page_stored_twice_creates_one_snapshot():
    from knowledge.govuk import LocalDirectorySource

    document = LocalDirectorySource(FIXTURES).fetch("lifetime-isa.json")
    first = ingest.page_store(document=document)
    second = ingest.page_store(document=document)
    assert (first.outcome, second.outcome) == ("new", "unchanged")
    assert first.snapshot.pk == second.snapshot.pk


def test_a_bad_page_file_fails_alone_with_its_reason(tmp_path):
    shutil.copy(FIXTURES / "lifetime-isa.json", tmp_path)
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "empty-page.json").write_text(
        json.dumps({"url": "https://www.gov.uk/x", "title": "X"})
    )
    progress = run_directory(tmp_path)
    assert progress["counts"] == {"new": 1, "changed": 0, "unchanged": 0, "gone": 0, "failed": 2}
    reasons = dict(progress["failures"])
    assert "not valid JSON" in reasons["broken.json"]
    assert "no 'parts', 'body_html' or 'body_text'" in reasons["empty-page.json"]
    assert Source.objects.count() == 1


def test_job_finishes_exactly_when_every_page_has_an_outcome():
    job = ingest.directory_job_create(root=FIXTURES)
    for ref in job.refs[:-1]:
        tasks.ingest_page.delay(job.pk, ref)
    job.refresh_from_db()
    assert job.status == IngestJob.Status.RUNNING
    tasks.ingest_page.delay(job.pk, job.refs[-1])
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FINISHED and job.finished_at is not None


def test_seed_list_is_read_with_comments_and_bad_lines_named(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# comment\n/child-benefit\n\nhttps://www.gov.uk/pip  # trailing\n")
    assert ingest.seed_list_read(path=seeds) == ["/child-benefit", "https://www.gov.uk/pip"]
    seeds.write_text("/ok\nftp://elsewhere/x\n")
    with pytest.raises(ValueError, match="line 2"):
        ingest.seed_list_read(path=seeds)


def test_project_seed_list_is_valid():
    paths = ingest.seed_list_read(path=FIXTURES.parent / "seed-list.txt")
    job = ingest.govuk_job_create(paths=paths)
    assert job.total == len(paths) >= 8


def test_beat_schedule_runs_the_freshness_check():
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert any(
        entry["task"] == "knowledge.tasks.refresh_all_sources" for entry in schedule.values()
    )
    assert "refresh_all_sources" in dir(tasks)


def test_freshness_check_covers_only_content_api_sources():
    run_directory(FIXTURES)  # local page files are refreshed by re-running ingest --from-dir
    assert ingest.refresh_job_create() is None


def test_cli_prints_a_summary_and_exits_non_zero_on_failure(tmp_path):
    shutil.copy(FIXTURES / "lifetime-isa.json", tmp_path)
    out = StringIO()
    call_command("ingest", from_dir=tmp_path, quiet_progress=True, stdout=out)
    assert "new             1" in out.getvalue()
    (tmp_path / "broken.json").write_text("[]")
    with pytest.raises(CommandError, match="1 page\\(s\\) failed"):
        call_command("ingest", from_dir=tmp_path, quiet_progress=True, stdout=(out := StringIO()))
    assert "broken.json: page JSON must be an object" in out.getvalue()
    assert "unchanged       1" in out.getvalue()


def test_cli_refuses_bad_arguments_clearly(tmp_path):
    with pytest.raises(CommandError, match="not a directory"):
        call_command("ingest", from_dir=tmp_path / "missing")
    with pytest.raises(CommandError, match="no page files"):
        call_command("ingest", from_dir=tmp_path)
    with pytest.raises(CommandError, match="not a gov.uk path"):
        call_command("ingest", govuk=["//evil.example/x"])
