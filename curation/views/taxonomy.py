"""The editors' taxonomy screens: browse and search categories and concepts, and change a
concept (move its units, rename, merge, retire, edit, approve a proposal).

Views check that the user is an editor (and the services check again), parse the form, call
one service and say what happened. An htmx request gets the named partial it swaps with the
outcome inside it; a plain form post is redirected back with the outcome as a message. Every
successful change names its audit entry, where it can be reverted.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import (
    ConceptChangeForm,
    EditForm,
    MergeForm,
    MoveUnitsForm,
    RenameForm,
    TaxonomySearchForm,
    YearlyFiguresForm,
    form_problem,
)
from curation.models import AuditEvent
from curation.selectors import taxonomy as selectors
from curation.services import taxonomy as taxonomy_services
from curation.services.taxonomy import TaxonomyChangeRefused
from curation.views.access import Notice, admin_page, editor_required
from curation.views.bootstrap import after_bootstrap_change
from curation.views.responses import render_page_or_partial, render_partial_or_redirect
from knowledge.models import Category, Concept

TAXONOMY_TEMPLATE = "curation/taxonomy.html"
CATEGORY_TEMPLATE = "curation/taxonomy_category.html"
CONCEPT_TEMPLATE = "curation/taxonomy_concept.html"


@require_GET
@never_cache
@editor_required
def taxonomy(request: HttpRequest) -> HttpResponse:
    return render_page_or_partial(
        request,
        TAXONOMY_TEMPLATE,
        "search-results",
        _search(request),
        title="Taxonomy",
        page=_taxonomy_page,
    )


def _taxonomy_page() -> dict:
    return {
        "tab": "taxonomy",
        "categories": selectors.categories_with_counts(),
        "counts": selectors.open_work_counts(),
    }


def _search(request: HttpRequest) -> dict:
    """The search's results, or nothing and what is wrong with the words typed."""
    form = TaxonomySearchForm(request.GET)
    if not form.is_valid():
        return {"results": selectors.SearchResults(query=""), "search_problem": form_problem(form)}
    return {"results": selectors.taxonomy_search(query=form.cleaned_data["q"])}


@require_GET
@never_cache
@editor_required
def taxonomy_category(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        category = selectors.category_get(slug=slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None
    context = admin_page(
        request,
        category.name,
        tab="taxonomy",
        category=category,
        concepts=selectors.category_concepts(category=category),
    )
    return render(request, CATEGORY_TEMPLATE, context)


@require_GET
@never_cache
@editor_required
def taxonomy_concept(request: HttpRequest, concept_id: int) -> HttpResponse:
    return render_page_or_partial(
        request,
        CONCEPT_TEMPLATE,
        "concept-panel",
        _concept_context(concept_id),
        title="Concept",
        page=lambda: {"tab": "taxonomy"},
    )


def _concept_context(concept_id: int, notice: Notice | None = None) -> dict:
    try:
        concept = selectors.concept_get(concept_id=concept_id)
    except Concept.DoesNotExist:
        raise Http404("No such concept.") from None
    return {
        "concept": concept,
        "units": selectors.concept_units(concept=concept),
        "picker": selectors.concepts_for_picker(),
        "notice": notice,
    }


# --- changing a concept ------------------------------------------------------------------------

ConceptChange = Callable[..., AuditEvent]  # (concept, form's cleaned data, user) -> its entry


def _move(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.units_move(
        unit_ids=data["unit"], concept_id=data["to"].pk, user=user, note=data["note"]
    )


def _rename(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_rename(
        concept_id=concept.pk, new_id=data["new_id"], user=user, note=data["note"]
    )


def _merge(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_merge(
        concept_id=concept.pk, into_id=data["into"].pk, user=user, note=data["note"]
    )


def _retire(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_retire(concept_id=concept.pk, user=user, note=data["note"])


def _edit(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_edit(
        concept_id=concept.pk,
        name=data["name"],
        description=data["description"],
        user=user,
        note=data["note"],
    )


def _yearly(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_yearly_figures_set(
        concept_id=concept.pk, yearly_figures=data["yearly_figures"], user=user, note=data["note"]
    )


def _approve(concept: Concept, data: dict, user) -> AuditEvent:
    return taxonomy_services.concept_approve(concept_id=concept.pk, user=user, note=data["note"])


# One door per change: the form that parses it, the service call, and what a refusal says.
CONCEPT_CHANGES: dict[str, tuple[type[ConceptChangeForm], ConceptChange, str]] = {
    "move": (MoveUnitsForm, _move, "Units were not moved"),
    "rename": (RenameForm, _rename, "The concept was not renamed"),
    "merge": (MergeForm, _merge, "The concept was not merged"),
    "retire": (ConceptChangeForm, _retire, "The concept was not retired"),
    "edit": (EditForm, _edit, "The name and description were not changed"),
    "approve": (ConceptChangeForm, _approve, "The proposal was not approved"),
    "yearly": (YearlyFiguresForm, _yearly, "Whether its figures are set each year was not changed"),
}


@require_POST
@editor_required
def concept_change(request: HttpRequest, concept_id: int, action: str) -> HttpResponse:
    if action not in CONCEPT_CHANGES:
        raise Http404("No such change.")
    form_class, change, refused = CONCEPT_CHANGES[action]
    try:
        concept = selectors.concept_plain_get(concept_id=concept_id)
    except Concept.DoesNotExist:
        raise Http404("No such concept.") from None
    form = form_class(request.POST)
    if not form.is_valid():
        notice = Notice.refused(refused, form_problem(form))
    else:
        try:
            notice = Notice.done(change(concept, form.cleaned_data, request.user))
        except TaxonomyChangeRefused as exc:
            notice = Notice.refused(refused, exc)
    return _after_concept_change(request, concept, form, notice)


def _after_concept_change(
    request: HttpRequest, concept: Concept, form: ConceptChangeForm, notice: Notice
) -> HttpResponse:
    if form.from_bootstrap_page:
        prefixes = form.cleaned_data.get("url_prefixes", "")
        return after_bootstrap_change(request, concept.category_id, notice, prefixes=prefixes)
    return render_partial_or_redirect(
        request,
        CONCEPT_TEMPLATE,
        "concept-panel",
        lambda: _concept_context(concept.pk, notice),
        notice=notice,
        to=reverse("curation:taxonomy-concept", args=[concept.pk]),
    )
