"""What the admin lets even a superuser do with records that jobs and services write."""

import pytest
from django.contrib import admin
from django.test import RequestFactory

from curation.models import DetectionRun, SupersedingCandidate
from knowledge.models import IngestItem, PageSnapshot, SnapshotLink, UnitSighting

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
