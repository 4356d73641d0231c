"""Extraction again over pages read before: experts' work stays as they left it, machine units
found again keep their id and place, those no longer found are retired (audited)."""

from io import StringIO

import pytest
from django.core.management import call_command

from curation.models import AuditEvent
from curation.services.audit import audit_revert
from curation.services.taxonomy import units_move
from curation.services.units import unit_correct
from knowledge.models import AtomicUnit, ExtractionRun
from knowledge.services import extract
from tests.knowledge.test_extract import ScriptedProvider, unit
from tests.knowledge.test_extract import isa_page as isa_page  # the fixture

pytestmark = pytest.mark.django_db

ALLOWANCE = {"evidence_quote": "you can save up to £20,000 in one account"}
LIFETIME = {
    "unit_type": "rule",
    "text": "You can have one Lifetime ISA.",
    "concept_id": "isa.lifetime.rules",
    "evidence_quote": "You’re allowed one Lifetime ISA.",
    "value_amount": None,
    "value_unit": None,
    "value_period": None,
}


def first_run(page, *proposals):
    return extract.snapshot_extract(snapshot_id=page.pk, provider=ScriptedProvider(list(proposals)))


def again(page, *proposals, job=1):
    provider = ScriptedProvider(list(proposals))
    return extract.snapshot_extract(snapshot_id=page.pk, provider=provider, again_in_job=job)


def living(page):
    return list(AtomicUnit.objects.alive().filter(snapshot=page).order_by("pk"))


def test_a_corrected_unit_stays_and_the_new_finding_on_its_quote_is_a_sighting(isa_page, expert):
    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    allowance = AtomicUnit.objects.get(concept__taxonomy_id="isa.annual_allowance")
    unit_correct(unit_id=allowance.pk, user=expert, valid_from="2025-04-06", valid_to="2026-04-05")
    run = again(isa_page, unit(**ALLOWANCE, text="Save up to £20,000 each tax year."))
    kept = AtomicUnit.objects.get(pk=allowance.pk)
    assert (kept.text, str(kept.valid_to)) == (
        "You can save up to £20,000 a tax year.",
        "2026-04-05",
    )
    assert kept.deleted_at is None and kept.corrected_by == expert
    assert [u.pk for u in living(isa_page)] == [allowance.pk]  # nothing beside it
    assert list(run.summary["kept_for_experts"]) == [str(allowance.pk)]
    lifetime = AtomicUnit.objects.get(concept__taxonomy_id="isa.lifetime.rules")
    assert lifetime.deleted_at is not None and run.summary["retired"] == [lifetime.pk]
    event = AuditEvent.objects.get(action="extraction.retire")
    assert event.actor is None and str(lifetime.pk) in event.summary
    audit_revert(event_id=event.pk, user=expert, permission="knowledge.change_atomicunit")
    assert AtomicUnit.objects.get(pk=lifetime.pk).deleted_at is None


def test_a_machine_unit_found_again_keeps_its_id_and_an_editors_move(isa_page, editor):
    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    lifetime = AtomicUnit.objects.get(concept__taxonomy_id="isa.lifetime.rules")
    allowance_concept = AtomicUnit.objects.get(pk__lt=lifetime.pk).concept
    units_move(unit_ids=[lifetime.pk], concept_id=allowance_concept.pk, user=editor)
    run = again(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    assert [u.pk for u in living(isa_page)] == sorted([lifetime.pk, lifetime.pk - 1])
    assert AtomicUnit.objects.get(pk=lifetime.pk).concept == allowance_concept
    assert run.summary["found_again"] == 2 and run.summary["retired"] == []
    assert run.units_made == 0


def test_a_signed_off_unit_no_longer_found_is_not_retired(isa_page, expert):
    from curation.services.signoff import unit_signoff

    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    lifetime = AtomicUnit.objects.get(concept__taxonomy_id="isa.lifetime.rules")
    unit_signoff(unit_id=lifetime.pk, user=expert)
    run = again(isa_page, unit(**ALLOWANCE))
    assert lifetime.pk in [u.pk for u in living(isa_page)] and run.summary["retired"] == []


def test_extraction_again_is_idempotent_within_its_job(isa_page):
    first_run(isa_page, unit(**ALLOWANCE))
    run = again(isa_page, unit(**ALLOWANCE, text="Save up to £20,000 each tax year."), job=7)
    same = again(isa_page, unit(**ALLOWANCE, text="Something else entirely."), job=7)
    assert same.pk == run.pk and [u.text for u in living(isa_page)] == [
        "Save up to £20,000 each tax year."
    ]
    assert ExtractionRun.objects.filter(snapshot=isa_page).count() == 2


def test_the_command_extracts_again_and_reports_what_it_kept_and_retired(
    isa_page, expert, monkeypatch
):
    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    allowance = AtomicUnit.objects.get(concept__taxonomy_id="isa.annual_allowance")
    unit_correct(unit_id=allowance.pk, user=expert, unit_type="rule")
    provider = ScriptedProvider([unit(**ALLOWANCE, text="A newer reading of the allowance.")])
    monkeypatch.setattr("knowledge.management.commands.extract.get_provider", lambda _: provider)
    monkeypatch.setattr("knowledge.services.extract.get_provider", lambda _=None: provider)
    out = StringIO()
    call_command("extract", "--all", "--again", "--quiet-progress", stdout=out)
    assert "again over earlier runs" in out.getvalue()
    assert "1 experts' units kept as they left them" in out.getvalue()
    assert "1 machine units no longer found retired" in out.getvalue()
    assert [u.pk for u in living(isa_page)] == [allowance.pk]


def test_a_statement_a_decision_took_out_is_not_brought_back(isa_page, expert):
    from django.utils import timezone

    from curation.services.superseding import unit_soft_delete

    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    lifetime = AtomicUnit.objects.get(concept__taxonomy_id="isa.lifetime.rules")
    unit_soft_delete(lifetime, user=expert, now=timezone.now())  # as a dedup merge or flag does
    run = again(isa_page, unit(**ALLOWANCE), unit(**LIFETIME), job=3)
    assert [u.concept.taxonomy_id for u in living(isa_page)] == ["isa.annual_allowance"]
    assert run.summary["left_out_by_decisions"] == 1 and run.units_made == 0


def test_what_an_earlier_run_retired_comes_back_when_found_again(isa_page):
    first_run(isa_page, unit(**ALLOWANCE), unit(**LIFETIME))
    assert again(isa_page, unit(**ALLOWANCE), job=3).summary["retired"] != []
    back = again(isa_page, unit(**ALLOWANCE), unit(**LIFETIME), job=4)
    assert back.units_made == 1 and back.summary["left_out_by_decisions"] == 0
    assert len(living(isa_page)) == 2


def test_the_machines_first_reading_does_not_come_back_beside_an_experts_rewrite(isa_page, expert):
    first_run(isa_page, unit(**ALLOWANCE))
    allowance = AtomicUnit.objects.get()
    elsewhere = isa_page.text.index("You’re allowed")
    unit_correct(
        unit_id=allowance.pk,
        user=expert,
        text="Only one Lifetime ISA is allowed.",
        evidence_start=elsewhere,
        evidence_end=len(isa_page.text),
    )
    run = again(isa_page, unit(**ALLOWANCE))  # the machine reads the allowance as before
    assert [u.pk for u in living(isa_page)] == [allowance.pk] and run.units_made == 0
    assert AtomicUnit.objects.get(pk=allowance.pk).text == "Only one Lifetime ISA is allowed."


def test_the_first_extraction_of_a_new_version_adds_nothing_beside_a_correction(isa_page, expert):
    from tests.factories import SnapshotFactory

    first_run(isa_page, unit(**ALLOWANCE))
    allowance = AtomicUnit.objects.get()
    unit_correct(unit_id=allowance.pk, user=expert, text="Save up to £20,000 a tax year.")
    newer = SnapshotFactory(source=isa_page.source, text=isa_page.text + "\nA new line.")
    run = first_run(newer, unit(**ALLOWANCE))
    assert run.units_made == 0 and list(AtomicUnit.objects.alive()) == [allowance]


def test_a_unit_moved_onto_a_newer_version_is_its_first_versions_to_retire(isa_page):
    from tests.factories import SnapshotFactory

    first_run(isa_page, unit(**ALLOWANCE))
    made = AtomicUnit.objects.get()
    newer = SnapshotFactory(source=isa_page.source, text=isa_page.text + "\nUpdated.")
    AtomicUnit.objects.filter(pk=made.pk).update(snapshot=newer)  # as freshness moves it
    assert again(newer, unit(**LIFETIME), job=3).summary["retired"] == []
    assert again(isa_page, unit(**LIFETIME), job=3).summary["retired"] == [made.pk]
