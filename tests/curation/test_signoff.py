"""Signing off a unit: the domain experts' service, audited and revertible; editors refused."""

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from curation.models import AuditEvent
from curation.selectors.changes import taxonomy_changes_recent
from curation.selectors.review import unit_signoffs
from curation.services.audit import RevertRefused
from curation.services.signoff import SignoffRefused, unit_signoff, unit_signoff_revert
from curation.services.taxonomy import TaxonomyChangeRefused, taxonomy_change_revert
from knowledge.models import AtomicUnit
from tests.factories import UnitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def unit():
    return UnitFactory()


def status_of(unit) -> str:
    unit.refresh_from_db()
    return unit.review_status


def test_an_expert_signs_off_a_unit_with_an_audit_entry(unit, expert):
    event = unit_signoff(unit_id=unit.pk, user=expert, note="checked against the page")
    assert status_of(unit) == AtomicUnit.ReviewStatus.APPROVED
    assert (event.action, event.actor, event.note) == (
        "signoff.unit",
        expert,
        "checked against the page",
    )
    assert (event.target_type, event.target_id) == ("atomicunit", unit.pk)
    assert event.before == {"unit": {str(unit.pk): {"review_status": "pending"}}}
    assert event.after == {"unit": {str(unit.pk): {"review_status": "approved"}}}
    signoff = unit_signoffs(unit_ids=[unit.pk])[unit.pk]
    assert (signoff.by, signoff.at, signoff.event_id) == ("expert1", event.created_at, event.pk)


def test_a_revert_restores_pending_and_is_itself_recorded(unit, expert):
    event = unit_signoff(unit_id=unit.pk, user=expert)
    revert = unit_signoff_revert(event_id=event.pk, user=expert)
    assert status_of(unit) == AtomicUnit.ReviewStatus.PENDING
    assert revert.action == "signoff.unit.revert" and revert.reverts == event
    assert unit_signoffs(unit_ids=[unit.pk]) == {}
    with pytest.raises(RevertRefused, match="reverted already"):
        unit_signoff_revert(event_id=event.pk, user=expert)
    again = unit_signoff(unit_id=unit.pk, user=expert)  # may be signed off again
    assert unit_signoffs(unit_ids=[unit.pk])[unit.pk].event_id == again.pk


def test_editors_and_other_users_are_refused(unit, editor, expert, django_user_model):
    nobody = django_user_model.objects.create_user("staff", password="pw-123456", is_staff=True)
    for user in (editor, nobody):
        with pytest.raises(PermissionDenied):
            unit_signoff(unit_id=unit.pk, user=user)
    assert status_of(unit) == AtomicUnit.ReviewStatus.PENDING
    event = unit_signoff(unit_id=unit.pk, user=expert)
    with pytest.raises(PermissionDenied):
        unit_signoff_revert(event_id=event.pk, user=editor)
    # Nor through the editors' change log, which reverts only editors' changes.
    assert event not in taxonomy_changes_recent()
    with pytest.raises((PermissionDenied, TaxonomyChangeRefused, AuditEvent.DoesNotExist)):
        taxonomy_change_revert(event_id=event.pk, user=editor)
    assert status_of(unit) == AtomicUnit.ReviewStatus.APPROVED


def test_a_second_sign_off_says_who_signed_off_first_and_changes_nothing(unit, expert):
    first = unit_signoff(unit_id=unit.pk, user=expert)
    with pytest.raises(SignoffRefused, match="already signed off by expert1"):
        unit_signoff(unit_id=unit.pk, user=expert)
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [first.pk]


def test_a_removed_unit_is_not_signed_off(unit, expert):
    AtomicUnit.objects.filter(pk=unit.pk).update(deleted_at=timezone.now(), ordinal=None)
    with pytest.raises(SignoffRefused, match="removed"):
        unit_signoff(unit_id=unit.pk, user=expert)
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize("note", ["x" * 2001, "a\x00b"])
def test_a_bad_note_is_refused_by_name(unit, expert, note):
    with pytest.raises(SignoffRefused, match="^note: "):
        unit_signoff(unit_id=unit.pk, user=expert, note=note)
    assert status_of(unit) == AtomicUnit.ReviewStatus.PENDING


def test_an_unknown_unit_is_said_so(expert):
    with pytest.raises(AtomicUnit.DoesNotExist):
        unit_signoff(unit_id=999_999, user=expert)


def test_only_sign_offs_are_reverted_here(unit, expert, editor):
    from curation.services.taxonomy import concept_edit

    edit = concept_edit(concept_id=unit.concept_id, name="N", description="D", user=editor)
    with pytest.raises(SignoffRefused, match="only sign-offs"):
        unit_signoff_revert(event_id=edit.pk, user=expert)
