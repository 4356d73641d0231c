"""The experts' changes from the review queue that are its own: retiring a unit (it leaves the
knowledge base, as a flag-for-deletion decision takes it out), and undoing what was done
there (a retirement, a send to triage, a sign-off). Signing off and sending to triage are the
services every screen shares (`signoff.unit_signoff`, `triage.unit_triage_send`).

Each change is one transaction with one audit event, reverted from it. Two experts retiring
one unit: its concept and row are locked and its state checked, so the second is told it has
left already.
"""

from __future__ import annotations

from django.utils import timezone

from curation.models import AuditEvent
from curation.roles import require_role
from curation.services.audit import audit_record, audit_revert, note_checked
from curation.services.locks import atomic_or_refused, living_unit_lock
from curation.services.signoff import SIGNOFF_ACTION, SIGNOFF_PERMISSION, unit_signoff_revert
from curation.services.superseding import DECIDE_PERMISSION, unit_soft_delete
from curation.services.triage import SEND_ACTION

# Not a prefix of the editors' actions (`unit.`): their change log must neither list nor
# revert an expert's retirement.
RETIRE_ACTION = "queue.retire"
REMOVALS = (RETIRE_ACTION, SEND_ACTION)
REVERTIBLE_HERE = (*REMOVALS, SIGNOFF_ACTION)


class QueueChangeRefused(ValueError):
    """The unit cannot be retired (or the change undone) as asked; says why."""


def require_unit_remover(user) -> None:
    """Experts take units out of the knowledge base, by the right they flag one for deletion."""
    require_role(user, DECIDE_PERMISSION, action="take units out of the knowledge base")


def unit_queue_retire(*, unit_id: int, user, reason: str) -> AuditEvent:
    """Take a living unit out of the knowledge base (kept for audit, its concept renumbered);
    `reason` says why. Raises AtomicUnit.DoesNotExist for an unknown id."""
    require_unit_remover(user)
    reason = note_checked(reason, QueueChangeRefused, field="reason")
    if not reason:
        raise QueueChangeRefused("reason: say why it leaves the knowledge base")
    with atomic_or_refused(QueueChangeRefused):
        unit = living_unit_lock(unit_id, refusal=QueueChangeRefused)
        before, after = unit_soft_delete(unit, user=user, now=timezone.now())
        return audit_record(
            actor=user,
            action=RETIRE_ACTION,
            target=unit,
            note=reason,
            summary=f"Retired unit {unit.pk} of {unit.concept.taxonomy_id} from the review queue",
            before=before,
            after=after,
        )


def unit_queue_change_revert(*, event_id: int, user) -> AuditEvent:
    """Undo a retirement or a send to triage (the unit is back in its place, the triage item
    it became is gone), or a sign-off (the unit is pending again), each by the right that
    made it. Raises AuditEvent.DoesNotExist for an unknown event, RevertRefused when it
    cannot be undone."""
    require_role(
        user, SIGNOFF_PERMISSION, DECIDE_PERMISSION, action="undo changes from the review queue"
    )
    event = AuditEvent.objects.get(pk=event_id)
    if event.action == SIGNOFF_ACTION:
        return unit_signoff_revert(event_id=event_id, user=user)
    if event.action not in REMOVALS:
        raise QueueChangeRefused("only sign-offs, retirements and sends to triage are undone here")
    require_unit_remover(user)
    return audit_revert(event_id=event_id, user=user, permission=DECIDE_PERMISSION)
