"""Freshness: a newer version of a page re-verifies its units; what it no longer states is
not served as current; a paragraph that moved keeps its units; an older capture stored late
changes nothing; the replay of a corpus's captures reports each step."""

import dataclasses
import datetime as dt
import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.utils import timezone

from knowledge import selectors
from knowledge.documents import document_from_json
from knowledge.models import AtomicUnit
from knowledge.retrieval import nearest_units
from knowledge.services import ingest
from knowledge.services.freshness import source_reverify
from tests.factories import ConceptFactory, UnitFactory, axis_vector

pytestmark = pytest.mark.django_db
URL = "https://www.gov.uk/carers-test-page"
RATE = "The weekly rate is £81.90 if you care for someone 35 hours a week."
CLAIM = "You can claim online or by post."


def page(*paragraphs: str, updated: str = "2024-04-06T09:00:00+01:00"):
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    data = {
        "url": URL,
        "title": "Carer's test page",
        "body_html": body,
        "public_updated_at": updated,
    }
    return document_from_json(data, origin=f"file:{updated}.json")


def unit_quoting(stored, quote: str, **fields) -> AtomicUnit:
    return UnitFactory(
        snapshot=stored.snapshot,
        evidence_quote=quote,
        text=quote,
        embedding=axis_vector(fields.pop("axis", 0)),
        **fields,
    )


def test_a_changed_figure_leaves_the_old_unit_unconfirmed_and_out_of_default_search():
    first = ingest.page_store(document=page(RATE, CLAIM))
    rate = unit_quoting(
        first, RATE, axis=0, unit_type="threshold", value_amount=81.90, value_unit="GBP"
    )
    claim = unit_quoting(first, CLAIM, axis=1)

    newer = ingest.page_store(
        document=page(RATE.replace("81.90", "83.30"), CLAIM, updated="2025-04-06T09:00:00+01:00")
    )

    assert newer.outcome == "changed" and newer.reverified is not None
    rate.refresh_from_db(), claim.refresh_from_db()
    assert rate.unconfirmed_at is not None and rate.snapshot_id == first.snapshot.pk
    assert claim.unconfirmed_at is None and claim.snapshot_id == newer.snapshot.pk
    today = timezone.localdate()
    shown = {
        row[0]
        for row in nearest_units(
            np.array(axis_vector(0)), floor=0.0, limit=10, category_ids=None, day=today
        )
    }
    assert rate.pk not in shown and claim.pk in shown
    historical = {
        row[0]
        for row in nearest_units(
            np.array(axis_vector(0)), floor=0.0, limit=10, category_ids=None, day=None
        )
    }
    assert rate.pk in historical  # include_historical still finds it, dated
    yesterday = dt.date(2025, 4, 5)  # the day before the newer version's date
    before = {
        row[0]
        for row in nearest_units(
            np.array(axis_vector(0)), floor=0.0, limit=10, category_ids=None, day=yesterday
        )
    }
    assert rate.pk in before  # a day before the page dropped it still sees it
    assert rate.unconfirmed_at.date() == dt.date(2025, 4, 6)  # from the newer version's date
    default = selectors.concept_units(concept=rate.concept, as_of=today, include_historical=False)
    assert rate.pk not in [unit.pk for unit, _ in default]


def test_a_unit_of_a_named_year_is_not_unconfirmed_within_that_year_by_an_older_page_date():
    # The current version's record carries a date years older than its text (gov.uk's record
    # of a page kept a 2014 date while its figures were 2024's): a unit the 2015-16 version
    # stated is the word on 2015-16, and is unconfirmed only after it.
    archived = dataclasses.replace(
        page(RATE, CLAIM, updated="2014-06-01T09:00:00+01:00"), period_hint="2015-16"
    )
    first = ingest.page_store(document=archived)
    rate = unit_quoting(first, RATE, unit_type="threshold", value_amount=81.90, value_unit="GBP")

    ingest.page_store(document=page(CLAIM, updated="2014-12-15T17:11:10+00:00"))

    rate.refresh_from_db()
    assert rate.unconfirmed_at.date() == dt.date(2016, 4, 6)


def test_a_moved_paragraph_keeps_its_unit_confirmed_with_new_offsets():
    first = ingest.page_store(document=page(RATE, CLAIM))
    claim = unit_quoting(first, CLAIM)
    old_start = claim.evidence_start

    newer = ingest.page_store(
        document=page("A new opening paragraph.", CLAIM, RATE, updated="2025-01-01T09:00:00+00:00")
    )

    claim.refresh_from_db()
    assert claim.unconfirmed_at is None and claim.confirmed_at is not None
    assert claim.snapshot_id == newer.snapshot.pk and claim.evidence_start != old_start
    text = newer.snapshot.text
    assert text[claim.evidence_start : claim.evidence_end] == claim.evidence_quote == CLAIM


def test_an_older_capture_stored_late_does_not_become_current_or_unconfirm_anything():
    newest = ingest.page_store(document=page(RATE, CLAIM, updated="2025-04-06T09:00:00+01:00"))
    rate = unit_quoting(newest, RATE)

    older = ingest.page_store(
        document=page("An old rate of £69.70.", updated="2020-04-06T09:00:00+01:00")
    )

    source = older.source
    source.refresh_from_db()
    assert source.current_snapshot_id == newest.snapshot.pk
    assert older.reverified is None
    rate.refresh_from_db()
    assert rate.unconfirmed_at is None and rate.snapshot_id == newest.snapshot.pk


def test_reverifying_twice_changes_nothing_more():
    first = ingest.page_store(document=page(RATE, CLAIM))
    unit_quoting(first, RATE)
    unit_quoting(first, CLAIM, axis=1)
    ingest.page_store(document=page(CLAIM, updated="2025-04-06T09:00:00+01:00"))
    states = list(
        AtomicUnit.objects.order_by("pk").values_list(
            "snapshot_id", "unconfirmed_at", "evidence_start"
        )
    )

    again = source_reverify(source_id=first.source.pk)

    assert again.moved == 0 and again.confirmed == 1 and len(again.unconfirmed) == 1
    assert (
        list(
            AtomicUnit.objects.order_by("pk").values_list(
                "snapshot_id", "unconfirmed_at", "evidence_start"
            )
        )
        == states
    )


def test_a_unit_the_new_version_already_states_is_confirmed_in_place_not_doubled():
    first = ingest.page_store(document=page(RATE, CLAIM))
    newer = ingest.page_store(document=page(CLAIM, RATE, updated="2025-04-06T09:00:00+01:00"))
    concept = ConceptFactory()
    own = unit_quoting(newer, CLAIM, concept=concept)  # the newer version's own extraction
    late = unit_quoting(first, CLAIM, concept=concept)  # the older version's, extracted late

    report = source_reverify(source_id=first.source.pk)

    late.refresh_from_db()
    assert report.moved == 0 and report.confirmed == 2
    assert late.snapshot_id == first.snapshot.pk and late.unconfirmed_at is None
    assert own.snapshot_id == newer.snapshot.pk


def test_the_replay_reports_each_step_and_serves_no_unit_without_its_quote(tmp_path, settings):
    settings.LLM_PROVIDER = "heuristic"
    for name, paragraphs, updated in (
        ("a-2023.json", [RATE, CLAIM], "2023-04-06T09:00:00+01:00"),
        ("a-2024.json", [RATE.replace("81.90", "83.30"), CLAIM], "2024-04-06T09:00:00+01:00"),
    ):
        body = "".join(f"<p>{text}</p>" for text in paragraphs)
        data = {
            "url": URL,
            "title": "Carer's Allowance",
            "body_html": body,
            "public_updated_at": updated,
        }
        (tmp_path / name).write_text(json.dumps(data))
    call_command("load_taxonomy", verbosity=0)
    out = StringIO()

    call_command("replay_history", str(tmp_path), stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[0].startswith("step  pages  changed")
    step_two = lines[2].split()
    assert step_two[:3] == ["2", "1", "1"]  # step 2: one page, changed
    assert (
        "served by default with a quote missing from the page's current version: 0"
        in out.getvalue()
    )


def test_one_404_is_a_warning_not_gone_and_a_good_fetch_clears_it():
    stored = ingest.page_store(document=page(RATE, CLAIM))

    source = ingest.source_record_failure(url=URL, gone=True, reason="gov.uk answered 404")

    assert source.status == "error" and source.failures_in_a_row == 1
    assert "failure 1 in a row: gone after 3 over 7 days" in source.status_reason
    ingest.page_store(document=page(RATE, CLAIM))  # the same page again
    source.refresh_from_db()
    assert (source.status, source.failures_in_a_row, source.failing_since) == ("ok", 0, None)
    assert source.current_snapshot_id == stored.snapshot.pk


def test_a_page_is_gone_after_failures_in_a_row_over_the_span(settings):
    settings.SOURCE_GONE_AFTER_FAILURES, settings.SOURCE_GONE_AFTER_DAYS = 3, 7
    ingest.page_store(document=page(RATE))
    for _ in range(3):
        source = ingest.source_record_failure(url=URL, gone=True, reason="404")
    assert source.status == "error"  # three failures, but all today
    source.failing_since = timezone.now() - dt.timedelta(days=8)
    source.save(update_fields=["failing_since"])

    source = ingest.source_record_failure(url=URL, gone=True, reason="404")

    assert source.status == "gone" and source.failures_in_a_row == 4


def test_the_refresh_keeps_checking_gone_pages():
    from knowledge.documents import GOVUK_ORIGIN
    from tests.factories import SnapshotFactory

    snapshot = SnapshotFactory(origin=f"{GOVUK_ORIGIN}/api/content/withdrawn-page")
    source = snapshot.source
    source.url, source.status, source.current_snapshot = (
        f"{GOVUK_ORIGIN}/withdrawn-page",
        "gone",
        snapshot,
    )
    source.save()

    job = ingest.refresh_job_create()

    assert "/withdrawn-page" in job.refs


def test_a_refresh_job_counts_the_units_it_confirmed_unconfirmed_and_added(tmp_path):
    first = ingest.page_store(document=page(RATE, CLAIM))
    unit_quoting(first, RATE)
    unit_quoting(first, CLAIM, axis=1)
    body = f"<p>{CLAIM}</p><p>A new rate of £83.30 a week.</p>"
    data = {
        "url": URL,
        "title": "Carer's test page",
        "body_html": body,
        "public_updated_at": "2025-04-06T09:00:00+01:00",
    }
    (tmp_path / "newer.json").write_text(json.dumps(data))
    job = ingest.directory_job_create(root=tmp_path)

    ingest.ingest_item_run(job_id=job.pk, ref="newer.json")

    progress = ingest.ingest_job_progress(job_id=job.pk)
    assert progress["counts"]["changed"] == 1
    assert progress["units"] == {"confirmed": 1, "unconfirmed": 1, "new": 0}


def test_an_experts_confirmation_stands_until_a_newer_version_comes():
    first = ingest.page_store(document=page(RATE, CLAIM))
    rate = unit_quoting(first, RATE)
    ingest.page_store(document=page(CLAIM, updated="2025-04-06T09:00:00+01:00"))
    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None
    AtomicUnit.objects.filter(pk=rate.pk).update(unconfirmed_at=None, confirmed_at=timezone.now())

    source_reverify(source_id=first.source.pk)  # e.g. an earlier version extracted late

    rate.refresh_from_db()
    assert rate.unconfirmed_at is None
    ingest.page_store(document=page("Something else.", updated="2026-04-06T09:00:00+01:00"))
    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None  # the next version does not state it either
