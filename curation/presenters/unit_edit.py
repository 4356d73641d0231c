"""What the unit editor shows beside its form: the page snapshot cut round the unit's quote,
what an expert changed against the machine's version, the correction that Undo takes back,
and the units of the same statement that may be joined to it."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.safestring import SafeString

from curation.models import AuditEvent
from curation.presenters.worddiff import segments_html, word_diff
from curation.services.audit import state_of
from curation.services.units import CORRECTION_ACTIONS, MACHINE_FIELDS, MAX_JOIN_GAP
from knowledge.models import AtomicUnit, Concept

FIELD_LABELS = {
    "text": "Statement",
    "unit_type": "Type",
    "value_amount": "Amount",
    "value_unit": "Unit",
    "value_period": "Period",
    "figures": "Other figures",
    "valid_from": "Valid from",
    "valid_to": "Valid to",
    "validity_basis": "Dates' basis",
    "concept": "Concept",
    "evidence_start": "Quote starts at",
    "evidence_end": "Quote ends at",
    "evidence_quote": "Quote",
}


@dataclass(frozen=True)
class ChangedField:
    label: str
    machine: object
    now: object
    machine_html: SafeString | None = None  # a word diff, for the texts
    now_html: SafeString | None = None


def machine_changes(unit: AtomicUnit) -> list[ChangedField]:
    """The fields an expert changed, the machine's value beside the unit's (texts as a word
    diff); empty for a unit no expert corrected."""
    machine = unit.machine_version
    if not machine:
        return []
    now = state_of(unit, [f for f in MACHINE_FIELDS if f in machine])
    now["concept"] = unit.concept.taxonomy_id
    rows = []
    for field, label in FIELD_LABELS.items():
        if field not in machine or machine[field] == now.get(field):
            continue
        if field in ("text", "evidence_quote"):
            old, new = word_diff(machine[field], now[field])
            rows.append(
                ChangedField(
                    label,
                    machine[field],
                    now[field],
                    segments_html(old, tag="del"),
                    segments_html(new, tag="ins"),
                )
            )
        else:
            rows.append(ChangedField(label, machine[field], now.get(field)))
    return rows


def last_correction(unit: AtomicUnit) -> AuditEvent | None:
    """The unit's newest correction, split or join that stands (the one Undo takes back)."""
    return (
        AuditEvent.objects.filter(
            action__in=CORRECTION_ACTIONS,
            target_type="atomicunit",
            target_id=unit.pk,
            reverted_by__isnull=True,
        )
        .select_related("actor")
        .order_by("-created_at")
        .first()
    )


def join_candidates(unit: AtomicUnit) -> list[AtomicUnit]:
    """Living units quoted from the same page version whose quotes lie within reach of the
    unit's, in page order: the ones a join may make one with it."""
    return list(
        AtomicUnit.objects.alive()
        .filter(
            snapshot_id=unit.snapshot_id,
            evidence_start__lt=unit.evidence_end + MAX_JOIN_GAP,
            evidence_end__gt=unit.evidence_start - MAX_JOIN_GAP,
        )
        .exclude(pk=unit.pk)
        .select_related("concept")
        .order_by("evidence_start")
    )


@dataclass(frozen=True)
class PagePanel:
    before: str
    quote: str
    after: str


def page_panel(unit: AtomicUnit) -> PagePanel:
    text = unit.snapshot.text
    start, end = unit.evidence_start, unit.evidence_end
    return PagePanel(text[:start], text[start:end], text[end:])


def concept_ids() -> list[str]:
    """The active concepts' ids, for the concept field's suggestions."""
    return list(
        Concept.objects.filter(status=Concept.Status.ACTIVE)
        .order_by("taxonomy_id")
        .values_list("taxonomy_id", flat=True)
    )
