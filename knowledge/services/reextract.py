"""Extraction again over a page the machine has read already (after an extractor upgrade):
what the new run finds replaces what the machine found before, and never what an expert did.

- A unit an expert touched (corrected, signed off, entered by hand, or decided in a
  superseding pair) stays as the expert left it. A new finding whose quote is the same as or
  overlaps an expert's unit is not added beside it: it is counted as a sighting of that unit
  in the run's summary.
- A machine unit the new run finds again (same statement) stays, with its id, history and
  place: so does one an editor moved to another concept. A statement whose unit a decision
  took out of the knowledge base (a dedup merge, a flag for deletion, a send to triage, a
  retirement) is not brought back; one an earlier run of extraction again retired may be.
- A machine unit of the same provider, made from this version of the page, that the new
  run no longer finds, and no expert touched, is retired (taken out of the knowledge base,
  kept for audit): listed in the run's summary and reported through
  `knowledge.signals.units_retired` for the audit trail.
"""

from __future__ import annotations

import dataclasses

from django.db.models import F, Q
from django.utils import timezone

from knowledge.models import AtomicUnit, Concept, ExtractionItem, ExtractionRun, PageSnapshot
from knowledge.providers import UnitProposal
from knowledge.services.proposals import (
    checked_proposals_store,
    fingerprint,
    overlapping,
    quote_spans,
)
from knowledge.services.units import concept_ordinals_renumber
from knowledge.signals import units_retired

RETIREMENT_FIELDS = ("deleted_at", "ordinal")
EXPERT_TOUCHED = (
    Q(review_status=AtomicUnit.ReviewStatus.APPROVED)
    | Q(corrected_at__isnull=False)
    | Q(provider=AtomicUnit.Provider.MANUAL)
    | Q(superseded_by__isnull=False)
    | Q(supersedes__isnull=False)
)


def again_version(prompt_version: str, job_id: int) -> str:
    """The run's version for extraction again within one job: a new run per job (so the
    job's task is idempotent), beside the page's earlier runs."""
    return f"{prompt_version}+again{job_id}"[:32]


def proposals_store_again(
    *, run: ExtractionRun, snapshot: PageSnapshot, proposals: list[UnitProposal], checked
) -> dict[int, AtomicUnit]:
    """Store what the new run found on `snapshot` as the module says; the run's `summary`
    records what was kept for experts and what was retired. Call inside a transaction."""
    # Concepts first, in id order, as every writer of a concept's units locks them.
    concepts = set(
        AtomicUnit.objects.alive()
        .filter(source_id=snapshot.source_id)
        .values_list("concept_id", flat=True)
    ) | {check.concept.pk for check in checked if check.concept is not None}
    list(Concept.objects.select_for_update().filter(pk__in=concepts).order_by("pk"))
    # The page's units on any of its versions: freshness moves a unit an older version stated
    # onto the current one, where it is still the statement this run may find again.
    living = list(
        AtomicUnit.objects.alive()
        .filter(source_id=snapshot.source_id)
        .annotate(made_from=F("extraction_run__snapshot_id"))
        .select_for_update(of=("self",))
    )
    touched = set(
        AtomicUnit.objects.filter(pk__in=[u.pk for u in living])
        .filter(EXPERT_TOUCHED)
        .values_list("pk", flat=True)
    )
    experts = quote_spans([u for u in living if u.pk in touched], snapshot)
    by_statement = {unit.fingerprint: unit for unit in living}
    for unit in living:  # the statement as the machine first made it, before an expert's fix
        if machine_text := (unit.machine_version or {}).get("text"):
            by_statement.setdefault(fingerprint(machine_text), unit)
    taken_out = _taken_out_by_decisions(snapshot)
    open_items = set(
        ExtractionItem.objects.filter(
            snapshot=snapshot, status=ExtractionItem.Status.OPEN
        ).values_list("proposal__text", flat=True)
    )
    found_again, sightings, keep, left_out = set(), {}, [], 0
    for index, (proposal, check) in enumerate(zip(proposals, checked, strict=True)):
        if check.kind:
            if proposal.text not in open_items:  # on the triage list already
                keep.append(index)
            continue
        statement = fingerprint(proposal.text)
        held = by_statement.get(statement)
        if held is not None and held.pk in touched:
            sightings.setdefault(held.pk, []).append([check.start, check.end])
            continue
        if held is not None:
            found_again.add(held.pk)
            continue
        if statement in taken_out:
            left_out += 1
            continue
        expert = overlapping(experts, check.start, check.end)
        if expert is not None:
            sightings.setdefault(expert.pk, []).append([check.start, check.end])
            continue
        keep.append(index)
    retired = _retire(
        [
            unit
            for unit in living
            # made from this version (a unit freshness moved here from an older version is
            # that version's run's to find again)
            if unit.made_from == snapshot.pk
            and unit.pk not in touched
            and unit.pk not in found_again
            and unit.provider == run.provider
        ],
        run=run,
    )
    kept_proposals, kept_checks = _kept(proposals, checked, keep)
    units = checked_proposals_store(
        run=run, snapshot=snapshot, proposals=kept_proposals, checked=kept_checks
    )
    run.summary = {
        "again": True,
        "found_again": len(found_again),
        "left_out_by_decisions": left_out,
        "kept_for_experts": {str(pk): spans for pk, spans in sorted(sightings.items())},
        "retired": retired,
    }
    return units


def _taken_out_by_decisions(snapshot: PageSnapshot) -> set[str]:
    """The statements (fingerprints) of the page's units that left the knowledge base by a
    decision, not by an earlier run of extraction again."""
    retired_by_runs = {
        pk
        for retired in ExtractionRun.objects.filter(
            snapshot__source_id=snapshot.source_id, summary__has_key="retired"
        ).values_list("summary__retired", flat=True)
        for pk in retired
    }
    return set(
        AtomicUnit.objects.filter(source_id=snapshot.source_id, deleted_at__isnull=False)
        .exclude(pk__in=retired_by_runs)
        .values_list("fingerprint", flat=True)
    )


def _kept(proposals: list[UnitProposal], checked, keep: list[int]):
    """The kept proposals with their example links renumbered (a link to a proposal that was
    not kept is dropped)."""
    renumbered = {old: new for new, old in enumerate(keep)}
    kept = [
        dataclasses.replace(proposals[i], example_of=renumbered.get(proposals[i].example_of))
        for i in keep
    ]
    return kept, [checked[i] for i in keep]


def _retire(units: list[AtomicUnit], *, run: ExtractionRun) -> list[int]:
    if not units:
        return []
    now = timezone.now()
    concepts = {unit.concept_id for unit in units}
    list(Concept.objects.select_for_update().filter(pk__in=concepts).order_by("pk"))  # lock
    siblings = AtomicUnit.objects.alive().filter(concept_id__in=concepts)
    before = {str(u.pk): {"deleted_at": None, "ordinal": u.ordinal} for u in siblings}
    for unit in units:
        unit.deleted_at, unit.ordinal, unit.updated_at = now, None, now
    AtomicUnit.objects.bulk_update(units, ["deleted_at", "ordinal", "updated_at"])
    renumbered = {}
    for concept_id in sorted(concepts):
        renumbered.update(concept_ordinals_renumber(concept_id=concept_id))
    after = {str(u.pk): {"deleted_at": now.isoformat(), "ordinal": None} for u in units}
    after.update(
        {str(pk): {"deleted_at": None, "ordinal": new} for pk, (_, new) in renumbered.items()}
    )
    units_retired.send(
        sender=ExtractionRun,
        run_id=run.pk,
        before={"unit": {pk: before[pk] for pk in after}},
        after={"unit": after},
    )
    return sorted(unit.pk for unit in units)
