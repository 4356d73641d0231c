"""Every admin changelist and change page renders for a superuser and is refused to others."""

import pytest
from django.contrib import admin
from django.urls import reverse

from curation.models import BootstrapJob, DetectionRun, SupersedingCandidate
from knowledge.models import (
    ConceptAlias,
    ExtractionItem,
    ExtractionJob,
    ExtractionRun,
    IngestItem,
    QualityFlag,
    SnapshotLink,
    UnitSighting,
)
from knowledge.services.ingest import ingest_job_create
from navigator.models import AccessEvent, QueryLog
from navigator.services import api_token_create
from tests.factories import SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_of_each(db):
    unit = UnitFactory()
    ConceptAlias.objects.create(alias="test.old_name", concept=unit.concept)
    other = SnapshotFactory()
    UnitSighting.objects.create(
        unit=unit, source=other.source, snapshot=other, evidence_quote=other.text[:20]
    )
    SnapshotLink.objects.create(snapshot=other, target_path="/child-benefit", anchor_text="CB")
    job = ingest_job_create(kind="directory", refs=["a.json"], params={"root": "/tmp"})
    IngestItem.objects.create(job=job, ref="a.json", outcome="new", source=other.source)
    extraction = ExtractionJob.objects.create(provider="heuristic", total=1)
    run = ExtractionRun.objects.create(
        snapshot=other, job=extraction, provider="heuristic", prompt_version="heuristic-v1"
    )
    ExtractionItem.objects.create(
        run=run,
        snapshot=other,
        kind="rejected",
        reason_code="quote_not_found",
        reason="the evidence quote is not in the page text",
        proposal={"text": "x"},
    )
    QualityFlag.objects.create(unit=unit, kind="superseded_snapshot", reason="newer version")
    token, _ = api_token_create(name="admin test")
    QueryLog.objects.create(token=token, endpoint="/api/v1/search", status_code=200, query="isa")
    AccessEvent.objects.create(kind="login_failed", username="root", client_address="192.0.2.1")
    detection = DetectionRun.objects.create(provider="heuristic")
    BootstrapJob.objects.create(kind="propose", category=unit.concept.category)
    SupersedingCandidate.objects.create(
        older=unit,
        newer=UnitFactory(concept=unit.concept),
        concept=unit.concept,
        run=detection,
        text_similarity=0.9,
        cosine=0.9,
        same_rule=True,
        confidence=0.8,
        rationale="r",
        adjudicator="heuristic",
        newer_basis="later valid_from",
    )


def registered_models():
    return sorted(admin.site._registry, key=lambda model: model._meta.label)


def admin_urls():
    for model in registered_models():
        instance = model._default_manager.first()
        opts = model._meta
        yield reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        if instance is not None:
            yield reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[instance.pk])


def test_every_registered_model_has_an_instance(superuser, one_of_each):
    empty = [m._meta.label for m in registered_models() if not m._default_manager.exists()]
    assert empty == []


def test_superuser_sees_every_changelist_and_change_page(client, superuser, one_of_each):
    client.force_login(superuser)
    urls = list(admin_urls())
    assert len(urls) >= 2 * len(registered_models())
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url


def test_changelist_filters_render(client, superuser, one_of_each):
    client.force_login(superuser)
    url = reverse("admin:knowledge_atomicunit_changelist")
    for query in [
        "?temporal=current",
        "?temporal=historical",
        "?unit_type=rule",
        "?provider=manual",
    ]:
        assert client.get(url + query).status_code == 200, query


def test_anonymous_is_sent_to_login_everywhere(client, one_of_each):
    for url in admin_urls():
        response = client.get(url)
        assert response.status_code == 302, url
        assert reverse("admin:login") in response["Location"]


def test_domain_expert_can_view_units_but_not_edit_concepts(client, expert, one_of_each):
    client.force_login(expert)
    assert client.get(reverse("admin:knowledge_atomicunit_changelist")).status_code == 200
    assert client.get(reverse("admin:knowledge_concept_add")).status_code == 403


def test_editor_views_concepts_but_changes_them_on_the_taxonomy_screens(
    client, editor, one_of_each
):
    client.force_login(editor)
    assert client.get(reverse("admin:knowledge_concept_changelist")).status_code == 200
    assert client.get(reverse("admin:knowledge_concept_add")).status_code == 403


def test_snapshots_are_read_only_even_for_a_superuser(client, superuser, one_of_each):
    client.force_login(superuser)
    assert client.get(reverse("admin:knowledge_pagesnapshot_add")).status_code == 403


def test_home_page_shows_counts(client, one_of_each):
    response = client.get("/")
    assert response.status_code == 200
    assert b"atomic units" in response.content
