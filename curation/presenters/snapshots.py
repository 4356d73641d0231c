"""A page snapshot cut round a unit's quote, for the snapshot screen."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.models import AtomicUnit, PageSnapshot


@dataclass(frozen=True)
class SnapshotReading:
    snapshot: PageSnapshot
    unit: AtomicUnit | None
    before: str
    quote: str
    after: str
    where: str  # "offsets", "found" (the quote is elsewhere in the text), "missing" or ""


def snapshot_reading(snapshot: PageSnapshot, unit: AtomicUnit | None) -> SnapshotReading:
    """The page text cut round the unit's quote: at its recorded offsets when they hold the
    quote, else where the quote first occurs, else not marked (and said so)."""
    text = snapshot.text
    if unit is None:
        return SnapshotReading(snapshot, None, text, "", "", "")
    start, end, where = unit.evidence_start, unit.evidence_end, "offsets"
    if text[start:end] != unit.evidence_quote:
        found = text.find(unit.evidence_quote)
        if found < 0:
            return SnapshotReading(snapshot, unit, text, "", "", "missing")
        start, end, where = found, found + len(unit.evidence_quote), "found"
    return SnapshotReading(snapshot, unit, text[:start], text[start:end], text[end:], where)
