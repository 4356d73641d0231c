"""Experts' and editors' decisions on units a newer version of their page no longer states:
confirm (the unit still holds and is served again) or retire (it leaves the knowledge base,
as a flag-for-deletion decision takes it out). Superseding is decided on the review screen.

Each decision is one transaction with one audit event, revertible from it. Two people
deciding the same unit: the unit's row is locked and its state checked, so the second is told
it was decided already.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from curation.models import AuditEvent
from curation.roles import require_role
from curation.services.audit import (
    audit_record,
    audit_revert,
    last_decided_by,
    note_checked,
    states_of,
)
from curation.services.locks import atomic_or_refused, concepts_lock
from curation.services.superseding import DECIDE_PERMISSION, unit_soft_delete
from curation.services.taxonomy import EDIT_PERMISSION
from knowledge.models import AtomicUnit, Source

# Not prefixes of the editors' or experts' actions: their logs neither list nor revert these.
CONFIRM_ACTION = "freshness.confirm"
RETIRE_ACTION = "freshness.retire"
FRESHNESS_FIELDS = ("confirmed_at", "unconfirmed_at")


class FreshnessDecisionRefused(ValueError):
    """The unit cannot be confirmed or retired (or the decision reverted) as asked; says why."""


def require_change_reviewer(user) -> None:
    require_role(user, DECIDE_PERMISSION, EDIT_PERMISSION, action="review changes on gov.uk")


def _reviewer_permission(user) -> str | None:
    return next((p for p in (DECIDE_PERMISSION, EDIT_PERMISSION) if user.has_perm(p)), None)


def unit_confirm(*, unit_id: int, user, note: str = "") -> AuditEvent:
    """An expert's word that an unconfirmed unit still holds: it is served again
    (unconfirmed_at cleared, confirmed_at now). Raises AtomicUnit.DoesNotExist."""
    require_change_reviewer(user)
    note = note_checked(note, FreshnessDecisionRefused)
    with transaction.atomic():
        unit = _unconfirmed_unit(unit_id)
        before = {"unit": states_of([unit], FRESHNESS_FIELDS)}
        unit.confirmed_at, unit.unconfirmed_at = timezone.now(), None
        unit.save(update_fields=[*FRESHNESS_FIELDS, "updated_at"])
        return audit_record(
            actor=user,
            action=CONFIRM_ACTION,
            target=unit,
            note=note,
            summary=f"Confirmed unit {unit.pk} of {unit.concept.taxonomy_id} still holds",
            before=before,
            after={"unit": states_of([unit], FRESHNESS_FIELDS)},
        )


def unit_retire(*, unit_id: int, user, note: str = "") -> AuditEvent:
    """Take out of the knowledge base a unit its page no longer states (unconfirmed, or its
    page gone), as a flag-for-deletion decision does: kept for audit, its concept renumbered.
    Raises AtomicUnit.DoesNotExist."""
    require_change_reviewer(user)
    note = note_checked(note, FreshnessDecisionRefused)
    with atomic_or_refused(FreshnessDecisionRefused):
        concept_id = AtomicUnit.objects.values_list("concept_id", flat=True).get(pk=unit_id)
        concepts_lock([concept_id])  # before its units, as every writer of a concept does
        unit = _living_unit(unit_id)
        if unit.concept_id != concept_id:
            raise FreshnessDecisionRefused(f"unit {unit.pk} was moved meanwhile; try again")
        if unit.unconfirmed_at is None and unit.source.status != Source.Status.GONE:
            raise FreshnessDecisionRefused(
                f"unit {unit.pk} is confirmed by its page's current version; nothing to retire"
            )
        before, after = unit_soft_delete(unit, user=user, now=timezone.now())
        return audit_record(
            actor=user,
            action=RETIRE_ACTION,
            target=unit,
            note=note,
            summary=f"Retired unit {unit.pk} of {unit.concept.taxonomy_id}: its page no "
            "longer states it",
            before=before,
            after=after,
        )


def freshness_decision_revert(*, event_id: int, user) -> AuditEvent:
    """Undo a confirmation or retirement from its audit event. Raises AuditEvent.DoesNotExist
    for an unknown event, RevertRefused when it cannot be undone."""
    require_change_reviewer(user)
    event = AuditEvent.objects.get(pk=event_id)
    if event.action not in (CONFIRM_ACTION, RETIRE_ACTION):
        raise FreshnessDecisionRefused("only confirmations and retirements are reverted here")
    return audit_revert(event_id=event_id, user=user, permission=_reviewer_permission(user))


def _living_unit(unit_id: int) -> AtomicUnit:
    unit = (
        AtomicUnit.objects.select_for_update(of=("self",))
        .select_related("concept", "source")
        .get(pk=unit_id)
    )
    if unit.deleted_at is not None:
        raise FreshnessDecisionRefused(f"unit {unit.pk} has left the knowledge base already")
    return unit


def _unconfirmed_unit(unit_id: int) -> AtomicUnit:
    unit = _living_unit(unit_id)
    if unit.unconfirmed_at is None:
        raise FreshnessDecisionRefused(_why_confirmed(unit))
    return unit


def _why_confirmed(unit: AtomicUnit) -> str:
    decided = last_decided_by(action=CONFIRM_ACTION, target=unit)
    if decided is None:
        return f"unit {unit.pk} is confirmed by its page's current version"
    return f"unit {unit.pk} was confirmed already {decided}"
