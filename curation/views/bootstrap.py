"""The editors' bootstrap screen: propose concepts for a category from its pages, then, once
editors have approved some, extract its pages again so their facts bind to them. Both are
queued as jobs for a worker; the jobs screen shows their progress."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import BootstrapPagesForm, BootstrapProposeForm, form_problem
from curation.models import BootstrapJob
from curation.selectors import taxonomy as selectors
from curation.services.bootstrap import BootstrapRefused
from curation.services.bootstrap_queue import (
    bootstrap_propose_job_create,
    bootstrap_reextract_job_create,
)
from curation.views.access import Notice, admin_page, editor_required
from curation.views.jobs import job_url
from curation.views.responses import render_partial_or_redirect
from knowledge.models import Category, Concept
from knowledge.task_queue import TaskQueueUnavailable

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
    """Queued for a worker (the LLM may take minutes); the notice links the job."""
    category = _category_or_404(slug)
    form = BootstrapProposeForm(request.POST)
    refused = "No concepts were proposed"
    if not form.is_valid():
        notice = Notice.refused(refused, form_problem(form))
    else:
        try:
            job = bootstrap_propose_job_create(
                category_slug=slug,
                prefix=form.cleaned_data["prefix"],
                url_prefixes=form.url_prefix_list(),
                limit=form.cleaned_data["limit"],
                user=request.user,
            )
        except (BootstrapRefused, TaskQueueUnavailable) as exc:
            notice = Notice.refused(refused, exc)
        else:
            notice = _queued_notice(job, f"Proposing concepts for {category.name}")
    return after_bootstrap_change(request, category.pk, notice, prefixes=_prefixes_sent(form))


@require_POST
@editor_required
def bootstrap_reextract(request: HttpRequest, slug: str) -> HttpResponse:
    """Queued for a worker (each page is an LLM call); the notice links the job."""
    category = _category_or_404(slug)
    form = BootstrapPagesForm(request.POST)
    refused = "Nothing was re-extracted"
    if not form.is_valid():
        notice = Notice.refused(refused, form_problem(form))
        return after_bootstrap_change(request, category.pk, notice, prefixes="")
    try:
        job = bootstrap_reextract_job_create(
            category_slug=slug, url_prefixes=form.url_prefix_list(), user=request.user
        )
    except (BootstrapRefused, TaskQueueUnavailable) as exc:
        notice = Notice.refused(refused, exc)
    else:
        notice = _queued_notice(job, f"Re-extracting the pages of {category.name}")
    return after_bootstrap_change(request, category.pk, notice, prefixes=_prefixes_sent(form))


def _queued_notice(job: BootstrapJob, doing: str) -> Notice:
    """Says the job is queued, and where to follow it."""
    url = job_url("bootstrap", job.pk)
    return Notice("success", f"{doing}: queued as job #{job.pk}.", job_url=url)


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

    def category_box() -> dict:
        category = selectors.categories_with_counts().get(pk=category_id)
        proposals = selectors.proposals_by_category().get(category_id, [])
        return _bootstrap_view(category, proposals, notice, prefixes)

    def back() -> str:
        slug = selectors.category_slug(category_id=category_id)
        return f"{reverse('curation:taxonomy-bootstrap')}#category-{slug}"

    return render_partial_or_redirect(
        request, BOOTSTRAP_TEMPLATE, "bootstrap-category", category_box, notice=notice, to=back
    )
