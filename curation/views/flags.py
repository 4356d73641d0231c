"""The editors' quality flags screen: open doubts about units, accepted or dismissed one at a
time or ticked in bulk."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import FlagFilterForm, FlagResolveForm, form_problem
from curation.selectors import flags as selectors
from curation.selectors.flags import FlagFilters
from curation.selectors.taxonomy import categories_ordered
from curation.services import flags as flag_services
from curation.services.taxonomy import TaxonomyChangeRefused
from curation.views.access import Notice, editor_required
from curation.views.paging import page_number, page_url, paginate
from curation.views.responses import render_page_or_partial, render_partial_or_redirect
from knowledge.models import QualityFlag

FLAGS_TEMPLATE = "curation/taxonomy_flags.html"
HEURISTIC_RAISERS = {"heuristic", "extraction"}


@require_GET
@never_cache
@editor_required
def taxonomy_flags(request: HttpRequest) -> HttpResponse:
    filters = FlagFilterForm(request.GET).filters()
    context = _flag_list(filters, page=request.GET.get("page"))
    return render_page_or_partial(
        request, FLAGS_TEMPLATE, "flag-list", context, title="Quality flags", page=_flags_page
    )


def _flags_page() -> dict:
    return {
        "tab": "flags",
        "kinds": QualityFlag.Kind.choices,
        "categories": categories_ordered(),
        "kind_counts": _flag_kind_counts(),
    }


def _flag_kind_counts() -> list[tuple[str, int]]:
    counts = selectors.flag_counts_by_kind()
    return [(label, counts.get(value, 0)) for value, label in QualityFlag.Kind.choices]


def _flag_list(
    filters: FlagFilters, notice: Notice | None = None, *, page: str | int | None
) -> dict:
    flags = selectors.flags_open(kind=filters.kind, category_slug=filters.category)
    pager = paginate(
        flags,
        number=page,
        per_page=selectors.FLAGS_PER_PAGE,
        url=reverse("curation:taxonomy-flags"),
        query=filters.query(),
        target="flag-list",
    )
    return {
        "flags": pager.page.object_list,
        "pager": pager,
        "filters": filters,
        "heuristic_raisers": HEURISTIC_RAISERS,
        "notice": notice,
    }


@require_POST
@editor_required
def flags_resolve(request: HttpRequest) -> HttpResponse:
    """Accept or dismiss one flag (its audit entry is shown) or many (each on its own)."""
    filters = FlagFilterForm(request.POST).filters()
    form = FlagResolveForm(request.POST)
    if not form.is_valid():
        notice = Notice("error", form_problem(form))
    elif len(form.cleaned_data["flag"]) == 1:
        notice = _flag_resolve_one(request, form)
    else:
        outcome = flag_services.flags_resolve_bulk(
            flag_ids=form.cleaned_data["flag"],
            accept=form.accept,
            user=request.user,
            note=form.cleaned_data["note"],
        )
        notice = _bulk_notice(outcome, accepted=form.accept)
    page = page_number(request.POST.get("page"))  # the list comes back at the page it was on
    back = page_url(reverse("curation:taxonomy-flags"), filters.query(), page)
    return render_partial_or_redirect(
        request,
        FLAGS_TEMPLATE,
        "flag-list",
        lambda: _flag_list(filters, notice, page=page),
        notice=notice,
        to=back,
    )


def _flag_resolve_one(request: HttpRequest, form: FlagResolveForm) -> Notice:
    [flag_id] = form.cleaned_data["flag"]
    resolve = flag_services.flag_accept if form.accept else flag_services.flag_dismiss
    try:
        event = resolve(flag_id=flag_id, user=request.user, note=form.cleaned_data["note"])
    except TaxonomyChangeRefused as exc:
        verb = "accepted" if form.accept else "dismissed"
        return Notice.refused(f"Flag {flag_id} was not {verb}", exc)
    return Notice.done(event)


def _bulk_notice(outcome: flag_services.BulkResolution, *, accepted: bool) -> Notice:
    verb = "Accepted" if accepted else "Dismissed"
    done = ", ".join(map(str, outcome.done)) or "none"
    text = f"{verb} {len(outcome.done)} flag(s) ({done})"
    if outcome.skipped:
        text += f"; skipped {len(outcome.skipped)}"
    details = [f"flag {pk} skipped: {reason}" for pk, reason in outcome.skipped.items()]
    return Notice("warning" if outcome.skipped else "success", text + ".", details=details)
