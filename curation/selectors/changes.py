"""Reads for the taxonomy change log: editors' audit entries and their reverts."""

from __future__ import annotations

from django.db.models import Q

from curation.models import AuditEvent
from curation.services.taxonomy import EDITOR_ACTIONS

CHANGE_LOG_LIMIT = 100


def taxonomy_changes_recent(*, limit: int = CHANGE_LOG_LIMIT) -> list[AuditEvent]:
    """Editors' changes and their reverts, newest first, with who reverted what."""
    return list(
        AuditEvent.objects.filter(_editor_actions())
        .select_related("actor", "reverts", "reverted_by__actor")
        .order_by("-created_at", "-pk")[:limit]
    )


def taxonomy_change_get(*, event_id: int) -> AuditEvent:
    return AuditEvent.objects.filter(_editor_actions()).get(pk=event_id)


def _editor_actions() -> Q:
    match = Q()
    for prefix in EDITOR_ACTIONS:
        match |= Q(action__startswith=prefix)
    return match
