"""Quality job (heuristic) and editors' resolution of its flags."""

import pytest
from django.core.management import CommandError, call_command

from curation.models import AuditEvent
from curation.services.flags import flag_accept, flag_dismiss, flags_resolve_bulk
from curation.services.quality import quality_check
from curation.services.taxonomy import TaxonomyChangeRefused, taxonomy_change_revert
from knowledge.models import AtomicUnit, QualityFlag
from tests.factories import CategoryFactory, ConceptFactory, UnitFactory, axis_vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def isa():
    category = CategoryFactory(slug="isa_test")
    general = ConceptFactory(
        category=category, taxonomy_id="isa.allowance", embedding=axis_vector(0)
    )
    junior = ConceptFactory(
        category=category, taxonomy_id="isa.junior.allowance", embedding=axis_vector(1)
    )
    at_home = UnitFactory(concept=junior, embedding=axis_vector(1, 0.2))
    misplaced = UnitFactory(concept=junior, embedding=axis_vector(0, 0.2))  # points at general
    return general, junior, at_home, misplaced


def test_a_unit_nearer_another_concept_is_flagged_with_that_concept(isa):
    general, junior, at_home, misplaced = isa
    report = quality_check()
    flag = QualityFlag.objects.get()
    assert (flag.unit, flag.kind, flag.suggested_concept) == (misplaced, "misplaced", general)
    assert flag.raised_by == "heuristic" and flag.reason.startswith("Heuristic")
    assert flag.margin == pytest.approx(1.0, abs=0.05)
    assert (report.units_checked, report.flags_raised) == (2, 1)
    again = quality_check()  # idempotent
    assert (again.flags_raised, again.already_open, QualityFlag.objects.count()) == (0, 1, 1)


def test_a_dismissed_doubt_is_not_raised_again(isa, editor):
    quality_check()
    flag_dismiss(flag_id=QualityFlag.objects.get().pk, user=editor, note="belongs there")
    report = quality_check()
    assert (report.flags_raised, report.dismissed_before) == (0, 1)


def test_accepting_moves_the_unit_and_reverts_exactly(isa, editor):
    general, junior, at_home, misplaced = isa
    quality_check()
    flag = QualityFlag.objects.get()
    event = flag_accept(flag_id=flag.pk, user=editor)
    misplaced.refresh_from_db(), at_home.refresh_from_db()
    assert (misplaced.concept, misplaced.ordinal, at_home.ordinal) == (general, 1, 1)
    assert QualityFlag.objects.get().status == "accepted" and event.action == "flag.accept"
    taxonomy_change_revert(event_id=event.pk, user=editor)
    misplaced.refresh_from_db(), at_home.refresh_from_db()
    assert (misplaced.concept, misplaced.ordinal, at_home.ordinal) == (junior, 2, 1)
    assert QualityFlag.objects.get().status == "open"


def test_bulk_resolution_reports_what_it_skipped(isa, editor):
    quality_check()
    flag = QualityFlag.objects.get()
    outcome = flags_resolve_bulk(flag_ids=[flag.pk, flag.pk, 424242], accept=False, user=editor)
    assert outcome.done == [flag.pk] and list(outcome.skipped) == [424242]
    with pytest.raises(TaxonomyChangeRefused, match="already dismissed by editor1"):
        flag_accept(flag_id=flag.pk, user=editor)
    assert AuditEvent.objects.filter(action="flag.dismiss").count() == 1


def test_domain_experts_cannot_resolve_flags(isa, expert):
    from django.core.exceptions import PermissionDenied

    quality_check()
    with pytest.raises(PermissionDenied):
        flag_accept(flag_id=QualityFlag.objects.get().pk, user=expert)
    assert AtomicUnit.objects.get(pk=isa[3].pk).concept == isa[1]


def test_the_command_reports_and_refuses_bad_arguments(isa, capsys):
    call_command("check_quality")
    assert "1 misplaced flags raised" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no category"):
        call_command("check_quality", category="nope")
    with pytest.raises(CommandError, match="margin"):
        call_command("check_quality", margin=1.5)
