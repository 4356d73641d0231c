"""Editors resolve quality flags: accept (a misplaced unit moves to the suggested concept)
or dismiss, one by one or in bulk; each resolution is audited and revertible."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from curation.models import AuditEvent
from curation.services.audit import audit_record, states_of
from curation.services.locks import row_lock_in_status
from curation.services.taxonomy import (
    TaxonomyChangeRefused,
    active_concept_get,
    require_editor,
    units_place,
)
from knowledge.models import QualityFlag

FLAG_FIELDS = ("status", "resolved_by", "resolved_at")


def flag_accept(*, flag_id: int, user, note: str = "") -> AuditEvent:
    """Accept a doubt: a misplaced unit moves to the suggested concept; other kinds of flag
    are simply marked accepted (the editor has dealt with them)."""
    require_editor(user)
    with transaction.atomic():
        flag = _open_flag(flag_id)
        before, after = {"unit": {}}, {"unit": {}}
        if flag.kind == QualityFlag.Kind.MISPLACED and flag.suggested_concept_id:
            target = active_concept_get(flag.suggested_concept_id)
            if flag.unit.deleted_at is not None:
                raise TaxonomyChangeRefused(f"unit {flag.unit_id} has left the knowledge base")
            if flag.unit.concept_id != target.pk:
                before, after = units_place([flag.unit], target)
        before["flag"] = states_of([flag], FLAG_FIELDS)
        _resolve(flag, QualityFlag.Status.ACCEPTED, user)
        after["flag"] = states_of([flag], FLAG_FIELDS)
        moved = f", unit moved to {flag.suggested_concept.taxonomy_id}" if after["unit"] else ""
        return audit_record(
            actor=user,
            action="flag.accept",
            target=flag,
            note=note,
            summary=f"Accepted {flag.get_kind_display().lower()} on unit {flag.unit_id}{moved}",
            before=before,
            after=after,
        )


def flag_dismiss(*, flag_id: int, user, note: str = "") -> AuditEvent:
    require_editor(user)
    with transaction.atomic():
        flag = _open_flag(flag_id)
        before = {"flag": states_of([flag], FLAG_FIELDS)}
        _resolve(flag, QualityFlag.Status.DISMISSED, user)
        return audit_record(
            actor=user,
            action="flag.dismiss",
            target=flag,
            note=note,
            summary=f"Dismissed {flag.get_kind_display().lower()} on unit {flag.unit_id}",
            before=before,
            after={"flag": states_of([flag], FLAG_FIELDS)},
        )


@dataclass
class BulkResolution:
    done: list[int] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)


def flags_resolve_bulk(
    *, flag_ids: list[int], accept: bool, user, note: str = ""
) -> BulkResolution:
    """Each flag in its own transaction: one that cannot be resolved is reported, the rest go on."""
    require_editor(user)
    resolve = flag_accept if accept else flag_dismiss
    outcome = BulkResolution()
    for flag_id in dict.fromkeys(flag_ids):
        try:
            resolve(flag_id=flag_id, user=user, note=note)
        except TaxonomyChangeRefused as exc:
            outcome.skipped[flag_id] = str(exc)
        else:
            outcome.done.append(flag_id)
    return outcome


def _open_flag(flag_id: int) -> QualityFlag:
    return row_lock_in_status(
        QualityFlag.objects.select_related("unit", "suggested_concept"),
        pk=flag_id,
        status=QualityFlag.Status.OPEN,
        refusal=TaxonomyChangeRefused,
        missing=f"flag: no quality flag {flag_id}",
        taken=_resolved,
    )


def _resolved(flag: QualityFlag) -> str:
    who = flag.resolved_by.get_username() if flag.resolved_by else "someone"
    return f"flag: already {flag.status} by {who}"


def _resolve(flag: QualityFlag, status: str, user) -> None:
    flag.status, flag.resolved_by, flag.resolved_at = status, user, timezone.now()
    flag.save(update_fields=list(FLAG_FIELDS))
