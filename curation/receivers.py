"""Reactions to knowledge's signals (connected in CurationConfig.ready)."""

from __future__ import annotations

from django.db import transaction


def detect_after_embedding(sender, count: int = 0, **kwargs) -> None:
    """New unit vectors were stored: queue the superseding detector once they are committed."""
    from curation.tasks import detect_superseding

    transaction.on_commit(detect_superseding.delay)
