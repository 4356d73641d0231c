"""The domain experts' review queue: superseding pairs one at a time, decided one by one or
approved in bulk; either unit of the pair signed off (and the sign-off undone) in place.

htmx requests get the named partial they swap; the same URLs answer a plain browser with the
whole page (a decision then redirects back to the queue with a message).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.fields import whole_number
from curation.forms.review import BulkApproveForm, DecisionForm, ReviewFilterForm
from curation.models import SupersedingCandidate
from curation.presenters.chart import decisions_chart
from curation.presenters.review import pair_view
from curation.selectors import review as selectors
from curation.services import signoff, superseding
from curation.services.audit import RevertRefused
from curation.services.superseding import AlreadyDecided, DecisionRefused
from curation.views.access import Notice, expert_required, is_fragment_request, signed_in_and
from curation.views.paging import page_number, paginate
from curation.views.responses import (
    render_page_or_partial,
    render_partial_or_redirect,
    revert_notice,
)
from knowledge.models import AtomicUnit

REVIEW_TEMPLATE = "curation/review.html"
DECIDE = {
    "approve": superseding.candidate_approve,
    "reject": superseding.candidate_reject,
    "flag": superseding.candidate_flag_for_deletion,
}
DONE = {"approve": "Approved", "reject": "Rejected", "flag": "Flagged for deletion"}
signer_required = signed_in_and(signoff.require_signer)


@require_GET
@never_cache
@expert_required
def review(request: HttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET)
    filters = form.filters()
    current = _requested_pair(request.GET.get("pair"))
    context = _workspace(filters, current=current, page=page_number(request.GET.get("page")))
    context["filter_errors"] = [
        f"{form.fields[name].label or name}: {' '.join(errors)}"
        for name, errors in form.errors.items()
    ]
    return render_page_or_partial(
        request,
        REVIEW_TEMPLATE,
        "workspace",
        context,
        title="Superseding review",
        page=lambda: {"form": form, "categories": selectors.review_categories()},
    )


@require_GET
@never_cache
@expert_required
def review_pair(request: HttpRequest, candidate_id: int) -> HttpResponse:
    current = _requested_pair(str(candidate_id))
    if current is None:
        raise Http404("No such pair.")
    filters = ReviewFilterForm(request.GET).filters()
    page = page_number(request.GET.get("page"))
    if not is_fragment_request(request):
        params = [*_queue_params(filters, page), ("pair", candidate_id)]
        return redirect(_with_query(reverse("curation:review"), params))
    context = {"pair": pair_view(current), **_filter_context(filters, page)}
    return render(request, f"{REVIEW_TEMPLATE}#pair", context)


@require_POST
@expert_required
def review_decide(request: HttpRequest, candidate_id: int) -> HttpResponse:
    filters = ReviewFilterForm(request.POST).filters()
    form = DecisionForm(request.POST)
    if not form.is_valid():
        current = _requested_pair(str(candidate_id))
        return _after_post(request, filters, current, Notice("error", "Choose a decision."))
    decision, note = form.cleaned_data["decision"], form.cleaned_data["note"]
    try:
        candidate = DECIDE[decision](candidate_id=candidate_id, user=request.user, note=note)
    except SupersedingCandidate.DoesNotExist:
        raise Http404("No such pair.") from None
    except AlreadyDecided as exc:
        following = selectors.candidate_next_pending(filters=filters, after=exc.candidate)
        return _after_post(request, filters, following, _late(candidate_id, exc))
    except DecisionRefused as exc:
        current = _requested_pair(str(candidate_id))
        notice = Notice("error", f"Pair {candidate_id} was not {DONE[decision].lower()}: {exc}")
        return _after_post(request, filters, current, notice)
    following = selectors.candidate_next_pending(filters=filters, after=candidate)
    notice = Notice("success", f"{DONE[decision]} pair {candidate_id}.")
    return _after_post(request, filters, following, notice)


def _late(candidate_id: int, exc: AlreadyDecided) -> Notice:
    return Notice("warning", f"Pair {candidate_id} was {exc}; your decision was not applied.")


@require_POST
@expert_required
def review_bulk_approve(request: HttpRequest) -> HttpResponse:
    filters = ReviewFilterForm(request.POST).filters()
    form = BulkApproveForm(request.POST)
    if not form.is_valid():
        notice = Notice("error", " ".join(form.non_field_errors()))
        return _after_post(request, filters, None, notice)
    outcome = superseding.candidates_approve_bulk(
        candidate_ids=form.cleaned_data["ids"], user=request.user, note=form.cleaned_data["note"]
    )
    return _after_post(request, filters, None, _bulk_notice(outcome))


def _bulk_notice(outcome: superseding.BulkOutcome) -> Notice:
    approved = ", ".join(map(str, outcome.approved)) or "none"
    details = [f"pair {pk} skipped: {reason}" for pk, reason in outcome.skipped.items()]
    level = "warning" if outcome.skipped else "success"
    count = len(outcome.approved)
    text = f"Approved {count} pair{'s' if count != 1 else ''} ({approved})"
    if outcome.skipped:
        text += f"; skipped {len(outcome.skipped)}"
    return Notice(level, text + ".", details=details)


@require_POST
@signer_required
def review_unit_signoff(request: HttpRequest, unit_id: int) -> HttpResponse:
    """Sign off one unit of the pair shown; the same pair stays on the screen."""
    note = request.POST.get("note", "")  # its length and characters are the service's to refuse
    try:
        event = signoff.unit_signoff(unit_id=unit_id, user=request.user, note=note)
    except AtomicUnit.DoesNotExist:
        raise Http404("No such unit.") from None
    except signoff.SignoffRefused as exc:
        notice = Notice("error", f"Unit {unit_id} was not signed off: {exc}")
    else:
        notice = Notice("success", f"{event.summary}.")
    return _after_signoff_post(request, notice)


@require_POST
@signer_required
def review_signoff_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    notice = revert_notice(
        lambda: signoff.unit_signoff_revert(event_id=event_id, user=request.user),
        missing="No such sign-off.",
        refused=f"Sign-off {event_id} was not undone",
        refusals=(RevertRefused, signoff.SignoffRefused),
        then="; the unit is pending sign-off again.",
    )
    return _after_signoff_post(request, notice)


def _after_signoff_post(request, notice: Notice) -> HttpResponse:
    """The workspace again with the pair the sign-off was made from (read after it)."""
    filters = ReviewFilterForm(request.POST).filters()
    return _after_post(request, filters, _requested_pair(request.POST.get("pair")), notice)


def _after_post(request, filters, current, notice: Notice) -> HttpResponse:
    """htmx: the refreshed workspace (next pair, progress, chart, notice). Plain form post:
    back to the queue (same filters and page, that pair) with the notice as a message."""
    page = page_number(request.POST.get("page"))
    params = _queue_params(filters, page) + ([("pair", current.pk)] if current else [])
    return render_partial_or_redirect(
        request,
        REVIEW_TEMPLATE,
        "workspace",
        lambda: _workspace(filters, current=current, notice=notice, page=page),
        notice=notice,
        to=_with_query(reverse("curation:review"), params),
    )


def _with_query(url: str, params: list[tuple[str, object]]) -> str:
    return f"{url}?{urlencode(params)}" if params else url


def _requested_pair(raw: str | None) -> SupersedingCandidate | None:
    candidate_id = whole_number(raw or "")
    if candidate_id is None:
        return None
    try:
        return selectors.candidate_for_review(candidate_id=candidate_id)
    except SupersedingCandidate.DoesNotExist:
        return None


def _workspace(filters, *, current=None, notice: Notice | None = None, page: int = 1) -> dict:
    pager = paginate(
        selectors.candidates_pending(filters=filters),
        number=page,
        per_page=selectors.REVIEW_PER_PAGE,
        url=reverse("curation:review"),
        query=urlencode(filters.params()),
        target="review-workspace",
    )
    pairs = list(pager.page.object_list)
    current = current or (pairs[0] if pairs else None)
    return {
        "pairs": pairs,
        "pager": pager,
        "pair": pair_view(current) if current else None,
        "position": _position(pairs, current),
        "progress": selectors.review_progress(),
        "chart": decisions_chart(selectors.decisions_per_day()),
        "notice": notice,
        **_filter_context(filters, pager.page.number),
    }


def _position(pairs: list[SupersedingCandidate], current) -> int | None:
    ids = [pair.pk for pair in pairs]
    return ids.index(current.pk) + 1 if current and current.pk in ids else None


def _filter_context(filters: selectors.ReviewFilters, page: int) -> dict:
    """The filters, and the queue's page, that links and posts from the workspace carry."""
    return {
        "filters": filters,
        "filter_params": filters.params(),
        "page_number": page,
        "filter_query": urlencode(_queue_params(filters, page)),
    }


def _queue_params(filters: selectors.ReviewFilters, page: int) -> list[tuple[str, object]]:
    return filters.params() + ([("page", page)] if page > 1 else [])
