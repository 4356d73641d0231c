"""Unit housekeeping shared by every curation decision that removes or moves units."""

from __future__ import annotations

from django.db import transaction

from knowledge.models import AtomicUnit


@transaction.atomic
def concept_ordinals_renumber(*, concept_id: int) -> dict[int, tuple[int | None, int]]:
    """Number the concept's living units 1..n in their present order (gaps closed).

    Returns {unit id: (old ordinal, new ordinal)} for the units whose ordinal changed. The
    per-concept uniqueness is deferred to commit, so the renumbering may pass through clashes.
    """
    units = list(
        AtomicUnit.objects.alive()
        .filter(concept_id=concept_id)
        .select_for_update()
        .order_by("ordinal", "id")
        .only("id", "ordinal")
    )
    changed = {}
    for position, unit in enumerate(units, start=1):
        if unit.ordinal != position:
            changed[unit.pk] = (unit.ordinal, position)
            unit.ordinal = position
    AtomicUnit.objects.bulk_update(
        [unit for unit in units if unit.pk in changed], ["ordinal"], batch_size=500
    )
    return changed
