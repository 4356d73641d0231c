"""What the admin lets even a superuser do with records that jobs and services write, and
that only superusers change the knowledge base there (everyone else goes through the audited
services)."""

import datetime as dt

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse

from curation.models import DetectionRun, SupersedingCandidate
from knowledge.models import (
    AtomicUnit,
    Category,
    Concept,
    ConceptAlias,
    IngestItem,
    PageSnapshot,
    SnapshotLink,
    UnitSighting,
)
from tests.factories import UnitFactory

VIEW_ONLY = [UnitSighting, SnapshotLink, IngestItem]  # may be deleted, never edited
READ_ONLY = [PageSnapshot, DetectionRun, SupersedingCandidate]  # evidence and audit


@pytest.mark.parametrize("model", VIEW_ONLY + READ_ONLY)
def test_job_written_records_are_never_added_or_edited_in_the_admin(superuser, model):
    request = RequestFactory().get("/admin/")
    request.user = superuser
    model_admin = admin.site._registry[model]
    assert model_admin.has_view_permission(request)
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert model_admin.has_delete_permission(request) == (model in VIEW_ONLY)


# --- the knowledge base itself: changed through the audited services, not the admin ----------

KNOWLEDGE = [Concept, AtomicUnit, Category, ConceptAlias]


@pytest.mark.parametrize("model", KNOWLEDGE)
def test_knowledge_records_are_read_only_in_the_admin_but_for_superusers(
    editor, expert, superuser, model
):
    model_admin = admin.site._registry[model]
    for user in (editor, expert):
        request = RequestFactory().get("/admin/")
        request.user = user
        assert model_admin.has_view_permission(request)
        assert not model_admin.has_add_permission(request)
        assert not model_admin.has_change_permission(request)
        assert not model_admin.has_delete_permission(request)
    request = RequestFactory().get("/admin/")
    request.user = superuser
    assert model_admin.has_add_permission(request)
    assert model_admin.has_change_permission(request)


@pytest.fixture
def unit(db):
    unit = UnitFactory(valid_from=dt.date(2024, 4, 6))
    ConceptAlias.objects.create(alias="test.old_name", concept=unit.concept)
    return unit


def unit_form(unit, **changes) -> dict:
    data = {
        "concept": unit.concept_id,
        "ordinal": unit.ordinal,
        "unit_type": unit.unit_type,
        "text": unit.text,
        "value_amount": "",
        "value_unit": "",
        "value_period": "",
        "valid_from": "2024-04-06",
        "valid_to": "",
        "example_of": "",
        "review_status": unit.review_status,
        "validity_basis": "",
        "sightings-TOTAL_FORMS": "0",
        "sightings-INITIAL_FORMS": "0",
    }
    return data | changes


def concept_form(concept, **changes) -> dict:
    data = {
        "taxonomy_id": concept.taxonomy_id,
        "category": concept.category_id,
        "name": concept.name,
        "description": concept.description,
        "status": concept.status,
        "aliases-TOTAL_FORMS": "0",
        "aliases-INITIAL_FORMS": "0",
    }
    return data | changes


def test_an_editors_post_to_the_admin_changes_nothing(client, editor, unit):
    client.force_login(editor)
    concept, text = unit.concept, unit.text
    unit_url = reverse("admin:knowledge_atomicunit_change", args=[unit.pk])
    posted = unit_form(
        unit, text="Edited around the audit.", valid_to="2025-04-05", review_status="approved"
    )
    assert client.post(unit_url, posted).status_code == 403
    concept_url = reverse("admin:knowledge_concept_change", args=[concept.pk])
    posted = concept_form(concept, taxonomy_id="test.renamed_quietly")
    assert client.post(concept_url, posted).status_code == 403
    alias = concept.aliases.get()
    alias_url = reverse("admin:knowledge_conceptalias_delete", args=[alias.pk])
    assert client.post(alias_url, {"post": "yes"}).status_code == 403
    assert client.get(unit_url).status_code == 200  # still readable
    unit.refresh_from_db()
    concept.refresh_from_db()
    assert (unit.text, unit.valid_to, unit.review_status) == (text, None, "pending")
    assert concept.taxonomy_id != "test.renamed_quietly"
    assert ConceptAlias.objects.filter(pk=alias.pk).exists()


def test_a_superuser_may_still_change_records_in_the_admin(client, superuser, unit):
    client.force_login(superuser)
    concept = unit.concept
    url = reverse("admin:knowledge_concept_change", args=[concept.pk])
    response = client.post(url, concept_form(concept, name="Renamed by the superuser"))
    assert response.status_code == 302, response.content[:2000]
    concept.refresh_from_db()
    assert concept.name == "Renamed by the superuser"
