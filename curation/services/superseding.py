"""Domain experts' decisions on superseding candidates, each in one transaction with its
audit event.

- approve: the older unit becomes historical: superseded_by = newer, superseded_date = the
  newer unit's valid_from, or the decision date when it has none;
- reject: remembered (the pair is never proposed again);
- flag for deletion: the older unit leaves the knowledge base (soft-deleted, kept for
  audit) and its concept's ordinals are renumbered 1..n.

Two experts deciding the same pair: the decision is claimed by a conditional UPDATE of a
pending row, so exactly one applies and the other is told who decided and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from curation.models import AuditEvent, SupersedingCandidate
from curation.roles import require_role
from curation.services.audit import audit_record, audit_revert, note_checked, states_of
from curation.services.locks import atomic_or_refused, concepts_lock
from knowledge.models import AtomicUnit
from knowledge.services.units import concept_ordinals_renumber

DECIDE_PERMISSION = "curation.decide_supersedingcandidate"
CANDIDATE_FIELDS = ("status", "reviewer", "decided_at", "note")
SUPERSEDING_FIELDS = ("superseded_by", "superseded_date")
DELETION_FIELDS = ("deleted_at", "deleted_by", "ordinal")


class AlreadyDecided(Exception):
    """Someone decided this pair first; says who and when."""

    def __init__(self, candidate: SupersedingCandidate):
        who = candidate.reviewer.get_username() if candidate.reviewer else "someone"
        when = timezone.localtime(candidate.decided_at).strftime("%Y-%m-%d %H:%M")
        super().__init__(f"already {candidate.get_status_display().lower()} by {who} at {when}")
        self.candidate = candidate


class DecisionRefused(ValueError):
    """The decision would break the knowledge base; the message says how."""


def require_decider(user) -> None:
    require_role(user, DECIDE_PERMISSION, action="decide superseding candidates")


def candidate_approve(*, candidate_id: int, user, note: str = "") -> SupersedingCandidate:
    return _decide(candidate_id, user=user, note=note, status=SupersedingCandidate.Status.APPROVED)


def candidate_reject(*, candidate_id: int, user, note: str = "") -> SupersedingCandidate:
    return _decide(candidate_id, user=user, note=note, status=SupersedingCandidate.Status.REJECTED)


def candidate_flag_for_deletion(*, candidate_id: int, user, note: str = "") -> SupersedingCandidate:
    return _decide(candidate_id, user=user, note=note, status=SupersedingCandidate.Status.FLAGGED)


@dataclass
class BulkOutcome:
    approved: list[int] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)  # candidate id -> why


def candidates_approve_bulk(*, candidate_ids: list[int], user, note: str = "") -> BulkOutcome:
    """Approve each pair in its own transaction: one that cannot be approved (decided by
    someone else, or breaking a chain) is reported and does not undo the others."""
    require_decider(user)
    outcome = BulkOutcome()
    for candidate_id in dict.fromkeys(candidate_ids):
        try:
            candidate_approve(candidate_id=candidate_id, user=user, note=note)
        except SupersedingCandidate.DoesNotExist:
            outcome.skipped[candidate_id] = "no such candidate"
        except (AlreadyDecided, DecisionRefused) as exc:
            outcome.skipped[candidate_id] = str(exc)
        else:
            outcome.approved.append(candidate_id)
    return outcome


def decision_revert(*, event_id: int, user) -> AuditEvent:
    """Undo a decision from the audit trail: the units and the candidate are restored
    exactly, and the pair is pending again."""
    require_decider(user)
    event = AuditEvent.objects.get(pk=event_id)
    if not event.action.startswith("candidate.") or event.action.endswith(".revert"):
        raise DecisionRefused("only superseding decisions are reverted here")
    return audit_revert(event_id=event_id, user=user, permission=DECIDE_PERMISSION)


# --- one decision ----------------------------------------------------------------------------


def _decide(candidate_id: int, *, user, note: str, status: str) -> SupersedingCandidate:
    require_decider(user)
    note = note_checked(note, DecisionRefused)
    now = timezone.now()
    # A broken chain (its trigger) or a clash at commit is refused, said plainly.
    with atomic_or_refused(DecisionRefused):
        claimed = SupersedingCandidate.objects.filter(
            pk=candidate_id, status=SupersedingCandidate.Status.PENDING
        ).update(status=status, reviewer=user, decided_at=now, note=note)
        candidate = SupersedingCandidate.objects.select_related("older", "newer").get(
            pk=candidate_id
        )
        if not claimed:
            raise AlreadyDecided(candidate)
        before, after, summary = EFFECTS[status](candidate, user=user, now=now)
        before["candidate"] = {str(candidate.pk): _pending_state()}
        after["candidate"] = states_of([candidate], CANDIDATE_FIELDS)
        audit_record(
            actor=user,
            action=f"candidate.{status}",
            target=candidate,
            summary=summary,
            before=before,
            after=after,
            note=note,
        )
    return candidate


def _pending_state() -> dict:
    return {"status": "pending", "reviewer": None, "decided_at": None, "note": ""}


def _locked_pair(candidate) -> tuple[AtomicUnit, AtomicUnit]:
    units = AtomicUnit.objects.select_for_update().in_bulk([candidate.older_id, candidate.newer_id])
    older, newer = units[candidate.older_id], units[candidate.newer_id]
    for unit in (older, newer):
        if unit.deleted_at is not None:
            raise DecisionRefused(f"unit {unit.pk} has been removed from the knowledge base")
    return older, newer


def _approve(candidate, *, user, now) -> tuple[dict, dict, str]:
    older, newer = _locked_pair(candidate)
    if older.superseded_by_id is not None:
        raise DecisionRefused(
            f"unit {older.pk} is already superseded by unit {older.superseded_by_id}"
        )
    replaced = AtomicUnit.objects.filter(superseded_by=newer).values_list("pk", flat=True).first()
    if replaced is not None:
        raise DecisionRefused(
            f"unit {newer.pk} already replaces unit {replaced}; a unit replaces at most one "
            "(approve the older pair in the chain instead)"
        )
    before = {"unit": states_of([older], SUPERSEDING_FIELDS)}
    older.superseded_by = newer
    older.superseded_date = newer.valid_from or timezone.localdate(now)
    older.save(update_fields=["superseded_by", "superseded_date", "updated_at"])
    after = {"unit": states_of([older], SUPERSEDING_FIELDS)}
    summary = f"Unit {newer.pk} replaces unit {older.pk} from {older.superseded_date}"
    return before, after, summary


def _reject(candidate, *, user, now) -> tuple[dict, dict, str]:
    return {}, {}, f"Unit {candidate.newer_id} does not replace unit {candidate.older_id}"


def _flag_for_deletion(candidate, *, user, now) -> tuple[dict, dict, str]:
    # Its concept is renumbered: locked before its units, as every writer of a concept does.
    concepts_lock([candidate.older.concept_id])
    older, _ = _locked_pair(candidate)
    if older.concept_id != candidate.older.concept_id:
        raise DecisionRefused(f"unit {older.pk} was moved meanwhile; decide again")
    before, after = unit_soft_delete(older, user=user, now=now)
    renumbered = len(after["unit"]) - 1
    summary = f"Unit {older.pk} removed from the knowledge base ({renumbered} renumbered)"
    return before, after, summary


def unit_soft_delete(unit: AtomicUnit, *, user, now) -> tuple[dict, dict]:
    """Take a locked living unit out of the knowledge base (kept for audit, its place freed)
    and renumber its concept; the states of every unit touched, before and after. The caller
    holds the lock on the unit's concept."""
    siblings = AtomicUnit.objects.alive().filter(concept_id=unit.concept_id)
    before_all = states_of(siblings, DELETION_FIELDS)
    unit.deleted_at, unit.deleted_by, unit.ordinal = now, user, None
    unit.save(update_fields=["deleted_at", "deleted_by", "ordinal", "updated_at"])
    renumbered = concept_ordinals_renumber(concept_id=unit.concept_id)
    touched = AtomicUnit.objects.filter(pk__in=[unit.pk, *renumbered])
    after = {"unit": states_of(touched, DELETION_FIELDS)}
    before = {"unit": {pk: before_all[pk] for pk in after["unit"]}}
    return before, after


EFFECTS = {
    SupersedingCandidate.Status.APPROVED: _approve,
    SupersedingCandidate.Status.REJECTED: _reject,
    SupersedingCandidate.Status.FLAGGED: _flag_for_deletion,
}
