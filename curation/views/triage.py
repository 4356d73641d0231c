"""The editors' triage screen: extraction items the extractor could not place, assigned to a
concept (they become units) or discarded with a reason."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import TriageAssignForm, TriageDiscardForm, form_problem
from curation.selectors import triage as selectors
from curation.selectors.taxonomy import concepts_for_picker
from curation.services.taxonomy import TaxonomyChangeRefused
from curation.services.triage import triage_assign, triage_discard
from curation.views.access import Notice, editor_required
from curation.views.paging import paginate
from curation.views.responses import render_page_or_partial, render_partial_or_redirect
from knowledge.models import ExtractionItem

TRIAGE_TEMPLATE = "curation/taxonomy_triage.html"


@require_GET
@never_cache
@editor_required
def taxonomy_triage(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind", "")
    kind = kind if kind in ExtractionItem.Kind.values else ""
    context = _item_list(kind, page=request.GET.get("page"))
    return render_page_or_partial(
        request, TRIAGE_TEMPLATE, "item-list", context, title="Triage", page=_triage_page
    )


def _triage_page() -> dict:
    return {"tab": "triage", "kinds": ExtractionItem.Kind.choices, "picker": concepts_for_picker()}


def _item_list(kind: str, *, page: str | None) -> dict:
    pager = paginate(
        selectors.items_open(kind=kind),
        number=page,
        per_page=selectors.TRIAGE_PER_PAGE,
        url=reverse("curation:taxonomy-triage"),
        query=urlencode({"kind": kind} if kind else {}),
        target="item-list",
    )
    shown = list(pager.page.object_list)
    candidates = selectors.item_candidates(items=shown)
    return {
        "items": [_item_view(item, candidates[item.pk]) for item in shown],
        "pager": pager,
        "kind": kind,
    }


def _item_view(item: ExtractionItem, candidates: list, notice: Notice | None = None) -> dict:
    best = next((c.concept.taxonomy_id for c in candidates if c.concept is not None), "")
    return {"item": item, "candidates": candidates, "best": best, "notice": notice}


@require_POST
@editor_required
def item_assign(request: HttpRequest, item_id: int) -> HttpResponse:
    refused = f"Item {item_id} was not assigned"
    form = TriageAssignForm(request.POST)
    if not form.is_valid():
        return _after_item_change(request, item_id, Notice.refused(refused, form_problem(form)))
    try:
        event = triage_assign(
            item_id=item_id,
            concept_id=form.cleaned_data["concept"].pk,
            user=request.user,
            note=form.cleaned_data["note"],
        )
    except TaxonomyChangeRefused as exc:
        return _after_item_change(request, item_id, Notice.refused(refused, exc))
    return _after_item_change(request, item_id, Notice.done(event))


@require_POST
@editor_required
def item_discard(request: HttpRequest, item_id: int) -> HttpResponse:
    form = TriageDiscardForm(request.POST)
    form.is_valid()  # the reason is the service's to refuse
    try:
        event = triage_discard(
            item_id=item_id, user=request.user, reason=form.cleaned_data.get("reason", "")
        )
    except TaxonomyChangeRefused as exc:
        notice = Notice.refused(f"Item {item_id} was not discarded", exc)
    else:
        notice = Notice.done(event)
    return _after_item_change(request, item_id, notice)


def _after_item_change(request: HttpRequest, item_id: int, notice: Notice) -> HttpResponse:
    """htmx: the item's own box again, its outcome inside (a resolved item shows only that)."""

    def item_box() -> dict:
        try:
            item = selectors.item_for_triage(item_id=item_id)
        except ExtractionItem.DoesNotExist:
            raise Http404("No such extraction item.") from None
        candidates = selectors.item_candidates(items=[item])[item.pk]
        return _item_view(item, candidates, notice)

    return render_partial_or_redirect(
        request, TRIAGE_TEMPLATE, "item", item_box, notice=notice, to="curation:taxonomy-triage"
    )
