"""Domain experts correct a unit's facts in place: its text, type, value and other figures,
validity dates and their basis, concept, and the quote it rests on; they split a unit that
states two facts and join units that are one statement.

Each correction is one transaction with one audit event holding every field it touched,
before and after, so that Undo puts back exactly what it changed (curation.services.audit).
A corrected unit is signed off by the correction (an expert vouched for it), remembers the
machine's own version (`machine_version`, kept from the first correction) and who corrected
it last; later runs of the machine leave it as the expert left it.

A form read before someone else changed the unit is refused, naming who and when: the form
carries the unit's `version` (its last change time) and the service compares it under lock.

Kept whole: every correction shares the lock, the version check, the audit event and the
sign-off above; split by field, each part would carry a copy of that protocol.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils import timezone

from curation.models import AuditEvent
from curation.roles import require_role
from curation.services.audit import audit_record, audit_revert, note_checked, state_of, states_of
from curation.services.detection import detector_checks_clear
from curation.services.locks import atomic_or_refused, concepts_lock
from curation.services.superseding import unit_soft_delete
from curation.services.taxonomy import TaxonomyChangeRefused, units_place
from curation.services.unit_checks import (
    CORRECTABLE,
    CorrectionRefused,
    active_concept,
    changes_checked,
)
from knowledge.models import AtomicUnit, Concept
from knowledge.services.proposals import fingerprint
from knowledge.task_queue import queue_after_commit
from knowledge.tasks import embed_units

CORRECT_PERMISSION = "knowledge.change_atomicunit"
# Not prefixes of the editors' actions ("unit.", …): their change log neither lists nor
# reverts an expert's correction.
CORRECT_ACTION = "correction.unit"
SPLIT_ACTION = "correction.split"
JOIN_ACTION = "correction.join"
CORRECTION_ACTIONS = (CORRECT_ACTION, SPLIT_ACTION, JOIN_ACTION)

# What a correction may write besides the fields it was asked to change.
DERIVED_FIELDS = ("evidence_quote", "evidence_verified", "fingerprint")
REVIEW_FIELDS = ("review_status", "corrected_by", "corrected_at", "machine_version")
# The machine's version of a unit, kept at its first correction.
MACHINE_FIELDS = (*[f for f in CORRECTABLE if f != "concept"], "evidence_quote")
# Units are one statement when what stands between their quotes is short: a clause, a
# table cell, a list's lead-in; not another paragraph.
MAX_JOIN_GAP = 300


def require_corrector(user) -> None:
    require_role(user, CORRECT_PERMISSION, action="correct a unit's facts")


def unit_version(unit: AtomicUnit) -> str:
    """What a form carries to say which state of the unit it was read from."""
    return unit.updated_at.isoformat()


def unit_correct(
    *, unit_id: int, user, note: str = "", version: str | None = None, **changes
) -> AuditEvent:
    """Change the named fields of a living unit (see CORRECTABLE; `concept` is a taxonomy id,
    evidence offsets point into the unit's page snapshot). Raises AtomicUnit.DoesNotExist
    for an unknown unit, CorrectionRefused for anything else that cannot be done."""
    require_corrector(user)
    note = note_checked(note, CorrectionRefused)
    unknown = sorted(set(changes) - set(CORRECTABLE))
    if unknown:
        raise CorrectionRefused(f"{unknown[0]}: not a field an expert corrects")
    with atomic_or_refused(CorrectionRefused):
        unit, target = _locked(unit_id, concept=changes.get("concept"))
        _check_version(unit, version)
        values = changes_checked(unit, changes)
        if not values and target is None:
            raise CorrectionRefused("nothing to change: the form holds the unit as it is")
        before, after = _corrected(unit, values, target=target, user=user)
        changed = sorted([*values, *(["concept"] if target else [])])
        return audit_record(
            actor=user,
            action=CORRECT_ACTION,
            target=unit,
            note=note,
            summary=f"Corrected {', '.join(changed)} of unit {unit.pk} "
            f"({unit.concept.taxonomy_id})",
            before=before,
            after=after,
        )


def unit_split(
    *, unit_id: int, user, parts: list[dict], note: str = "", version: str | None = None
) -> AuditEvent:
    """Make a unit that states several facts into one unit per part. Each part is a dict of
    CORRECTABLE fields with at least `text`, `evidence_start` and `evidence_end` (its own
    quote, inside the unit's page); the first part is the unit itself, corrected, the others
    new units beside it, of the same page and (unless a part says otherwise) concept, type,
    value and dates."""
    require_corrector(user)
    note = note_checked(note, CorrectionRefused)
    if not isinstance(parts, list) or len(parts) < 2:
        raise CorrectionRefused("parts: a split needs at least two parts")
    for number, part in enumerate(parts, 1):
        missing = [f for f in ("text", "evidence_start", "evidence_end") if f not in part]
        if missing:
            raise CorrectionRefused(f"part {number}: {missing[0]} is needed")
        unknown = sorted(set(part) - set(CORRECTABLE))
        if unknown:
            raise CorrectionRefused(f"part {number}: {unknown[0]}: not a field of a unit")
    with atomic_or_refused(CorrectionRefused):
        concepts = {part["concept"] for part in parts if part.get("concept")}
        unit, _ = _locked(unit_id, concept=None, also=concepts)
        _check_version(unit, version)
        new_units = [
            _new_part(unit, part, number, user) for number, part in enumerate(parts[1:], 2)
        ]
        first = _part_checked(unit, parts[0], 1)
        before, after = _corrected(unit, first, target=_concept_of(parts[0]), user=user)
        before.setdefault("unit", {}).update({str(new.pk): None for new in new_units})
        after["unit"].update(states_of(new_units, _created_fields()))
        return audit_record(
            actor=user,
            action=SPLIT_ACTION,
            target=unit,
            note=note,
            summary=f"Split unit {unit.pk} into units {unit.pk}, "
            + ", ".join(str(new.pk) for new in new_units),
            before=before,
            after=after,
        )


def unit_join(
    *,
    unit_ids: list[int],
    user,
    text: str = "",
    note: str = "",
    versions: dict[int, str] | None = None,
) -> AuditEvent:
    """Make units of one statement (one page, quotes at most MAX_JOIN_GAP characters apart)
    into one: the first on the page stays, its quote widened over all of them, its text
    `text` (by default theirs joined) and their values kept among its figures; the others
    leave the knowledge base (kept for audit). `versions`: each unit's version as the form
    showed it (see unit_version)."""
    require_corrector(user)
    note = note_checked(note, CorrectionRefused)
    unit_ids = list(dict.fromkeys(unit_ids))
    if len(unit_ids) < 2:
        raise CorrectionRefused("units: choose at least two units to join")
    with atomic_or_refused(CorrectionRefused):
        concept_ids = AtomicUnit.objects.filter(pk__in=unit_ids).values_list(
            "concept_id", flat=True
        )
        concepts_lock(concept_ids)
        units = _joinable(unit_ids)
        for unit in units:
            _check_version(unit, (versions or {}).get(unit.pk))
        kept, others = units[0], units[1:]
        values = changes_checked(kept, _joined(units, text))
        now = timezone.now()
        before, after = {"unit": {}}, {"unit": {}}
        for other in others:
            gone_before, gone_after = unit_soft_delete(other, user=user, now=now)
            _merge_states(before, gone_before, after, gone_after)
        kept_before, kept_after = _corrected(kept, values, target=None, user=user)
        _merge_states(before, kept_before, after, kept_after)
        return audit_record(
            actor=user,
            action=JOIN_ACTION,
            target=kept,
            note=note,
            summary=f"Joined units {', '.join(str(u.pk) for u in units)} into unit {kept.pk}",
            before=before,
            after=after,
        )


def unit_correction_undo(*, event_id: int, user) -> AuditEvent:
    """Undo a correction, split or join from its audit event. Refused (RevertRefused) when
    the unit changed since."""
    require_corrector(user)
    event = AuditEvent.objects.get(pk=event_id)
    if event.action not in CORRECTION_ACTIONS:
        raise CorrectionRefused("only corrections, splits and joins are undone here")
    undone = audit_revert(event_id=event_id, user=user, permission=CORRECT_PERMISSION)
    queue_after_commit(embed_units)  # the vectors follow the texts put back
    return undone


# --- locking and the stale-form check --------------------------------------------------------


def _locked(
    unit_id: int, *, concept: str | None, also: set[str] = frozenset()
) -> tuple[AtomicUnit, Concept | None]:
    """The living unit, locked after its concept and the concepts it may move to (every
    writer of a concept's units locks the concept first), and the concept `concept` names
    when it is not the unit's own."""
    current = AtomicUnit.objects.values_list("concept_id", flat=True).get(pk=unit_id)
    targets = {name: active_concept(name) for name in {*also, *([concept] if concept else [])}}
    concepts_lock([current, *(c.pk for c in targets.values())])
    unit = (
        AtomicUnit.objects.select_for_update(of=("self",))
        .select_related("concept", "snapshot")
        .get(pk=unit_id)
    )
    if unit.deleted_at is not None:
        raise CorrectionRefused(f"unit {unit.pk} has left the knowledge base")
    if unit.concept_id != current:
        raise CorrectionRefused(f"unit {unit.pk} was moved meanwhile; reload and try again")
    target = targets.get(concept) if concept else None
    return unit, (target if target is not None and target.pk != unit.concept_id else None)


def _check_version(unit: AtomicUnit, version: str | None) -> None:
    if version is None or version == unit_version(unit):
        return
    raise CorrectionRefused(
        f"unit {unit.pk} was changed {_last_change(unit)} after you opened it; "
        "reload it to see that change, then correct it again"
    )


def _last_change(unit: AtomicUnit) -> str:
    event = (
        AuditEvent.objects.filter(after__unit__has_key=str(unit.pk))
        .select_related("actor")
        .order_by("-created_at")
        .first()
    )
    if event is None or unit.updated_at - event.created_at > dt.timedelta(seconds=1):
        # Changed since by the machine (a check of its page, extraction), which keeps no
        # audit entry of its own for it.
        return f"at {_when(unit.updated_at)} by the machine (a check of its page or extraction)"
    who = event.actor.get_username() if event.actor else "the system"
    return f"by {who} at {_when(event.created_at)}"


def _when(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


# --- writing ---------------------------------------------------------------------------------


def _corrected(
    unit: AtomicUnit, values: dict, *, target: Concept | None, user
) -> tuple[dict, dict]:
    """Write `values` (and the move to `target`) to the locked unit, marked corrected by
    `user`; the states before and after of every unit touched."""
    fields = [*values, *REVIEW_FIELDS]
    if "text" in values:
        values["fingerprint"] = fingerprint(values["text"])
        fields.append("fingerprint")
    before = {"unit": {str(unit.pk): state_of(unit, fields)}}
    if not unit.machine_version:
        unit.machine_version = _machine_version(unit)
    for field, value in values.items():
        setattr(unit, field, value)
    unit.review_status = AtomicUnit.ReviewStatus.APPROVED
    unit.corrected_by, unit.corrected_at = user, timezone.now()
    unit.save(update_fields=[*fields, "updated_at"])
    after = {"unit": {str(unit.pk): state_of(unit, fields)}}
    if target is not None:
        try:
            moved_before, moved_after = units_place([unit], target)
        except TaxonomyChangeRefused as exc:
            raise CorrectionRefused(str(exc)) from None
        _merge_states(before, moved_before, after, moved_after)
    # Its facts changed: the superseding detector compares it afresh, and its vector follows
    # its text once the transaction stands.
    detector_checks_clear(unit_ids=[unit.pk])
    queue_after_commit(embed_units)
    return before, after


def _machine_version(unit: AtomicUnit) -> dict:
    version = state_of(unit, MACHINE_FIELDS)
    version["concept"] = unit.concept.taxonomy_id
    return version


def _merge_states(before: dict, more_before: dict, after: dict, more_after: dict) -> None:
    for states, more in ((before, more_before), (after, more_after)):
        for pk, fields in more.get("unit", {}).items():
            known = states.setdefault("unit", {}).setdefault(pk, {})
            for name, value in fields.items():
                # The earliest "before" and the latest "after" of a field touched twice.
                if states is after or name not in known:
                    known[name] = value


def _concept_of(part: dict) -> Concept | None:
    return active_concept(part["concept"]) if part.get("concept") else None


def _part_checked(unit: AtomicUnit, part: dict, number: int) -> dict:
    try:
        return changes_checked(unit, {k: v for k, v in part.items() if k != "concept"})
    except CorrectionRefused as exc:
        raise CorrectionRefused(f"part {number}: {exc}") from None


def _created_fields() -> list[str]:
    return [
        f.name
        for f in AtomicUnit._meta.concrete_fields
        # The vector and its stamps are filled in after commit, not by the split.
        if f.name
        not in (
            "id",
            "embedding",
            "embedding_model",
            "embedding_text_hash",
            "created_at",
            "updated_at",
        )
    ]


def _new_part(unit: AtomicUnit, part: dict, number: int, user) -> AtomicUnit:
    """A new unit for one part of a split: a copy of `unit` with the part's fields, entered
    by the expert, at the end of its concept."""
    concept = _concept_of(part) or unit.concept
    new = AtomicUnit(
        **{f: getattr(unit, f) for f in CORRECTABLE if f not in ("concept",)},
        concept=concept,
        source_id=unit.source_id,
        snapshot=unit.snapshot,
        evidence_quote=unit.evidence_quote,
        evidence_verified=unit.evidence_verified,
        extraction_run_id=unit.extraction_run_id,
        provider=AtomicUnit.Provider.MANUAL,
        review_status=AtomicUnit.ReviewStatus.APPROVED,
        corrected_by=user,
        corrected_at=timezone.now(),
        confirmed_at=unit.confirmed_at,
        fingerprint=unit.fingerprint,
    )
    values = _part_checked(new, {k: v for k, v in part.items() if k != "concept"}, number)
    for field, value in values.items():
        setattr(new, field, value)
    new.fingerprint = fingerprint(new.text)
    last = concept.units.alive().order_by("-ordinal").values_list("ordinal", flat=True).first()
    new.ordinal = (last or 0) + 1
    new.save()
    return new


def _joinable(unit_ids: list[int]) -> list[AtomicUnit]:
    units = list(
        AtomicUnit.objects.alive()
        .select_for_update(of=("self",))
        .select_related("concept", "snapshot")
        .filter(pk__in=unit_ids)
        .order_by("evidence_start", "pk")
    )
    missing = sorted(set(unit_ids) - {unit.pk for unit in units})
    if missing:
        raise CorrectionRefused(f"units: no living unit {missing[0]}")
    if len({unit.snapshot_id for unit in units}) > 1:
        raise CorrectionRefused("units: only units quoted from one version of one page join")
    for earlier, later in zip(units, units[1:], strict=False):
        gap = later.evidence_start - earlier.evidence_end
        if gap > MAX_JOIN_GAP:
            raise CorrectionRefused(
                f"units: {earlier.pk} and {later.pk} are {gap} characters apart on the page, "
                f"not one statement (at most {MAX_JOIN_GAP})"
            )
    return units


def _joined(units: list[AtomicUnit], text: str) -> dict:
    kept = units[0]
    figures = list(kept.figures)
    held = {(f["amount"], f["unit"]) for f in figures}
    for other in units[1:]:
        for amount, value_unit, period in _values_of(other):
            if (amount, value_unit) in held or (
                kept.value_amount is not None and Decimal(amount) == kept.value_amount
            ):
                continue
            held.add((amount, value_unit))
            figures.append({"amount": amount, "unit": value_unit, "period": period, "role": "with"})
    return {
        "text": text or " ".join(unit.text for unit in units),
        "evidence_start": min(unit.evidence_start for unit in units),
        "evidence_end": max(unit.evidence_end for unit in units),
        "figures": figures,
    }


def _values_of(unit: AtomicUnit) -> list[tuple[str, str, str]]:
    values = []
    if unit.value_amount is not None:
        values.append((f"{unit.value_amount.normalize():f}", unit.value_unit, unit.value_period))
    values += [(f["amount"], f["unit"], f.get("period") or "") for f in unit.figures]
    return values
