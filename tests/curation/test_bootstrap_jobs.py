"""Proposing concepts and re-extracting a category from the bootstrap screen: queued as jobs
(after the request's commit) that a worker runs, never LLM work inside the web request; the
screen answers at once with a link to the job, and the jobs screen shows its progress."""

import shutil
from pathlib import Path

import pytest
from django.urls import reverse

from curation.models import BootstrapJob
from curation.services import bootstrap as bootstrap_services
from curation.services.bootstrap_jobs import bootstrap_job_run
from curation.services.bootstrap_queue import bootstrap_reextract_job_create
from curation.services.taxonomy import concept_approve
from knowledge.models import AtomicUnit, Concept
from knowledge.services import ingest
from tests.factories import CategoryFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
PAGE = "https://www.gov.uk/lifetime-isa"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def new_category(tmp_path):
    """A category with no taxonomy and one real page of its own."""
    shutil.copy(FIXTURES / "lifetime-isa.json", tmp_path / "lifetime-isa.json")
    job = ingest.directory_job_create(root=tmp_path)
    for ref in job.refs:
        ingest.ingest_item_run(job_id=job.pk, ref=ref)
    return CategoryFactory(slug="lifetime_isa_new", name="Lifetime ISA (new)")


@pytest.fixture
def reextractions(monkeypatch):
    """Every page extraction the re-extraction asks for (the provider's work), recorded."""
    calls = []
    real = bootstrap_services.snapshot_reextract_for_category

    def recorded(**kwargs):
        calls.append(kwargs["snapshot_id"])
        return real(**kwargs)

    monkeypatch.setattr(bootstrap_services, "snapshot_reextract_for_category", recorded)
    return calls


def _approve_some(category, editor):
    bootstrap_services.concepts_bootstrap(
        category_slug=category.slug, url_prefixes=[PAGE], prefix="lisa"
    )
    for concept in Concept.objects.filter(category=category)[:3]:
        concept_approve(concept_id=concept.pk, user=editor)


def test_re_extraction_is_queued_and_no_page_is_extracted_inside_the_request(
    client, editor, new_category, reextractions, django_capture_on_commit_callbacks
):
    _approve_some(new_category, editor)
    client.force_login(editor)
    url = reverse("curation:taxonomy-bootstrap-reextract", args=[new_category.slug])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(url, {"url_prefixes": PAGE}, **HTMX)

    assert response.status_code == 200 and reextractions == []
    job = BootstrapJob.objects.get()
    assert (job.kind, job.status, job.params) == ("reextract", "queued", {"url_prefixes": [PAGE]})
    page = response.content.decode()
    assert f"queued as job #{job.pk}" in page
    assert f'href="{reverse("curation:jobs")}#bootstrap-job-{job.pk}"' in page
    assert len(queued) == 1

    queued[0]()  # the worker (Celery runs eagerly in tests)
    job.refresh_from_db()
    assert len(reextractions) == 1
    assert (job.status, job.done, job.total) == ("finished", 1, 1)
    made = AtomicUnit.objects.filter(concept__category=new_category).count()
    assert made > 0 and f"{made} new unit(s)" in job.outcome


def test_proposing_is_queued_and_reads_no_page_inside_the_request(
    client, editor, new_category, django_capture_on_commit_callbacks
):
    client.force_login(editor)
    url = reverse("curation:taxonomy-bootstrap-propose", args=[new_category.slug])
    data = {"url_prefixes": PAGE, "prefix": "lisa", "limit": "5"}
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(url, data, **HTMX)

    assert response.status_code == 200
    assert not Concept.objects.filter(category=new_category).exists()
    job = BootstrapJob.objects.get()
    assert f"queued as job #{job.pk}" in response.content.decode()
    queued[0]()
    job.refresh_from_db()
    proposed = Concept.objects.filter(category=new_category, status="proposed")
    assert job.status == "finished" and 1 <= proposed.count() <= 5
    assert job.outcome.startswith("Read 1 page(s): proposed")


def test_what_would_be_refused_is_refused_at_once_and_queues_nothing(client, editor, new_category):
    client.force_login(editor)
    reextract = reverse("curation:taxonomy-bootstrap-reextract", args=[new_category.slug])
    page = client.post(reextract, {}, **HTMX).content.decode()
    assert "Nothing was re-extracted" in page and "approve some concepts first" in page
    propose = reverse("curation:taxonomy-bootstrap-propose", args=[new_category.slug])
    page = client.post(propose, {"limit": "99"}, **HTMX).content.decode()
    assert "limit: between 1 and 40" in page
    assert not BootstrapJob.objects.exists()


def test_a_job_refused_when_it_runs_is_recorded_as_failed_and_shown(client, editor, new_category):
    _approve_some(new_category, editor)
    job = bootstrap_reextract_job_create(category_slug=new_category.slug, user=editor)
    Concept.objects.filter(category=new_category).update(status="retired")

    bootstrap_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and "approve some concepts first" in job.error
    client.force_login(editor)
    page = client.get(reverse("curation:jobs")).content.decode()
    assert f'id="bootstrap-job-{job.pk}"' in page and "approve some concepts first" in page


def test_a_redelivered_job_runs_once(editor, new_category, reextractions):
    _approve_some(new_category, editor)
    job = BootstrapJob.objects.create(
        kind="reextract", category=new_category, created_by=editor, params={"url_prefixes": [PAGE]}
    )
    bootstrap_job_run(job_id=job.pk)
    bootstrap_job_run(job_id=job.pk)
    assert len(reextractions) == 1


def test_an_unfinished_job_polls_its_progress_and_a_finished_one_stops(
    client, editor, new_category
):
    job = BootstrapJob.objects.create(
        kind="reextract",
        category=new_category,
        created_by=editor,
        status="running",
        total=4,
        done=1,
    )
    client.force_login(editor)
    url = reverse("curation:bootstrap-job-progress", args=[job.pk])
    fragment = client.get(url).content.decode()
    assert fragment.lstrip().startswith(f'<tbody class="job" id="bootstrap-job-{job.pk}"')
    assert 'hx-trigger="every 1s"' in fragment and "1/4" in fragment
    BootstrapJob.objects.filter(pk=job.pk).update(status="finished", done=4, outcome="Done it.")
    fragment = client.get(url).content.decode()
    assert "hx-trigger" not in fragment and "Done it." in fragment
    assert client.get(reverse("curation:bootstrap-job-progress", args=[999])).status_code == 404


def test_creating_a_job_queues_its_task_once_committed(
    editor, new_category, reextractions, django_capture_on_commit_callbacks
):
    """The service queues the task, not the screen, and only when the job is committed."""
    _approve_some(new_category, editor)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        job = bootstrap_reextract_job_create(
            category_slug=new_category.slug, user=editor, url_prefixes=[PAGE]
        )
        assert queued == []  # nothing before the commit

    assert len(queued) == 1
    queued[0]()
    job.refresh_from_db()
    assert job.status == "finished" and len(reextractions) == 1
