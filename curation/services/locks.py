"""The concept lock every writer of a concept's units holds, and the refusal a clash found
only at commit becomes.

Whoever adds units to a concept, takes units from it or renumbers it locks the concept's row
first (extraction does too, in knowledge.services.proposals), so its ordinals are read and
taken by one writer at a time, and a retirement or merge sees the concept as it is. Locks are
taken in id order, so two changes never wait on each other in a circle."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.db import IntegrityError, OperationalError, models, transaction

from knowledge.models import AtomicUnit, Concept

ORDINAL_CONSTRAINT = "unit_ordinal_unique_in_concept"
# PostgreSQL's codes for a deadlock and a serialization failure: another change won.
LOST_RACE_STATES = {"40P01", "40001"}
Row = TypeVar("Row", bound=models.Model)


def concepts_lock(concept_ids: Iterable[int | None]) -> dict[int, Concept]:
    """Lock the concepts' rows (in id order) for the rest of the transaction."""
    ids = sorted({concept_id for concept_id in concept_ids if concept_id is not None})
    locked = Concept.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {concept.pk: concept for concept in locked}


def living_unit_lock(unit_id: int, *, refusal: type[Exception]) -> AtomicUnit:
    """Unit `unit_id` and its concept, locked for the rest of the transaction (the concept
    first, as every writer of a concept does). Raises `refusal` when the unit has left the
    knowledge base or was moved meanwhile, AtomicUnit.DoesNotExist when there is no such unit."""
    concept_id = AtomicUnit.objects.values_list("concept_id", flat=True).get(pk=unit_id)
    concepts_lock([concept_id])
    units = AtomicUnit.objects.select_for_update(of=("self",)).select_related("concept")
    unit = units.get(pk=unit_id)
    if unit.deleted_at is not None:
        raise refusal(f"unit: unit {unit.pk} has left the knowledge base already")
    if unit.concept_id != concept_id:
        raise refusal(f"unit: unit {unit.pk} was moved meanwhile; try again")
    return unit


def row_lock_in_status(
    rows: models.QuerySet[Row],
    *,
    pk: int,
    status: str,
    refusal: type[Exception],
    missing: str,
    taken: Callable[[Row], str],
) -> Row:
    """Row `pk` of `rows`, locked for the rest of the transaction, if it is still in `status`
    (open, pending): of two people deciding it at once, the second waits for the first and is
    then refused. Raises `refusal(missing)` when there is no such row, `refusal(taken(row))`
    when it is no longer in `status`."""
    try:
        row = rows.select_for_update(of=("self",)).get(pk=pk)
    except rows.model.DoesNotExist:
        raise refusal(missing) from None
    if row.status != status:
        raise refusal(taken(row))
    return row


@contextmanager
def atomic_or_refused(refusal: type[Exception]) -> Iterator[None]:
    """One transaction; a conflict the database reports at commit (the deferred ordinal
    uniqueness, a constraint, a deadlock) is raised as `refusal`, which the screens show."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError as exc:
        raise refusal(_integrity_reason(exc)) from exc
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", None) not in LOST_RACE_STATES:
            raise
        raise refusal("another change to the same records went first; try again") from exc


def _integrity_reason(exc: IntegrityError) -> str:
    diag = getattr(exc.__cause__, "diag", None)
    if getattr(diag, "constraint_name", None) == ORDINAL_CONSTRAINT:
        return "another change gave the concept's units new places at the same time; try again"
    return str(exc).strip().splitlines()[0]
