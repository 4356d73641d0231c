"""A page snapshot as fetched, with the quote of one unit marked (its evidence)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from curation.presenters.snapshots import snapshot_reading
from curation.selectors import snapshots as selectors
from curation.services.superseding import DECIDE_PERMISSION
from curation.views.access import admin_page, reader_required
from knowledge.models import PageSnapshot

SNAPSHOT_TEMPLATE = "curation/snapshot.html"


@require_GET
@reader_required
def snapshot(request: HttpRequest, snapshot_id: int) -> HttpResponse:
    try:
        page = selectors.snapshot_for_reading(snapshot_id=snapshot_id)
    except PageSnapshot.DoesNotExist:
        raise Http404("No such page snapshot.") from None
    unit = None
    raw_unit = request.GET.get("unit", "")
    if raw_unit.isdigit():
        unit = selectors.snapshot_unit(snapshot_id=snapshot_id, unit_id=int(raw_unit))
        if unit is None:
            raise Http404("That unit does not quote this snapshot.")
    context = admin_page(
        request,
        f"Page snapshot {snapshot_id}",
        reading=snapshot_reading(page, unit),
        may_review=request.user.has_perm(DECIDE_PERMISSION),
    )
    return render(request, SNAPSHOT_TEMPLATE, context)
