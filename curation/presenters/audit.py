"""Audit events as people read them: each changed field before → after, users by name and
concepts by their taxonomy id as it is now. The decision log and the taxonomy change log
both show them."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from curation.models import AuditEvent
from curation.services.audit import RECORD_KINDS
from knowledge.models import Concept

RECORD_LABELS = {"candidate": "pair"}  # other kinds are named as the audit trail names them
USER_FIELDS = {"reviewer", "deleted_by", "resolved_by"}
UNIT_FIELDS = {"superseded_by", "unit"}
CONCEPT_FIELDS = {"concept"}
ACTION_LABELS = {
    "candidate.approved": "approved",
    "candidate.rejected": "rejected",
    "candidate.flagged_for_deletion": "flagged for deletion",
}


@dataclass(frozen=True)
class Change:
    record: str
    field: str
    before: str
    after: str


@dataclass(frozen=True)
class EventView:
    event: AuditEvent
    label: str
    is_revert: bool
    reverted_by: AuditEvent | None
    changes: list[Change]

    @property
    def revertible(self) -> bool:
        return not self.is_revert and self.reverted_by is None


def event_views(events: list[AuditEvent]) -> list[EventView]:
    """Audit events as people read them: each changed field before → after, users by name,
    concepts by their taxonomy id as it is now."""
    names = _Names(users=_usernames(events), concepts=_concept_ids(events))
    return [_event_view(event, names) for event in events]


@dataclass(frozen=True)
class _Names:
    users: dict[int, str]
    concepts: dict[int, str]


def _event_view(event: AuditEvent, names: _Names) -> EventView:
    is_revert = event.action.endswith(".revert")
    base = event.action.removesuffix(".revert")
    label = ACTION_LABELS.get(base, base)
    return EventView(
        event=event,
        label=f"reverted “{label}”" if is_revert else label,
        is_revert=is_revert,
        reverted_by=getattr(event, "reverted_by", None),
        changes=_changes(event.before or {}, event.after or {}, names),
    )


def _changes(before: dict, after: dict, names: _Names) -> list[Change]:
    rows = []
    for kind in sorted(set(before) | set(after), key=lambda k: (k != "candidate", k)):
        model = RECORD_KINDS.get(kind)
        old_records, new_records = before.get(kind, {}), after.get(kind, {})
        for pk in sorted(set(old_records) | set(new_records), key=int):
            # A record the change created (or deleted) is null on that side.
            record = f"{RECORD_LABELS.get(kind, kind)} {pk}"
            if old_records.get(pk) is None:
                record += " (created)"
            elif new_records.get(pk) is None:
                record += " (deleted)"
            old, new = old_records.get(pk) or {}, new_records.get(pk) or {}
            for name in [*old, *(n for n in new if n not in old)]:
                if name in old and name in new and old[name] == new[name]:
                    continue  # recorded for a revert's check, but not changed
                field_ = model._meta.get_field(name) if model else None
                rows.append(
                    Change(
                        record=record,
                        field=str(field_.verbose_name) if field_ else name.replace("_", " "),
                        before=_readable(field_, name, old.get(name), names),
                        after=_readable(field_, name, new.get(name), names),
                    )
                )
    return rows


def _readable(field_, name: str, value, names: _Names) -> str:
    if value is None or value == "":
        return "—"
    if field_ is not None and field_.choices:
        return str(dict(field_.flatchoices).get(value, value))
    if name in USER_FIELDS:
        return names.users.get(value, f"user {value}")
    if name in CONCEPT_FIELDS:
        return names.concepts.get(value, f"concept {value}")
    if name in UNIT_FIELDS:
        return f"unit {value}"
    if isinstance(value, str) and "T" in value and (moment := parse_datetime(value)):
        return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}"
    return str(value)


def _field_values(events: list[AuditEvent], fields: set[str]) -> set:
    values = set()
    for event in events:
        for state in (event.before or {}, event.after or {}):
            for records in state.values():
                for record in records.values():
                    record = record or {}  # a created or deleted record is null on one side
                    values.update(record[name] for name in fields if record.get(name))
    return values


def _usernames(events: list[AuditEvent]) -> dict[int, str]:
    users = get_user_model().objects.filter(pk__in=_field_values(events, USER_FIELDS))
    return {user.pk: user.get_username() for user in users}


def _concept_ids(events: list[AuditEvent]) -> dict[int, str]:
    ids = _field_values(events, CONCEPT_FIELDS)
    return dict(Concept.objects.filter(pk__in=ids).values_list("pk", "taxonomy_id"))
