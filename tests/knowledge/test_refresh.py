"""The nightly refresh: changed pages are fetched and extracted, then embedded once, so the
superseding detector runs once per refresh, not once per page."""

import copy
import json
from pathlib import Path

import pytest

from curation.models import DetectionRun
from knowledge import tasks
from knowledge.documents import GOVUK_ORIGIN, document_from_json
from knowledge.models import AtomicUnit, IngestItem, IngestJob
from knowledge.services.ingest import page_store
from knowledge.services.taxonomy import taxonomy_load_file
from tests.knowledge import test_govuk

# The loopback gov.uk and the client wired to it, from the gov.uk door's own tests.
govuk_server, make_rig, rig = test_govuk.govuk_server, test_govuk.make_rig, test_govuk.rig
no_real_govuk = test_govuk.no_real_govuk
json_reply = test_govuk.json_reply

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
PAGES = ["child-benefit.json", "income-tax-rates.json", "lifetime-isa.json"]


def stored_then_changed_on_govuk(name: str, govuk_server) -> None:
    """A page ingested earlier from the Content API, which gov.uk now serves changed."""
    page = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    page_store(
        document=document_from_json(page, origin=f"{GOVUK_ORIGIN}/api/content{page['base_path']}")
    )
    changed = copy.deepcopy(page)
    changed["details"]["parts"][0]["body"] += "<p>This guide was checked again in 2026.</p>"
    govuk_server.script(f"/api/content{page['base_path']}", json_reply(changed))


def test_a_refresh_of_several_changed_pages_starts_one_detector_run(
    rig, govuk_server, django_capture_on_commit_callbacks
):
    taxonomy_load_file()
    for name in PAGES:
        stored_then_changed_on_govuk(name, govuk_server)
    with django_capture_on_commit_callbacks(execute=True):
        job_id = tasks.refresh_all_sources.delay().get()
    job = IngestJob.objects.get(pk=job_id)
    assert job.status == IngestJob.Status.FINISHED
    assert list(job.items.values_list("outcome", flat=True)) == [IngestItem.Outcome.CHANGED] * 3
    changed = job.items.values_list("snapshot", flat=True)
    for snapshot_id in changed:  # every page was extracted and embedded
        units = AtomicUnit.objects.filter(snapshot_id=snapshot_id)
        assert units.exists() and not units.filter(embedding__isnull=True).exists()
    assert DetectionRun.objects.count() == 1
