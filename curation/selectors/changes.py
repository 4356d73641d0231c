"""Reads for the taxonomy change log: editors' audit entries and their reverts."""

from __future__ import annotations

from django.db.models import Q

from curation.models import AuditEvent
from curation.services.taxonomy import EDITOR_ACTIONS

CHANGE_LOG_LIMIT = 100


def taxonomy_changes_recent(
    *, limit: int = CHANGE_LOG_LIMIT, actions: tuple[str, ...] = EDITOR_ACTIONS
) -> list[AuditEvent]:
    """Editors' changes (those whose action starts with one of `actions`) and their
    reverts, newest first, with who reverted what."""
    return list(
        AuditEvent.objects.filter(_actions(actions))
        .select_related("actor", "reverts", "reverted_by__actor")
        .order_by("-created_at", "-pk")[:limit]
    )


def taxonomy_change_get(*, event_id: int) -> AuditEvent:
    return AuditEvent.objects.filter(_actions(EDITOR_ACTIONS)).get(pk=event_id)


def _actions(prefixes: tuple[str, ...]) -> Q:
    match = Q()
    for prefix in prefixes:
        match |= Q(action__startswith=prefix)
    return match
