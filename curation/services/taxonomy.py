"""Editors' taxonomy changes: move units, rename, merge, retire, edit and approve concepts.

Each change is one transaction with one audit event holding every field it touched, so the
audit trail can revert it exactly (curation.services.audit). Ordinals are renumbered 1..n in
every concept a change takes units from; moved units join the end of their new concept.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from curation.models import AuditEvent
from curation.roles import require_role
from curation.services.audit import audit_record, audit_revert, states_of
from curation.services.detection import detector_checks_clear
from curation.services.locks import atomic_or_refused, concepts_lock
from knowledge.models import AtomicUnit, Concept, ConceptAlias, taxonomy_id_validator
from knowledge.services.units import concept_ordinals_renumber
from knowledge.task_queue import queue_after_commit

EDIT_PERMISSION = "knowledge.change_concept"
EDITOR_ACTIONS = (
    "unit.",
    "concept.",
    "triage.",
    "flag.",
    "dedup.",
    "glossary_term.",
    "life_event.",
)
PLACEMENT_FIELDS = ("concept", "ordinal")
CONCEPT_TEXT_FIELDS = ("name", "description")
ALIAS_FIELDS = ("alias", "concept")
MAX_NAME = 200
MAX_DESCRIPTION = 4000


class TaxonomyChangeRefused(ValueError):
    """The change would break the taxonomy or is not possible as asked; says why."""


def require_editor(user) -> None:
    require_role(user, EDIT_PERMISSION, action="change the taxonomy")


# --- units ---------------------------------------------------------------------------------


def units_move(*, unit_ids: list[int], concept_id: int, user, note: str = "") -> AuditEvent:
    """Move living units to an active concept (the end of its list)."""
    require_editor(user)
    unit_ids = list(dict.fromkeys(unit_ids))
    if not unit_ids:
        raise TaxonomyChangeRefused("units: choose at least one unit to move")
    with atomic_or_refused(TaxonomyChangeRefused):
        sources = AtomicUnit.objects.filter(pk__in=unit_ids).values_list("concept_id", flat=True)
        locked = concepts_lock([concept_id, *sources])
        target = active_concept_get(concept_id)
        units = list(AtomicUnit.objects.alive().select_for_update().filter(pk__in=unit_ids))
        missing = sorted(set(unit_ids) - {unit.pk for unit in units})
        if missing:
            raise TaxonomyChangeRefused(f"units: no living unit {missing[0]}")
        if any(unit.concept_id not in locked for unit in units):
            raise TaxonomyChangeRefused("units: another change moved them meanwhile; try again")
        moving = [unit for unit in units if unit.concept_id != target.pk]
        if not moving:
            raise TaxonomyChangeRefused(f"units: already in {target.taxonomy_id}")
        before, after = units_place(moving, target)
        return audit_record(
            actor=user,
            action="unit.move",
            target=target,
            note=note,
            summary=f"Moved {len(moving)} unit(s) to {target.taxonomy_id}",
            before=before,
            after=after,
        )


def units_place(units: list[AtomicUnit], target: Concept) -> tuple[dict, dict]:
    """Move `units` to the end of `target`, renumber the concepts they left; the states of
    every unit whose placement changed, before and after. Locks the concepts first (a lock
    the caller holds already is kept)."""
    sources = {unit.concept_id for unit in units}
    if concepts_lock([target.pk, *sources])[target.pk].status == Concept.Status.RETIRED:
        raise TaxonomyChangeRefused(f"concept: {target.taxonomy_id} has been retired")
    siblings = AtomicUnit.objects.alive().filter(concept_id__in=sources)
    before = states_of(siblings, PLACEMENT_FIELDS)
    last = target.units.alive().aggregate(last=Max("ordinal"))["last"] or 0
    for offset, unit in enumerate(sorted(units, key=lambda u: (u.concept_id, u.ordinal)), 1):
        unit.concept, unit.ordinal = target, last + offset
        unit.save(update_fields=["concept", "ordinal", "updated_at"])
    touched = {unit.pk for unit in units}
    # In their new concept they have new neighbours for the superseding detector to compare.
    detector_checks_clear(unit_ids=list(touched))
    for concept_id in sources:
        touched |= set(concept_ordinals_renumber(concept_id=concept_id))
    after = states_of(AtomicUnit.objects.filter(pk__in=touched), PLACEMENT_FIELDS)
    return {"unit": {pk: before[pk] for pk in after}}, {"unit": after}


# --- concepts --------------------------------------------------------------------------------


def concept_rename(*, concept_id: int, new_id: str, user, note: str = "") -> AuditEvent:
    """A new taxonomy id; the old one stays as an alias that keeps resolving."""
    require_editor(user)
    with transaction.atomic():
        concept = Concept.objects.select_for_update().get(pk=concept_id)
        old_id = concept.taxonomy_id
        if (new_id or "").strip() == old_id:
            raise TaxonomyChangeRefused("taxonomy_id: that is already its id")
        new_id = _valid_new_id(new_id)
        before = {"concept": states_of([concept], ["taxonomy_id"])}
        after_aliases, before_aliases = _alias_swap(concept, old_id=old_id, new_id=new_id)
        concept.taxonomy_id = new_id
        concept.save(update_fields=["taxonomy_id", "updated_at"])
        return audit_record(
            actor=user,
            action="concept.rename",
            target=concept,
            note=note,
            summary=f"Renamed {old_id} to {new_id} (old id kept as an alias)",
            before=before | {"alias": before_aliases},
            after={"concept": states_of([concept], ["taxonomy_id"]), "alias": after_aliases},
        )


def _valid_new_id(new_id: str) -> str:
    new_id = (new_id or "").strip()
    try:
        taxonomy_id_validator(new_id)
    except ValidationError:
        raise TaxonomyChangeRefused(
            "taxonomy_id: lower-case dotted words, e.g. isa.junior.eligibility"
        ) from None
    if Concept.objects.filter(taxonomy_id=new_id).exists():
        raise TaxonomyChangeRefused(f"taxonomy_id: {new_id} is another concept's id")
    return new_id


def _alias_swap(concept: Concept, *, old_id: str, new_id: str) -> tuple[dict, dict]:
    """Old id becomes an alias; an alias equal to the new id (of this concept) is dropped.
    Returns the aliases' states after and before."""
    before, after = {}, {}
    clash = ConceptAlias.objects.select_for_update().filter(alias=new_id).first()
    if clash is not None:
        if clash.concept_id != concept.pk:
            raise TaxonomyChangeRefused(f"taxonomy_id: {new_id} is an old id of another concept")
        before |= states_of([clash], ALIAS_FIELDS)
        after[str(clash.pk)] = None
        clash.delete()
    alias = ConceptAlias.objects.create(alias=old_id, concept=concept)
    before[str(alias.pk)] = None
    after |= states_of([alias], ALIAS_FIELDS)
    return after, before


def concept_merge(*, concept_id: int, into_id: int, user, note: str = "") -> AuditEvent:
    """Fold one concept into another: its units move, its aliases follow, its own id becomes
    an alias of the concept it joined, and it is retired."""
    require_editor(user)
    if concept_id == into_id:
        raise TaxonomyChangeRefused("into: a concept cannot be merged into itself")
    with atomic_or_refused(TaxonomyChangeRefused):
        merged = concepts_lock([concept_id, into_id])[concept_id]
        if merged.status == Concept.Status.RETIRED:
            raise TaxonomyChangeRefused(f"status: {merged.taxonomy_id} is retired already")
        # Proposals may be merged with each other before approval.
        target = active_concept_get(
            into_id, allow_proposed=merged.status == Concept.Status.PROPOSED
        )
        units = list(AtomicUnit.objects.alive().select_for_update().filter(concept=merged))
        before, after = units_place(units, target) if units else ({"unit": {}}, {"unit": {}})
        aliases = list(merged.aliases.select_for_update())
        before["alias"] = states_of(aliases, ALIAS_FIELDS)
        merged.aliases.update(concept=target)
        before["concept"] = states_of([merged], ["taxonomy_id", "status"])
        old_id = merged.taxonomy_id
        merged.taxonomy_id = f"retired.merged_{merged.pk}"  # frees the id for the alias
        merged.status = Concept.Status.RETIRED
        merged.save(update_fields=["taxonomy_id", "status", "updated_at"])
        alias = ConceptAlias.objects.create(alias=old_id, concept=target)
        before["alias"][str(alias.pk)] = None
        moved_aliases = ConceptAlias.objects.filter(pk__in=[a.pk for a in aliases] + [alias.pk])
        after["alias"] = states_of(moved_aliases, ALIAS_FIELDS)
        after["concept"] = states_of([merged], ["taxonomy_id", "status"])
        return audit_record(
            actor=user,
            action="concept.merge",
            target=target,
            note=note,
            summary=f"Merged {old_id} into {target.taxonomy_id} ({len(units)} unit(s) moved)",
            before=before,
            after=after,
        )


def concept_retire(*, concept_id: int, user, note: str = "") -> AuditEvent:
    """Retire an empty concept (move or merge its units first): extraction no longer binds
    to it and search no longer finds it; its id still resolves."""
    require_editor(user)
    with atomic_or_refused(TaxonomyChangeRefused):
        concept = Concept.objects.select_for_update().get(pk=concept_id)
        if concept.status == Concept.Status.RETIRED:
            raise TaxonomyChangeRefused("status: already retired")
        holding = concept.units.alive().count()
        if holding:
            raise TaxonomyChangeRefused(
                f"status: {concept.taxonomy_id} still holds {holding} unit(s); move or merge them first"
            )
        return _status_change(concept, Concept.Status.RETIRED, user=user, note=note)


def concept_approve(*, concept_id: int, user, note: str = "") -> AuditEvent:
    """Formalise a concept proposed in bootstrap mode: extraction may bind to it."""
    require_editor(user)
    with transaction.atomic():
        concept = Concept.objects.select_for_update().get(pk=concept_id)
        if concept.status != Concept.Status.PROPOSED:
            raise TaxonomyChangeRefused(f"status: {concept.taxonomy_id} is not a proposal")
        return _status_change(concept, Concept.Status.ACTIVE, user=user, note=note)


def _status_change(concept: Concept, status: str, *, user, note: str) -> AuditEvent:
    before = {"concept": states_of([concept], ["status"])}
    concept.status = status
    concept.save(update_fields=["status", "updated_at"])
    return audit_record(
        actor=user,
        action=f"concept.{status}",
        target=concept,
        note=note,
        summary=f"{concept.taxonomy_id}: {before['concept'][str(concept.pk)]['status']} → {status}",
        before=before,
        after={"concept": states_of([concept], ["status"])},
    )


def concept_edit(
    *, concept_id: int, name: str, description: str, user, note: str = ""
) -> AuditEvent:
    """New name and description; the concept's vector is remade after commit."""
    from knowledge.tasks import embed_units

    require_editor(user)
    name, description = (name or "").strip(), (description or "").strip()
    if not name or len(name) > MAX_NAME:
        raise TaxonomyChangeRefused(f"name: 1 to {MAX_NAME} characters")
    if not description or len(description) > MAX_DESCRIPTION:
        raise TaxonomyChangeRefused(f"description: 1 to {MAX_DESCRIPTION} characters")
    with transaction.atomic():
        concept = Concept.objects.select_for_update().get(pk=concept_id)
        before = {"concept": states_of([concept], CONCEPT_TEXT_FIELDS)}
        concept.name, concept.description = name, description
        concept.save(update_fields=["name", "description", "updated_at"])
        queue_after_commit(embed_units)
        return audit_record(
            actor=user,
            action="concept.edit",
            target=concept,
            note=note,
            summary=f"Edited the name and description of {concept.taxonomy_id}",
            before=before,
            after={"concept": states_of([concept], CONCEPT_TEXT_FIELDS)},
        )


def concept_yearly_figures_set(
    *, concept_id: int, yearly_figures: bool, user, note: str = ""
) -> AuditEvent:
    """Say whether the concept's money figures are set each year: extraction then dates one
    printed with no year by its page's capture year (or leaves it open). Units already stored
    keep their dates until their page is extracted again."""
    require_editor(user)
    with transaction.atomic():
        concept = Concept.objects.select_for_update().get(pk=concept_id)
        if concept.yearly_figures == yearly_figures:
            raise TaxonomyChangeRefused(
                f"yearly_figures: {concept.taxonomy_id} already says {yearly_figures}"
            )
        before = {"concept": states_of([concept], ["yearly_figures"])}
        concept.yearly_figures = yearly_figures
        concept.save(update_fields=["yearly_figures", "updated_at"])
        said = "set each year" if yearly_figures else "not set each year"
        return audit_record(
            actor=user,
            action="concept.yearly_figures",
            target=concept,
            note=note,
            summary=f"{concept.taxonomy_id}: its figures are {said}",
            before=before,
            after={"concept": states_of([concept], ["yearly_figures"])},
        )


def taxonomy_change_revert(*, event_id: int, user) -> AuditEvent:
    require_editor(user)
    event = AuditEvent.objects.get(pk=event_id)
    if not event.action.startswith(EDITOR_ACTIONS) or event.action.endswith(".revert"):
        raise TaxonomyChangeRefused("only taxonomy changes are reverted here")
    return audit_revert(event_id=event_id, user=user, permission=EDIT_PERMISSION)


def active_concept_get(concept_id: int, *, allow_proposed: bool = False) -> Concept:
    try:
        concept = Concept.objects.get(pk=concept_id)
    except Concept.DoesNotExist:
        raise TaxonomyChangeRefused(f"concept: no concept {concept_id}") from None
    allowed = {Concept.Status.ACTIVE} | ({Concept.Status.PROPOSED} if allow_proposed else set())
    if concept.status not in allowed:
        raise TaxonomyChangeRefused(
            f"concept: {concept.taxonomy_id} is {concept.status}, not active"
        )
    return concept
