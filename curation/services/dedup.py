"""Dedup job: near-identical units of one concept merge into one, which keeps every other
page that states it in `also_found_in` (UnitSighting).

Near-identical is the superseding detector's stage-1 rule: texts alike above
SUPERSEDING_DUPLICATE_SIMILARITY and stating the same figures and dates, plus the same type,
structured value and validity. "£12,500" and "£12,570" never merge. The unit kept is the one
with verified evidence from the latest version of its page; the others leave the knowledge
base (soft-deleted, kept for audit), the concept's ordinals are renumbered, and each merge
writes an audit event that reverts it exactly. Units in a superseding chain are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from curation.services.audit import audit_record, states_of
from curation.services.locks import concepts_lock
from knowledge.models import AtomicUnit, Concept, UnitSighting
from knowledge.services.ingest import snapshot_recency
from knowledge.services.units import concept_ordinals_renumber
from knowledge.text.compare import near_identical

REMOVAL_FIELDS = ("deleted_at", "deleted_by", "ordinal")
SIGHTING_FIELDS = ("unit", "source", "snapshot", "evidence_quote")


@dataclass
class MergedGroup:
    concept: str
    kept: int
    removed: list[int]
    sources: list[str]
    text: str


@dataclass
class DedupReport:
    concepts_checked: int = 0
    units_checked: int = 0
    groups: list[MergedGroup] = field(default_factory=list)
    skipped_in_chains: int = 0

    @property
    def units_removed(self) -> int:
        return sum(len(group.removed) for group in self.groups)


def units_dedup(
    *,
    concept_id: int | None = None,
    user=None,
    dry_run: bool = False,
    progress: Callable[[int], None] = lambda done: None,
) -> DedupReport:
    """Merge near-identical units concept by concept (one transaction each). Idempotent."""
    threshold = settings.SUPERSEDING_DUPLICATE_SIMILARITY
    concepts = Concept.objects.order_by("taxonomy_id")
    if concept_id is not None:
        concepts = concepts.filter(pk=concept_id)
    report = DedupReport()
    for concept in concepts:
        with transaction.atomic():
            _concept_dedup(concept, threshold=threshold, user=user, report=report)
            if dry_run:
                transaction.set_rollback(True)
        progress(1)
    return report


def _concept_dedup(concept: Concept, *, threshold: float, user, report: DedupReport) -> None:
    concepts_lock([concept.pk])  # its units are removed and renumbered
    in_chain = AtomicUnit.objects.filter(superseded_by=OuterRef("pk"))
    units = list(
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .annotate(replaces=Exists(in_chain))
        .select_related("source", "snapshot")
        .defer("snapshot__raw", "snapshot__text", "embedding")
        .select_for_update(of=("self",))
        .order_by("pk")
    )
    report.concepts_checked += 1
    report.units_checked += len(units)
    free = [unit for unit in units if unit.superseded_by_id is None and not unit.replaces]
    report.skipped_in_chains += len(units) - len(free)
    for group in _duplicate_groups(free, threshold=threshold):
        report.groups.append(_merge(concept, group, user=user))


def _duplicate_groups(units: list[AtomicUnit], *, threshold: float) -> list[list[AtomicUnit]]:
    """Connected groups of near-identical units (a duplicate of a duplicate joins the group)."""
    parent = {unit.pk: unit.pk for unit in units}

    def root(pk: int) -> int:
        while parent[pk] != pk:
            parent[pk] = parent[parent[pk]]
            pk = parent[pk]
        return pk

    for index, a in enumerate(units):
        for b in units[index + 1 :]:
            if _same_statement(a, b) and near_identical(a.text, b.text, threshold=threshold):
                parent[root(b.pk)] = root(a.pk)
    groups: dict[int, list[AtomicUnit]] = {}
    for unit in units:
        groups.setdefault(root(unit.pk), []).append(unit)
    return [group for group in groups.values() if len(group) > 1]


def _same_statement(a: AtomicUnit, b: AtomicUnit) -> bool:
    return (
        a.unit_type == b.unit_type
        and a.value_amount == b.value_amount
        and a.value_unit == b.value_unit
        and a.value_period == b.value_period
        and a.valid_from == b.valid_from
        and a.valid_to == b.valid_to
    )


def _keeper(group: list[AtomicUnit]) -> AtomicUnit:
    return max(group, key=lambda u: (u.evidence_verified, snapshot_recency(u.snapshot), -u.pk))


def _merge(concept: Concept, group: list[AtomicUnit], *, user) -> MergedGroup:
    kept = _keeper(group)
    removed = [unit for unit in group if unit.pk != kept.pk]
    siblings = AtomicUnit.objects.alive().filter(concept=concept)
    before_units = states_of(siblings, REMOVAL_FIELDS)
    sightings = _sightings_add(kept, removed)
    now = timezone.now()
    for unit in removed:
        unit.deleted_at, unit.deleted_by, unit.ordinal = now, user, None
        unit.save(update_fields=["deleted_at", "deleted_by", "ordinal", "updated_at"])
    renumbered = concept_ordinals_renumber(concept_id=concept.pk)
    touched = AtomicUnit.objects.filter(pk__in=[*(u.pk for u in removed), *renumbered])
    after_units = states_of(touched, REMOVAL_FIELDS)
    sources = sorted({kept.source.url, *(u.source.url for u in removed)})
    audit_record(
        actor=user,
        action="dedup.merge",
        target=kept,
        summary=f"Merged {len(removed)} duplicate(s) into unit {kept.pk} ({len(sources)} page(s))",
        before={
            "unit": {pk: before_units[pk] for pk in after_units},
            "sighting": {str(s.pk): None for s in sightings},
        },
        after={"unit": after_units, "sighting": states_of(sightings, SIGHTING_FIELDS)},
    )
    return MergedGroup(concept.taxonomy_id, kept.pk, [u.pk for u in removed], sources, kept.text)


def _sightings_add(kept: AtomicUnit, removed: list[AtomicUnit]) -> list[UnitSighting]:
    """Every other page of the group, once each, with the quote it was found by."""
    seen = {kept.source_id, *kept.sightings.values_list("source_id", flat=True)}
    found = [(u.source_id, u.snapshot_id, u.evidence_quote) for u in removed]
    for sighting in UnitSighting.objects.filter(unit__in=removed):  # earlier merges' pages
        found.append((sighting.source_id, sighting.snapshot_id, sighting.evidence_quote))
    added = []
    for source_id, snapshot_id, quote in found:
        if source_id in seen:
            continue
        seen.add(source_id)
        added.append(
            UnitSighting.objects.create(
                unit=kept, source_id=source_id, snapshot_id=snapshot_id, evidence_quote=quote
            )
        )
    return added
