"""Domain experts sign units off: the unit's `review_status` becomes approved, in one
transaction with an audit event, and the sign-off can be reverted from that event.

Two experts signing off one unit: the sign-off is claimed by a conditional UPDATE of a
pending, living unit, so exactly one applies and the other is told who signed it off first.
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
from knowledge.models import AtomicUnit

SIGNOFF_PERMISSION = "knowledge.signoff_atomicunit"
# Not a prefix of the editors' actions: their change log must neither list nor revert it.
SIGNOFF_ACTION = "signoff.unit"


class SignoffRefused(ValueError):
    """The unit cannot be signed off (or the sign-off reverted) as asked; says why."""


def require_signer(user) -> None:
    require_role(user, SIGNOFF_PERMISSION, action="sign units off")


def unit_signoff(*, unit_id: int, user, note: str = "") -> AuditEvent:
    """Sign off a living, pending unit. Raises AtomicUnit.DoesNotExist for an unknown id."""
    require_signer(user)
    note = note_checked(note, SignoffRefused)
    with transaction.atomic():
        claimed = (
            AtomicUnit.objects.alive()
            .filter(pk=unit_id, review_status=AtomicUnit.ReviewStatus.PENDING)
            .update(review_status=AtomicUnit.ReviewStatus.APPROVED, updated_at=timezone.now())
        )
        unit = AtomicUnit.objects.select_related("concept").get(pk=unit_id)
        if not claimed:
            raise SignoffRefused(_why_not_pending(unit))
        pending = {"review_status": AtomicUnit.ReviewStatus.PENDING.value}
        return audit_record(
            actor=user,
            action=SIGNOFF_ACTION,
            target=unit,
            note=note,
            summary=f"Signed off unit {unit.pk} of {unit.concept.taxonomy_id}",
            before={"unit": {str(unit.pk): pending}},
            after={"unit": states_of([unit], ["review_status"])},
        )


def unit_signoff_revert(*, event_id: int, user) -> AuditEvent:
    """Undo a sign-off from its audit event: the unit is pending again. Raises
    AuditEvent.DoesNotExist for an unknown event, RevertRefused when it cannot be undone."""
    require_signer(user)
    event = AuditEvent.objects.get(pk=event_id)
    if event.action != SIGNOFF_ACTION:
        raise SignoffRefused("only sign-offs are reverted here")
    corrected_at = (
        AtomicUnit.objects.filter(pk=event.target_id).values_list("corrected_at", flat=True).first()
    )
    if corrected_at is not None and corrected_at > event.created_at:
        # The correction vouches for the unit too; undo that first, or the unit would be
        # pending with an expert's correction standing.
        raise SignoffRefused(
            f"unit {event.target_id} was corrected since it was signed off; undo the correction first"
        )
    return audit_revert(event_id=event_id, user=user, permission=SIGNOFF_PERMISSION)


def _why_not_pending(unit: AtomicUnit) -> str:
    if unit.deleted_at is not None:
        return f"unit {unit.pk} was removed from the knowledge base"
    if unit.review_status == AtomicUnit.ReviewStatus.APPROVED:
        decided = last_decided_by(action=SIGNOFF_ACTION, target=unit)
        return f"unit {unit.pk} is already signed off" + (f" {decided}" if decided else "")
    return f"unit {unit.pk} is {unit.get_review_status_display().lower()}, not pending"
