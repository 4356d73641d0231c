"""What the superseding detector knows of a unit, and which of two units is the newer.

Reads of the units to compare (alive, with a vector) and of the pairs already known, and the
order of a pair decided from validity and page versions, never by a model.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
from django.db.models import Exists, OuterRef, Q

from curation.models import SupersedingCandidate, UnitDetectorCheck
from knowledge.embeddings import unit_vectors
from knowledge.models import AtomicUnit
from knowledge.providers import UnitText

_EPOCH = dt.datetime(1, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True, eq=False)
class DetectorUnit:
    """What the detector needs of a unit."""

    id: int
    concept_id: int
    text: UnitText
    snapshot_id: int
    page_updated_at: dt.datetime | None
    fetched_at: dt.datetime
    vector: np.ndarray  # L2-normalised
    checked: bool


@dataclass(frozen=True)
class Order:
    older: DetectorUnit
    newer: DetectorUnit
    basis: str


def detection_concept_ids(*, concept_id: int | None = None, recheck: bool = False) -> list[int]:
    """Concepts holding units the detector has not compared yet (all units with `recheck`)."""
    units = AtomicUnit.objects.alive().filter(embedding__isnull=False)
    if concept_id is not None:
        units = units.filter(concept_id=concept_id)
    if not recheck:
        units = units.exclude(Exists(UnitDetectorCheck.objects.filter(unit=OuterRef("pk"))))
    return sorted(set(units.values_list("concept_id", flat=True)))


def concept_detector_units(*, concept_id: int) -> list[DetectorUnit]:
    rows = (
        AtomicUnit.objects.alive()
        .filter(concept_id=concept_id, embedding__isnull=False)
        .annotate(checked=Exists(UnitDetectorCheck.objects.filter(unit=OuterRef("pk"))))
        .order_by("pk")
        .values(
            "id",
            "concept_id",
            "unit_type",
            "text",
            "value_amount",
            "value_unit",
            "value_period",
            "valid_from",
            "valid_to",
            "snapshot_id",
            "snapshot__public_updated_at",
            "snapshot__fetched_at",
            "source__url",
            "concept__taxonomy_id",
            "concept__name",
            "embedding",
            "checked",
        )
    )
    return [_detector_unit(row) for row in rows]


def _detector_unit(row: dict) -> DetectorUnit:
    return DetectorUnit(
        id=row["id"],
        concept_id=row["concept_id"],
        text=UnitText(
            unit_type=row["unit_type"],
            text=row["text"],
            concept=f"{row['concept__taxonomy_id']}: {row['concept__name']}",
            value_amount=row["value_amount"],
            value_unit=row["value_unit"],
            value_period=row["value_period"],
            valid_from=row["valid_from"],
            valid_to=row["valid_to"],
            source_url=row["source__url"],
        ),
        snapshot_id=row["snapshot_id"],
        page_updated_at=row["snapshot__public_updated_at"],
        fetched_at=row["snapshot__fetched_at"],
        vector=unit_vectors(row["embedding"], dtype=np.float64),
        checked=row["checked"],
    )


def known_pairs(*, unit_ids: list[int]) -> dict[frozenset[int], str]:
    """Unordered pairs already proposed or decided, in any status, among these units: their
    status by pair."""
    rows = SupersedingCandidate.objects.filter(
        Q(older_id__in=unit_ids) | Q(newer_id__in=unit_ids)
    ).values_list("older_id", "newer_id", "status")
    return {frozenset((older, newer)): status for older, newer, status in rows}


# --- which is newer ------------------------------------------------------------------


def unit_order(a: DetectorUnit, b: DetectorUnit) -> Order | None:
    """The later valid_from (then valid_to) is newer; when validity is missing or equal, the
    unit of the later page version (gov.uk's update date, then when it was fetched); None
    when nothing tells them apart."""
    order = _later(a, b, "later valid_from", a.text.valid_from, b.text.valid_from) or _later(
        a, b, "later valid_to", a.text.valid_to, b.text.valid_to
    )
    if order is not None or a.snapshot_id == b.snapshot_id:
        return order  # one page version, one time: two values there are two rules
    return _later(a, b, "later page update", a.page_updated_at, b.page_updated_at) or _later(
        a, b, "later snapshot fetch", a.fetched_at, b.fetched_at
    )


def _later(a: DetectorUnit, b: DetectorUnit, basis: str, first, second) -> Order | None:
    if first is None or second is None or first == second:
        return None
    return Order(a, b, basis) if first < second else Order(b, a, basis)


def unit_recency(unit: DetectorUnit) -> tuple:
    """How recent a unit's rule is, for ordering an older unit's candidates nearest first."""
    return (
        unit.text.valid_from or dt.date.min,
        unit.text.valid_to or dt.date.min,
        unit.page_updated_at or _EPOCH,
        unit.fetched_at,
    )
