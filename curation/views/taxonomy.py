"""The editors' screens: browse and change the taxonomy, resolve quality flags, triage
extraction items, bootstrap a category's concepts, and read and revert the taxonomy changes.

Views check that the user is an editor (and the services check again), parse the form, call
one service and say what happened. An htmx request gets the named partial it swaps with the
outcome inside it; a plain form post is redirected back with the outcome as a message. Every
successful change names its audit entry, where it can be reverted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation import taxonomy_selectors as selectors
from curation.access import Notice, is_fragment_request, signed_in_and
from curation.models import AuditEvent
from curation.services import flags as flag_services
from curation.services import taxonomy as taxonomy_services
from curation.services.audit import RevertRefused
from curation.services.bootstrap import BootstrapRefused, category_reextract, concepts_bootstrap
from curation.services.taxonomy import TaxonomyChangeRefused, require_editor
from curation.services.triage import triage_assign, triage_discard
from knowledge.models import Category, Concept, ExtractionItem, QualityFlag

TAXONOMY_TEMPLATE = "curation/taxonomy.html"
CATEGORY_TEMPLATE = "curation/taxonomy_category.html"
CONCEPT_TEMPLATE = "curation/taxonomy_concept.html"
FLAGS_TEMPLATE = "curation/taxonomy_flags.html"
TRIAGE_TEMPLATE = "curation/taxonomy_triage.html"
BOOTSTRAP_TEMPLATE = "curation/taxonomy_bootstrap.html"
CHANGES_TEMPLATE = "curation/taxonomy_changes.html"
HEURISTIC_RAISERS = {"heuristic", "extraction"}


editor_required = signed_in_and(require_editor)


def _done(event: AuditEvent) -> Notice:
    return Notice("success", event.summary, event)


def _refused(what: str, exc: Exception) -> Notice:
    return Notice("error", f"{what}: {exc}")


def _page(request: HttpRequest, title: str, *, tab: str, **context) -> dict:
    return {
        **admin.site.each_context(request),
        "title": title,
        "tab": tab,
        "is_nav_sidebar_enabled": False,  # the tables need the full width
        **context,
    }


def _message(request: HttpRequest, notice: Notice) -> None:
    """A plain form post's outcome, for the page it is redirected to."""
    text = notice.text
    if notice.event is not None:
        entry = f"{reverse('curation:taxonomy-changes')}#change-{notice.event.pk}"
        text = format_html('{} &mdash; <a href="{}">audit entry (Revert)</a>', text, entry)
    messages.add_message(request, getattr(messages, notice.level.upper()), text)
    for detail in notice.details:
        messages.add_message(request, messages.WARNING, detail)


def _ids(values: list[str]) -> list[int] | None:
    """Whole numbers from a form's repeated field, or None if any is not one."""
    values = [value.strip() for value in values if value.strip()]
    return [int(value) for value in values] if all(v.isdigit() for v in values) else None


# --- the taxonomy ------------------------------------------------------------------------------


@require_GET
@never_cache
@editor_required
def taxonomy(request: HttpRequest) -> HttpResponse:
    results = selectors.taxonomy_search(query=request.GET.get("q", ""))
    if is_fragment_request(request):
        return render(request, f"{TAXONOMY_TEMPLATE}#search-results", {"results": results})
    context = _page(
        request,
        "Taxonomy",
        tab="taxonomy",
        categories=selectors.categories_with_counts(),
        results=results,
        counts=_work_counts(),
    )
    return render(request, TAXONOMY_TEMPLATE, context)


def _work_counts() -> dict[str, int]:
    return {
        "flags": QualityFlag.objects.filter(status=QualityFlag.Status.OPEN).count(),
        "items": ExtractionItem.objects.filter(status=ExtractionItem.Status.OPEN).count(),
        "proposals": Concept.objects.filter(status=Concept.Status.PROPOSED).count(),
    }


@require_GET
@never_cache
@editor_required
def taxonomy_category(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        category = selectors.category_get(slug=slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None
    context = _page(
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
    context = _concept_context(concept_id)
    if is_fragment_request(request):
        return render(request, f"{CONCEPT_TEMPLATE}#concept-panel", context)
    return render(request, CONCEPT_TEMPLATE, _page(request, "Concept", tab="taxonomy", **context))


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


# One door per change; each parses its own fields and returns what the service recorded.
def _move(request: HttpRequest, concept: Concept) -> AuditEvent:
    unit_ids = _ids(request.POST.getlist("unit"))
    if unit_ids is None:
        raise TaxonomyChangeRefused("units: choose units by their checkboxes")
    target = _target(request.POST.get("to", ""), field_name="to")
    return taxonomy_services.units_move(
        unit_ids=unit_ids, concept_id=target.pk, user=request.user, note=_note(request)
    )


def _rename(request: HttpRequest, concept: Concept) -> AuditEvent:
    return taxonomy_services.concept_rename(
        concept_id=concept.pk,
        new_id=request.POST.get("new_id", ""),
        user=request.user,
        note=_note(request),
    )


def _merge(request: HttpRequest, concept: Concept) -> AuditEvent:
    target = _target(request.POST.get("into", ""), field_name="into")
    return taxonomy_services.concept_merge(
        concept_id=concept.pk, into_id=target.pk, user=request.user, note=_note(request)
    )


def _retire(request: HttpRequest, concept: Concept) -> AuditEvent:
    return taxonomy_services.concept_retire(
        concept_id=concept.pk, user=request.user, note=_note(request)
    )


def _edit(request: HttpRequest, concept: Concept) -> AuditEvent:
    return taxonomy_services.concept_edit(
        concept_id=concept.pk,
        name=request.POST.get("name", ""),
        description=request.POST.get("description", ""),
        user=request.user,
        note=_note(request),
    )


def _approve(request: HttpRequest, concept: Concept) -> AuditEvent:
    return taxonomy_services.concept_approve(
        concept_id=concept.pk, user=request.user, note=_note(request)
    )


CONCEPT_CHANGES: dict[str, tuple[Callable[[HttpRequest, Concept], AuditEvent], str]] = {
    "move": (_move, "Units were not moved"),
    "rename": (_rename, "The concept was not renamed"),
    "merge": (_merge, "The concept was not merged"),
    "retire": (_retire, "The concept was not retired"),
    "edit": (_edit, "The name and description were not changed"),
    "approve": (_approve, "The proposal was not approved"),
}


def _note(request: HttpRequest) -> str:
    return request.POST.get("note", "").strip()


def _target(raw: str, *, field_name: str) -> Concept:
    raw = raw.strip()
    if not raw:
        raise TaxonomyChangeRefused(f"{field_name}: give the taxonomy id of a concept")
    target = selectors.concept_by_taxonomy_id(taxonomy_id=raw)
    if target is None:
        raise TaxonomyChangeRefused(f"{field_name}: no concept or old id {raw!r}")
    return target


@require_POST
@editor_required
def concept_change(request: HttpRequest, concept_id: int, action: str) -> HttpResponse:
    if action not in CONCEPT_CHANGES:
        raise Http404("No such change.")
    change, refused = CONCEPT_CHANGES[action]
    try:
        concept = Concept.objects.get(pk=concept_id)
    except Concept.DoesNotExist:
        raise Http404("No such concept.") from None
    try:
        notice = _done(change(request, concept))
    except TaxonomyChangeRefused as exc:
        notice = _refused(refused, exc)
    return _after_concept_change(request, concept, notice)


def _after_concept_change(request: HttpRequest, concept: Concept, notice: Notice):
    """The bootstrap page's proposal lists post here too and get their category back."""
    if request.POST.get("panel") == "bootstrap":
        return _after_bootstrap_change(request, concept.category_id, notice)
    if request.headers.get("HX-Request"):
        context = _concept_context(concept.pk, notice)
        return render(request, f"{CONCEPT_TEMPLATE}#concept-panel", context)
    _message(request, notice)
    return redirect("curation:taxonomy-concept", concept_id=concept.pk)


# --- quality flags -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FlagFilters:
    kind: str = ""
    category: str = ""

    @classmethod
    def of(cls, data) -> FlagFilters:
        kind = data.get("kind", "")
        category = data.get("category", "")
        kinds = {value for value, _ in QualityFlag.Kind.choices}
        return cls(kind=kind if kind in kinds else "", category=category.strip())

    def query(self) -> str:
        return urlencode(
            [(k, v) for k, v in (("kind", self.kind), ("category", self.category)) if v]
        )


@require_GET
@never_cache
@editor_required
def taxonomy_flags(request: HttpRequest) -> HttpResponse:
    filters = FlagFilters.of(request.GET)
    context = _flag_list(filters)
    if is_fragment_request(request):
        return render(request, f"{FLAGS_TEMPLATE}#flag-list", context)
    context = _page(
        request,
        "Quality flags",
        tab="flags",
        kinds=QualityFlag.Kind.choices,
        categories=Category.objects.order_by("order", "name"),
        kind_counts=_flag_kind_counts(),
        **context,
    )
    return render(request, FLAGS_TEMPLATE, context)


def _flag_kind_counts() -> list[tuple[str, int]]:
    counts = selectors.flag_counts_by_kind()
    return [(label, counts.get(value, 0)) for value, label in QualityFlag.Kind.choices]


def _flag_list(filters: FlagFilters, notice: Notice | None = None) -> dict:
    flags = selectors.flags_open(kind=filters.kind, category_slug=filters.category)
    shown = list(flags[: selectors.FLAG_LIST_LIMIT])
    return {
        "flags": shown,
        "matching": flags.count() if len(shown) == selectors.FLAG_LIST_LIMIT else len(shown),
        "list_limit": selectors.FLAG_LIST_LIMIT,
        "filters": filters,
        "heuristic_raisers": HEURISTIC_RAISERS,
        "notice": notice,
    }


@require_POST
@editor_required
def flags_resolve(request: HttpRequest) -> HttpResponse:
    """Accept or dismiss one flag (its audit entry is shown) or many (each on its own)."""
    filters = FlagFilters.of(request.POST)
    decision = request.POST.get("decision", "")
    flag_ids = _ids(request.POST.getlist("flag"))
    if decision not in ("accept", "dismiss"):
        notice = Notice("error", "decision: choose accept or dismiss")
    elif not flag_ids:
        notice = Notice("error", "flags: tick at least one flag")
    elif len(flag_ids) == 1:
        notice = _flag_resolve_one(request, flag_ids[0], accept=decision == "accept")
    else:
        outcome = flag_services.flags_resolve_bulk(
            flag_ids=flag_ids, accept=decision == "accept", user=request.user, note=_note(request)
        )
        notice = _bulk_notice(outcome, accepted=decision == "accept")
    if request.headers.get("HX-Request"):
        return render(request, f"{FLAGS_TEMPLATE}#flag-list", _flag_list(filters, notice))
    _message(request, notice)
    query = filters.query()
    return redirect(reverse("curation:taxonomy-flags") + (f"?{query}" if query else ""))


def _flag_resolve_one(request: HttpRequest, flag_id: int, *, accept: bool) -> Notice:
    resolve = flag_services.flag_accept if accept else flag_services.flag_dismiss
    try:
        return _done(resolve(flag_id=flag_id, user=request.user, note=_note(request)))
    except TaxonomyChangeRefused as exc:
        return _refused(f"Flag {flag_id} was not {'accepted' if accept else 'dismissed'}", exc)


def _bulk_notice(outcome: flag_services.BulkResolution, *, accepted: bool) -> Notice:
    verb = "Accepted" if accepted else "Dismissed"
    done = ", ".join(map(str, outcome.done)) or "none"
    text = f"{verb} {len(outcome.done)} flag(s) ({done})"
    if outcome.skipped:
        text += f"; skipped {len(outcome.skipped)}"
    details = [f"flag {pk} skipped: {reason}" for pk, reason in outcome.skipped.items()]
    return Notice("warning" if outcome.skipped else "success", text + ".", details=details)


# --- triage ------------------------------------------------------------------------------------


@require_GET
@never_cache
@editor_required
def taxonomy_triage(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind", "")
    kind = kind if kind in ExtractionItem.Kind.values else ""
    context = _item_list(kind)
    if is_fragment_request(request):
        return render(request, f"{TRIAGE_TEMPLATE}#item-list", context)
    context = _page(
        request,
        "Triage",
        tab="triage",
        kinds=ExtractionItem.Kind.choices,
        picker=selectors.concepts_for_picker(),
        **context,
    )
    return render(request, TRIAGE_TEMPLATE, context)


def _item_list(kind: str) -> dict:
    items = selectors.items_open(kind=kind)
    shown = list(items[: selectors.TRIAGE_LIST_LIMIT])
    candidates = selectors.item_candidates(items=shown)
    return {
        "items": [_item_view(item, candidates[item.pk]) for item in shown],
        "matching": items.count() if len(shown) == selectors.TRIAGE_LIST_LIMIT else len(shown),
        "list_limit": selectors.TRIAGE_LIST_LIMIT,
        "kind": kind,
    }


def _item_view(item: ExtractionItem, candidates: list, notice: Notice | None = None) -> dict:
    best = next((c.concept.taxonomy_id for c in candidates if c.concept is not None), "")
    return {"item": item, "candidates": candidates, "best": best, "notice": notice}


@require_POST
@editor_required
def item_assign(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        target = _target(request.POST.get("concept", ""), field_name="concept")
        notice = _done(
            triage_assign(
                item_id=item_id, concept_id=target.pk, user=request.user, note=_note(request)
            )
        )
    except TaxonomyChangeRefused as exc:
        notice = _refused(f"Item {item_id} was not assigned", exc)
    return _after_item_change(request, item_id, notice)


@require_POST
@editor_required
def item_discard(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        event = triage_discard(
            item_id=item_id, user=request.user, reason=request.POST.get("reason", "")
        )
        notice = _done(event)
    except TaxonomyChangeRefused as exc:
        notice = _refused(f"Item {item_id} was not discarded", exc)
    return _after_item_change(request, item_id, notice)


def _after_item_change(request: HttpRequest, item_id: int, notice: Notice) -> HttpResponse:
    """htmx: the item's own box again, its outcome inside (a resolved item shows only that)."""
    if request.headers.get("HX-Request"):
        try:
            item = ExtractionItem.objects.select_related("snapshot__source").get(pk=item_id)
        except ExtractionItem.DoesNotExist:
            raise Http404("No such extraction item.") from None
        candidates = selectors.item_candidates(items=[item])[item.pk]
        context = _item_view(item, candidates, notice)
        return render(request, f"{TRIAGE_TEMPLATE}#item", context)
    _message(request, notice)
    return redirect("curation:taxonomy-triage")


# --- bootstrap ---------------------------------------------------------------------------------


@require_GET
@never_cache
@editor_required
def taxonomy_bootstrap(request: HttpRequest) -> HttpResponse:
    proposals = selectors.proposals_by_category()
    categories = [
        _bootstrap_view(category, proposals.get(category.pk, []))
        for category in selectors.categories_with_counts()
    ]
    context = _page(
        request,
        "Bootstrap concepts",
        tab="bootstrap",
        categories=categories,
        picker=selectors.concepts_for_picker(),
    )
    return render(request, BOOTSTRAP_TEMPLATE, context)


def _bootstrap_view(category: Category, proposals: list[Concept], notice=None, prefixes=""):
    return {"category": category, "proposals": proposals, "notice": notice, "prefixes": prefixes}


def _url_prefixes(request: HttpRequest) -> list[str] | None:
    prefixes = [line.strip() for line in request.POST.get("url_prefixes", "").splitlines()]
    return [prefix for prefix in prefixes if prefix] or None


@require_POST
@editor_required
def bootstrap_propose(request: HttpRequest, slug: str) -> HttpResponse:
    category = _category_or_404(slug)
    limit = request.POST.get("limit", "").strip() or "15"
    try:
        if not limit.isdigit():
            raise BootstrapRefused("limit: a whole number")
        report = concepts_bootstrap(
            category_slug=slug,
            prefix=request.POST.get("prefix", "").strip() or None,
            url_prefixes=_url_prefixes(request),
            limit=int(limit),
            user=request.user,
        )
    except BootstrapRefused as exc:
        notice = _refused("No concepts were proposed", exc)
    else:
        notice = _proposed_notice(report)
    return _after_bootstrap_change(request, category.pk, notice)


def _proposed_notice(report) -> Notice:
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
    try:
        report = category_reextract(
            category_slug=slug, url_prefixes=_url_prefixes(request), user=request.user
        )
    except BootstrapRefused as exc:
        notice = _refused("Nothing was re-extracted", exc)
    else:
        notice = Notice(
            "success",
            f"Re-extracted {report.pages} page(s) of {category.name}: "
            f"{report.units_made} new unit(s) bound to its active concepts.",
        )
    return _after_bootstrap_change(request, category.pk, notice)


def _category_or_404(slug: str) -> Category:
    try:
        return selectors.category_get(slug=slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None


def _after_bootstrap_change(request: HttpRequest, category_id: int, notice: Notice):
    if request.headers.get("HX-Request"):
        category = selectors.categories_with_counts().get(pk=category_id)
        proposals = selectors.proposals_by_category().get(category_id, [])
        context = _bootstrap_view(category, proposals, notice, request.POST.get("url_prefixes", ""))
        return render(request, f"{BOOTSTRAP_TEMPLATE}#bootstrap-category", context)
    _message(request, notice)
    slug = Category.objects.values_list("slug", flat=True).get(pk=category_id)
    return redirect(f"{reverse('curation:taxonomy-bootstrap')}#category-{slug}")


# --- the audit trail ---------------------------------------------------------------------------


@require_GET
@never_cache
@editor_required
def taxonomy_changes(request: HttpRequest) -> HttpResponse:
    context = _change_log()
    if is_fragment_request(request):
        return render(request, f"{CHANGES_TEMPLATE}#change-log", context)
    return render(
        request, CHANGES_TEMPLATE, _page(request, "Taxonomy changes", tab="changes", **context)
    )


def _change_log(notice: Notice | None = None) -> dict:
    return {
        "changes": selectors.taxonomy_changes_recent(),
        "log_limit": selectors.CHANGE_LOG_LIMIT,
        "notice": notice,
    }


@require_POST
@editor_required
def change_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    try:
        selectors.taxonomy_change_get(event_id=event_id)
        revert = taxonomy_services.taxonomy_change_revert(event_id=event_id, user=request.user)
    except AuditEvent.DoesNotExist:
        raise Http404("No such taxonomy change.") from None
    except (RevertRefused, TaxonomyChangeRefused) as exc:
        notice = _refused(f"Change {event_id} was not reverted", exc)
    else:
        notice = Notice("success", revert.summary)
    if request.headers.get("HX-Request"):
        return render(request, f"{CHANGES_TEMPLATE}#change-log", _change_log(notice))
    _message(request, notice)
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(back)
    return redirect("curation:taxonomy-changes")
