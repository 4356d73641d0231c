"""Triage of extraction items that did not become units: unassigned (no concept was clearly
best) and rejected (failed validation). An editor assigns one to a concept, which creates the
unit only if its evidence still verifies against the page, or discards it with a reason."""

from __future__ import annotations

import dataclasses

from django.db import transaction

from curation.models import AuditEvent
from curation.services.audit import audit_record, states_of
from curation.services.locks import row_lock_in_status
from curation.services.taxonomy import TaxonomyChangeRefused, active_concept_get, require_editor
from knowledge.models import ExtractionItem
from knowledge.services.extract import ProposalInvalid, proposal_from_item, proposal_store

ITEM_FIELDS = ("status", "resolution_note")
MAX_REASON = 2000


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
