"""The editors' bootstrap screen: propose concepts for a category from its pages, then, once
editors have approved some, extract its pages again so their facts bind to them."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import BootstrapPagesForm, BootstrapProposeForm, form_problem
from curation.selectors import taxonomy as selectors
from curation.services.bootstrap import (
    BootstrapRefused,
    BootstrapReport,
    category_reextract,
    concepts_bootstrap,
)
from curation.views.access import Notice, admin_page, editor_required, notice_message
from knowledge.models import Category, Concept

BOOTSTRAP_TEMPLATE = "curation/taxonomy_bootstrap.html"


@require_GET
@never_cache
@editor_required
def taxonomy_bootstrap(request: HttpRequest) -> HttpResponse:
    proposals = selectors.proposals_by_category()
    categories = [
        _bootstrap_view(category, proposals.get(category.pk, []))
        for category in selectors.categories_with_counts()
    ]
    context = admin_page(
        request,
        "Bootstrap concepts",
        tab="bootstrap",
        categories=categories,
        picker=selectors.concepts_for_picker(),
    )
    return render(request, BOOTSTRAP_TEMPLATE, context)


def _bootstrap_view(
    category: Category, proposals: list[Concept], notice: Notice | None = None, prefixes=""
) -> dict:
    return {"category": category, "proposals": proposals, "notice": notice, "prefixes": prefixes}


@require_POST
@editor_required
def bootstrap_propose(request: HttpRequest, slug: str) -> HttpResponse:
    category = _category_or_404(slug)
    form = BootstrapProposeForm(request.POST)
    if not form.is_valid():
        notice = Notice.refused("No concepts were proposed", form_problem(form))
    else:
        try:
            report = concepts_bootstrap(
                category_slug=slug,
                prefix=form.cleaned_data["prefix"],
                url_prefixes=form.url_prefix_list(),
                limit=form.cleaned_data["limit"],
                user=request.user,
            )
        except BootstrapRefused as exc:
            notice = Notice.refused("No concepts were proposed", exc)
        else:
            notice = _proposed_notice(report)
    return after_bootstrap_change(request, category.pk, notice, prefixes=_prefixes_sent(form))


def _proposed_notice(report: BootstrapReport) -> Notice:
    text = (
        f"Read {report.pages} page(s): proposed {len(report.proposed)} new concept(s)"
        f"{' (' + ', '.join(report.proposed) + ')' if report.proposed else ''}."
    )
    details = []
    if report.existing:
        details.append(f"Already taken, not proposed again: {', '.join(report.existing)}")
    return Notice("success" if report.proposed else "warning", text, details=details)


@require_POST
@editor_required
def bootstrap_reextract(request: HttpRequest, slug: str) -> HttpResponse:
    """Synchronous: the editor waits and reads what it made (a page already re-extracted
    for this state of the taxonomy costs nothing)."""
    category = _category_or_404(slug)
    form = BootstrapPagesForm(request.POST)
    if not form.is_valid():
        notice = Notice.refused("Nothing was re-extracted", form_problem(form))
        return after_bootstrap_change(request, category.pk, notice, prefixes="")
    try:
        report = category_reextract(
            category_slug=slug, url_prefixes=form.url_prefix_list(), user=request.user
        )
    except BootstrapRefused as exc:
        notice = Notice.refused("Nothing was re-extracted", exc)
    else:
        notice = Notice(
            "success",
            f"Re-extracted {report.pages} page(s) of {category.name}: "
            f"{report.units_made} new unit(s) bound to its active concepts.",
        )
    return after_bootstrap_change(request, category.pk, notice, prefixes=_prefixes_sent(form))


def _prefixes_sent(form: BootstrapPagesForm) -> str:
    """The page addresses as the editor typed them, to put back in the box."""
    return form.cleaned_data.get("url_prefixes", "")


def _category_or_404(slug: str) -> Category:
    try:
        return selectors.category_get(slug=slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None


def after_bootstrap_change(
    request: HttpRequest, category_id: int, notice: Notice, *, prefixes: str
) -> HttpResponse:
    """htmx: the category's box again, its outcome inside. Plain form post: back to the
    bootstrap page at that category, with the outcome as a message."""
    if request.htmx:
        category = selectors.categories_with_counts().get(pk=category_id)
        proposals = selectors.proposals_by_category().get(category_id, [])
        context = _bootstrap_view(category, proposals, notice, prefixes)
        return render(request, f"{BOOTSTRAP_TEMPLATE}#bootstrap-category", context)
    notice_message(request, notice)
    slug = selectors.category_slug(category_id=category_id)
    return redirect(f"{reverse('curation:taxonomy-bootstrap')}#category-{slug}")
