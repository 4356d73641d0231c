"""Dedup: near-identical units across pages merge, keeping every page in also_found_in."""

import datetime as dt
import json

import pytest
from django.core.management import CommandError, call_command

from curation.models import AuditEvent
from curation.services.dedup import units_dedup
from curation.services.taxonomy import taxonomy_change_revert
from knowledge.models import AtomicUnit, UnitSighting
from tests.factories import ConceptFactory, SnapshotFactory, SourceFactory, UnitFactory

pytestmark = pytest.mark.django_db
TEXT = "You can save up to £20,000 in ISAs in the 2025 to 2026 tax year."


def _on_page(concept, url, text=TEXT, **fields):
    snapshot = SnapshotFactory(source=SourceFactory(url=url), text=f"Intro. {text} More.")
    return UnitFactory(
        concept=concept,
        snapshot=snapshot,
        evidence_quote=text,
        text=text,
        valid_from=dt.date(2025, 4, 6),
        **fields,
    )


def test_the_same_rule_on_three_pages_becomes_one_unit_found_on_all(editor):
    concept = ConceptFactory()
    units = [_on_page(concept, f"https://www.gov.uk/isa-{n}") for n in range(3)]
    other = _on_page(concept, "https://www.gov.uk/isa-x", text=TEXT.replace("20,000", "20,001"))
    report = units_dedup(user=editor)
    alive = list(AtomicUnit.objects.alive().filter(concept=concept).order_by("ordinal"))
    assert len(alive) == 2 and other in alive
    kept = next(u for u in alive if u != other)
    assert sorted(s.source.url for s in kept.sightings.all()) == [
        u.source.url for u in units if u != kept
    ]
    assert [u.ordinal for u in alive] == [1, 2]
    assert report.units_removed == 2 and len(report.groups) == 1
    assert units_dedup(user=editor).units_removed == 0  # idempotent


def test_amounts_dates_or_validity_that_differ_never_merge(editor):
    concept = ConceptFactory()
    _on_page(concept, "https://www.gov.uk/a")
    _on_page(concept, "https://www.gov.uk/b", text=TEXT.replace("£20,000", "£20,500"))
    _on_page(concept, "https://www.gov.uk/c", text=TEXT.replace("2025 to 2026", "2024 to 2025"))
    late = _on_page(concept, "https://www.gov.uk/d")
    AtomicUnit.objects.filter(pk=late.pk).update(valid_from=dt.date(2026, 4, 6))
    assert units_dedup(user=editor).units_removed == 0


def test_a_merge_reverts_exactly(editor):
    concept = ConceptFactory()
    first = _on_page(concept, "https://www.gov.uk/a")
    second = _on_page(concept, "https://www.gov.uk/b")
    units_dedup(user=editor)
    event = AuditEvent.objects.get(action="dedup.merge")
    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert AtomicUnit.objects.alive().filter(pk__in=[first.pk, second.pk]).count() == 2
    assert sorted(AtomicUnit.objects.filter(concept=concept).values_list("ordinal", flat=True)) == [
        1,
        2,
    ]
    assert not UnitSighting.objects.exists()


def test_units_in_a_superseding_chain_are_left_alone(editor):
    concept = ConceptFactory()
    first = _on_page(concept, "https://www.gov.uk/a")
    _on_page(concept, "https://www.gov.uk/b")
    newer = _on_page(concept, "https://www.gov.uk/c", text=TEXT.replace("20,000", "21,000"))
    AtomicUnit.objects.filter(pk=newer.pk).update(valid_from=dt.date(2026, 4, 6))
    AtomicUnit.objects.filter(pk=first.pk).update(
        superseded_by=newer, superseded_date=dt.date(2026, 4, 6)
    )
    report = units_dedup(user=editor)
    assert report.units_removed == 0 and report.skipped_in_chains == 2


def test_the_command_reports_dry_runs_and_refuses_unknown_concepts(editor, tmp_path, capsys):
    concept = ConceptFactory()
    _on_page(concept, "https://www.gov.uk/a"), _on_page(concept, "https://www.gov.uk/b")
    call_command("dedup_units", dry_run=True, json=tmp_path / "r.json")
    assert "[dry run]" in capsys.readouterr().out
    assert AtomicUnit.objects.alive().count() == 2
    assert json.loads((tmp_path / "r.json").read_text())["units_removed"] == 1
    call_command("dedup_units", concept=concept.taxonomy_id)
    assert "1 duplicates removed" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no concept"):
        call_command("dedup_units", concept="no.such")


def test_a_merge_keeps_the_experts_corrected_unit_as_they_left_it(editor, expert):
    from curation.services.units import unit_correct

    concept = ConceptFactory()
    first, second = (_on_page(concept, f"https://www.gov.uk/isa-{n}") for n in range(2))
    unit_correct(unit_id=second.pk, user=expert, unit_type="threshold")
    # the correction made them differ in type; the machine's duplicate of the same type merges
    AtomicUnit.objects.filter(pk=first.pk).update(unit_type="threshold")
    report = units_dedup(user=editor)
    kept = AtomicUnit.objects.get(pk=second.pk)
    assert report.units_removed == 1 and kept.deleted_at is None
    assert (kept.corrected_by, kept.unit_type) == (expert, "threshold")
    assert AtomicUnit.objects.get(pk=first.pk).deleted_at is not None


def test_two_experts_corrections_of_one_statement_are_left_to_them(editor, expert):
    from curation.services.units import unit_correct

    concept = ConceptFactory()
    units = [_on_page(concept, f"https://www.gov.uk/isa-{n}") for n in range(2)]
    for unit in units:
        unit_correct(unit_id=unit.pk, user=expert, validity_basis="set by an expert")
    report = units_dedup(user=editor)
    assert report.units_removed == 0 and report.left_for_experts == 1


def test_a_corrected_unit_is_kept_over_a_signed_off_duplicate(editor, expert):
    from curation.services.signoff import unit_signoff
    from curation.services.units import unit_correct

    concept = ConceptFactory()
    corrected, signed = (_on_page(concept, f"https://www.gov.uk/isa-{n}") for n in range(2))
    unit_correct(unit_id=corrected.pk, user=expert, validity_basis="set by an expert")
    AtomicUnit.objects.filter(pk=signed.pk).update(validity_basis="set by an expert")
    unit_signoff(unit_id=signed.pk, user=expert)
    units_dedup(user=editor)
    assert AtomicUnit.objects.get(pk=corrected.pk).deleted_at is None
    assert AtomicUnit.objects.get(pk=signed.pk).deleted_at is not None
