"""The audit trail: every decision and edit records the fields it touched, before and after,
so that it can be read by people and reverted by code.

`before` and `after` map a record kind to {primary key: {field: value}}, e.g.
{"unit": {"12": {"superseded_by": null}}, "candidate": {"7": {"status": "pending"}}}. Values
are JSON (dates and times as ISO text, foreign keys as ids); a record the change created is
`null` in `before`, one it deleted is `null` in `after`. A revert checks that every field
still holds its `after` value (nothing changed it since), then writes `before` back, deleting
what the change created and re-creating what it deleted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, models, transaction
from django.db.models import Count, ProtectedError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from curation.models import AuditEvent, AuditJudgement, AuditSample, SupersedingCandidate
from curation.services.locks import atomic_or_refused, concepts_lock
from knowledge.models import (
    AtomicUnit,
    Category,
    Concept,
    ConceptAlias,
    ExtractionItem,
    ExtractionRun,
    GlossaryTerm,
    LifeEvent,
    QualityFlag,
    UnitSighting,
)

RECORD_KINDS: dict[str, type[models.Model]] = {
    "unit": AtomicUnit,
    "item": ExtractionItem,
    "run": ExtractionRun,
    "flag": QualityFlag,
    "sighting": UnitSighting,
    "candidate": SupersedingCandidate,
    "concept": Concept,
    "category": Category,
    "alias": ConceptAlias,
    "glossary_term": GlossaryTerm,
    "life_event": LifeEvent,
    "judgement": AuditJudgement,
    "sample": AuditSample,
}


class RevertRefused(ValueError):
    """The event cannot be reverted as asked; the message says why."""


MAX_NOTE = 2000


def note_checked(note: str | None, refused: type[Exception], *, field: str = "note") -> str:
    """A person's note or reason on a decision, stripped; refused (naming the field) when it
    is too long or holds a NUL, which PostgreSQL cannot store in text."""
    note = (note or "").strip()
    if len(note) > MAX_NOTE:
        raise refused(f"{field}: at most {MAX_NOTE} characters")
    if "\x00" in note:
        raise refused(f"{field}: must not contain a NUL character")
    return note


def state_of(instance: models.Model, fields: Iterable[str]) -> dict[str, object]:
    """The named fields of a record as JSON values (foreign keys by their attname)."""
    state = {}
    for name in fields:
        field = instance._meta.get_field(name)
        state[name] = _to_json(getattr(instance, field.attname))
    return state


def states_of(instances: Iterable[models.Model], fields: Iterable[str]) -> dict[str, dict]:
    fields = tuple(fields)
    return {str(instance.pk): state_of(instance, fields) for instance in instances}


def _to_json(value):
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def audit_record(
    *,
    actor,
    action: str,
    target: models.Model,
    summary: str,
    before: dict,
    after: dict,
    note: str = "",
    reverts: AuditEvent | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        target_type=target._meta.model_name,
        target_id=target.pk,
        summary=summary,
        note=note,
        before=before,
        after=after,
        reverts=reverts,
    )


def last_decided_by(*, action: str, target: models.Model) -> str | None:
    """ "by <user> at <time>" for the latest decision `action` on `target` that stands (not
    reverted), or None when there is none: how a refusal says who decided already."""
    last = (
        AuditEvent.objects.filter(
            action=action,
            target_type=target._meta.model_name,
            target_id=target.pk,
            reverted_by__isnull=True,
        )
        .select_related("actor")
        .first()
    )
    if last is None:
        return None
    who = last.actor.get_username() if last.actor else "someone"
    return f"by {who} at {timezone.localtime(last.created_at).strftime('%Y-%m-%d %H:%M')}"


def audit_revert(*, event_id: int, user, permission: str) -> AuditEvent:
    """Put back exactly what the event changed, in one transaction, and record the revert.

    Refused when the user lacks `permission`, when the event was itself a revert or has been
    reverted already, or when any touched field no longer holds the value the event left."""
    if not user.has_perm(permission):
        raise PermissionDenied("You may not revert this decision.")
    with atomic_or_refused(RevertRefused):
        event = AuditEvent.objects.select_for_update().get(pk=event_id)
        if event.reverts_id is not None:
            raise RevertRefused("a revert cannot itself be reverted; decide again instead")
        if AuditEvent.objects.filter(reverts=event).exists():
            raise RevertRefused("this change has been reverted already")
        locked = concepts_lock(_concepts_touched(event))
        records = _locked_records(event.after)
        _check_unchanged(records, event.after)
        _write_fields(records, event.before)
        _check_places_free(locked, restored=set(event.before.get("unit", {})))
        return audit_record(
            actor=user,
            action=f"{event.action}.revert",
            target=_target_of(event),
            summary=f"Reverted: {event.summary}",
            before=event.after,
            after=event.before,
            reverts=event,
        )


def _concepts_touched(event: AuditEvent) -> set[int]:
    """The concepts whose units the revert renumbers or moves, and those it changes itself."""
    units = {int(pk) for states in (event.before, event.after) for pk in states.get("unit", {})}
    touched = set(AtomicUnit.objects.filter(pk__in=units).values_list("concept_id", flat=True))
    for states in (event.before, event.after):
        touched |= {int(pk) for pk in states.get("concept", {})}
        for fields in states.get("unit", {}).values():
            touched.add((fields or {}).get("concept"))
    return touched


def _check_places_free(concept_ids: Iterable[int], *, restored: set[str]) -> None:
    """Refuse a revert that puts a unit back in a place another unit took since (a concept
    gained units after the change); the database would refuse it only at commit."""
    clash = (
        AtomicUnit.objects.alive()
        .filter(concept_id__in=concept_ids)
        .values("concept_id", "ordinal")
        .annotate(holders=Count("id"))
        .filter(holders__gt=1)
        .order_by("concept_id", "ordinal")
        .first()
    )
    if clash is None:
        return
    holders = AtomicUnit.objects.alive().filter(
        concept_id=clash["concept_id"], ordinal=clash["ordinal"]
    )
    ordered = list(holders.select_related("concept").order_by("pk"))
    newcomer = next((u for u in ordered if str(u.pk) not in restored), ordered[0])
    raise RevertRefused(
        f"{newcomer.concept.taxonomy_id} has changed since: unit {newcomer.pk} now holds place "
        f"{clash['ordinal']}; move it out or revert that change first"
    )


def _target_of(event: AuditEvent) -> models.Model:
    """The event's target; when reverting its creation deleted it, a stand-in with its id
    (the revert's record names what it removed)."""
    model = next(m for m in RECORD_KINDS.values() if m._meta.model_name == event.target_type)
    return model.objects.filter(pk=event.target_id).first() or model(pk=event.target_id)


def _locked_records(touched: dict) -> dict[str, dict[str, models.Model | None]]:
    records = {}
    for kind, by_pk in touched.items():
        model = RECORD_KINDS[kind]
        found = model.objects.select_for_update().in_bulk([int(pk) for pk in by_pk])
        records[kind] = {pk: found.get(int(pk)) for pk in by_pk}
    return records


def _check_unchanged(records: dict, expected: dict) -> None:
    for kind, by_pk in expected.items():
        for pk, fields in by_pk.items():
            instance = records[kind][pk]
            if fields is None:
                if instance is not None:
                    raise RevertRefused(f"{kind} {pk} exists again; revert the later change first")
                continue
            if instance is None:
                raise RevertRefused(f"{kind} {pk} no longer exists")
            now = state_of(instance, fields)
            for name, value in fields.items():
                if now[name] != value:
                    raise RevertRefused(
                        f"{kind} {pk} has changed since ({name} is now {now[name]!r}, "
                        f"was left {value!r}); revert the later change first"
                    )


def _write_fields(records: dict, values: dict) -> None:
    for kind, by_pk in values.items():
        model = RECORD_KINDS[kind]
        for pk, fields in by_pk.items():
            instance = records[kind][pk]
            if fields is None:
                try:
                    with transaction.atomic():
                        instance.delete()
                except (ProtectedError, IntegrityError):
                    raise RevertRefused(
                        f"{kind} {pk} is used by a later change; revert that first"
                    ) from None
                continue
            if instance is None:
                instance = model(pk=int(pk))
            for name, value in fields.items():
                field = instance._meta.get_field(name)
                setattr(instance, field.attname, _from_json(field, value))
            if instance._state.adding:
                instance.save(force_insert=True)
            else:
                named = [instance._meta.get_field(n).name for n in fields]
                # auto_now fields too, so that readers keyed on change times see the revert
                touched = [f.name for f in instance._meta.fields if getattr(f, "auto_now", False)]
                instance.save(update_fields=[*named, *touched])


def _from_json(field: models.Field, value):
    if value is None:
        return None
    if isinstance(field, models.DateTimeField):
        return parse_datetime(value)
    if isinstance(field, models.DateField):
        return parse_date(value)
    if isinstance(field, models.DecimalField):
        return Decimal(value)
    return value
