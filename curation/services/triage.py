"""Triage of extraction items that did not become units: unassigned (no concept was clearly
best) and rejected (failed validation). An editor assigns one to a concept, which creates the
unit only if its evidence still verifies against the page, or discards it with a reason.

A wrong unit is sent back to triage (from an audit sample, or the experts' review queue): it
leaves the knowledge base and what it said becomes an open unassigned item again."""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.utils import timezone

from curation.models import AuditEvent
from curation.roles import require_role
from curation.services.audit import audit_record, note_checked, states_of
from curation.services.locks import atomic_or_refused, living_unit_lock, row_lock_in_status
from curation.services.superseding import DECIDE_PERMISSION, unit_soft_delete
from curation.services.taxonomy import TaxonomyChangeRefused, active_concept_get, require_editor
from knowledge.models import AtomicUnit, ExtractionItem
from knowledge.services.extract import (
    ProposalInvalid,
    proposal_from_item,
    proposal_from_unit,
    proposal_store,
)

ITEM_FIELDS = ("status", "resolution_note")
MAX_REASON = 2000
SEND_ACTION = "triage.send"


class TriageRefused(ValueError):
    """The unit cannot be sent to triage as asked; says why."""


def triage_assign(*, item_id: int, concept_id: int, user, note: str = "") -> AuditEvent:
    require_editor(user)
    with transaction.atomic():
        item = _open_item(item_id)
        concept = active_concept_get(concept_id)
        proposal = dataclasses.replace(proposal_from_item(item), concept_id=concept.taxonomy_id)
        try:
            unit = proposal_store(proposal=proposal, snapshot=item.snapshot, run=item.run)
        except ProposalInvalid as exc:
            raise TaxonomyChangeRefused(f"cannot assign: {exc}; discard it instead") from None
        before = {"item": states_of([item], ITEM_FIELDS), "unit": {str(unit.pk): None}}
        item.status = ExtractionItem.Status.ASSIGNED
        item.resolution_note = (note or f"assigned to {concept.taxonomy_id}").strip()
        item.save(update_fields=ITEM_FIELDS)
        after = {
            "item": states_of([item], ITEM_FIELDS),
            "unit": states_of([unit], ("concept", "ordinal", "text")),
        }
        return audit_record(
            actor=user,
            action="triage.assign",
            target=item,
            note=note,
            summary=f"Item {item.pk} became unit {unit.pk} under {concept.taxonomy_id}",
            before=before,
            after=after,
        )


def triage_discard(*, item_id: int, user, reason: str) -> AuditEvent:
    require_editor(user)
    reason = (reason or "").strip()
    if not reason or len(reason) > MAX_REASON:
        raise TaxonomyChangeRefused(
            f"reason: say why it is discarded (1 to {MAX_REASON} characters)"
        )
    with transaction.atomic():
        item = _open_item(item_id)
        before = {"item": states_of([item], ITEM_FIELDS)}
        item.status, item.resolution_note = ExtractionItem.Status.DISCARDED, reason
        item.save(update_fields=ITEM_FIELDS)
        return audit_record(
            actor=user,
            action="triage.discard",
            target=item,
            note=reason,
            summary=f"Item {item.pk} discarded",
            before=before,
            after={"item": states_of([item], ITEM_FIELDS)},
        )


def _open_item(item_id: int) -> ExtractionItem:
    return row_lock_in_status(
        ExtractionItem.objects.select_related("snapshot", "run"),
        pk=item_id,
        status=ExtractionItem.Status.OPEN,
        refusal=TaxonomyChangeRefused,
        missing=f"item: no extraction item {item_id}",
        taken=lambda item: f"item: already {item.get_status_display().lower()}",
    )


def unit_triage_send(
    *,
    unit_id: int,
    user,
    reason: str,
    origin: str = "the review queue",
    reason_code: str = "review_queue",
    permission: str = DECIDE_PERMISSION,
) -> AuditEvent:
    """Take a wrong unit out of the knowledge base (soft-deleted as flag-for-deletion does)
    and put what it said on the editors' triage list as an open item, where it can be
    assigned to a concept again or discarded; one audited change, reverted from its event.

    `origin` names where it was sent from, in the item's reason and the event's summary, and
    `reason_code` in the item's code; `permission` is the right the calling screen asks (experts' by default; an audit sample
    lets its judges, editors too, send what they judged). Raises AtomicUnit.DoesNotExist."""
    require_role(user, permission, action="send units to triage")
    reason = note_checked(reason, TriageRefused, field="reason")
    if not reason:
        raise TriageRefused("reason: say what is wrong with it")
    with atomic_or_refused(TriageRefused):
        unit = living_unit_lock(unit_id, refusal=TriageRefused)
        if unit.extraction_run_id is None:
            raise TriageRefused(
                f"unit: unit {unit.pk} was entered by hand, not extracted; move it instead"
            )
        before, after = unit_soft_delete(unit, user=user, now=timezone.now())
        item = _triage_item(unit, code=reason_code, reason=f"From {origin}: {reason}")
        before["item"] = {str(item.pk): None}
        after["item"] = states_of([item], ITEM_FIELDS)
        return audit_record(
            actor=user,
            action=SEND_ACTION,
            target=unit,
            note=reason,
            summary=f"Unit {unit.pk} sent to triage from {origin} (item {item.pk})",
            before=before,
            after=after,
        )


def _triage_item(unit: AtomicUnit, *, code: str, reason: str) -> ExtractionItem:
    return ExtractionItem.objects.create(
        run_id=unit.extraction_run_id,
        snapshot_id=unit.snapshot_id,
        kind=ExtractionItem.Kind.UNASSIGNED,
        reason_code=code,
        reason=reason,
        proposal=proposal_from_unit(unit).as_json(),
        evidence_start=unit.evidence_start,
        evidence_end=unit.evidence_end,
        candidates=[],
    )
