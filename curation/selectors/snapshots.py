"""Reads for the page snapshot screen: a fetched page and the unit whose quote it shows."""

from __future__ import annotations

from knowledge.models import AtomicUnit, PageSnapshot


def snapshot_for_reading(*, snapshot_id: int) -> PageSnapshot:
    """Raises PageSnapshot.DoesNotExist."""
    return PageSnapshot.objects.select_related("source").get(pk=snapshot_id)


def snapshot_unit(*, snapshot_id: int, unit_id: int) -> AtomicUnit | None:
    """The unit whose evidence quotes this snapshot, removed ones included (they stay in the
    audit trail), or None."""
    return AtomicUnit.objects.defer("embedding").filter(pk=unit_id, snapshot_id=snapshot_id).first()
