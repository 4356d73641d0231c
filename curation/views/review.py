"""The domain experts' review screens: the queue of superseding pairs, the decision log with
its reverts, and a page snapshot with a unit's quote marked.

Views check who may look (and the services check again), parse input, call one service or
selector and render. htmx requests get the named partial they swap; the same URLs answer a
plain browser with the whole page (decisions then redirect back with a message).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation import presenters, selectors
from curation.access import Notice, is_fragment_request, signed_in_and
from curation.forms import BulkApproveForm, DecisionForm, ReviewFilterForm
from curation.models import AuditEvent, SupersedingCandidate
from curation.services import superseding
from curation.services.audit import RevertRefused
from curation.services.superseding import AlreadyDecided, DecisionRefused
from knowledge.models import PageSnapshot

REVIEW_TEMPLATE = "curation/review.html"
DECISIONS_TEMPLATE = "curation/decisions.html"
SNAPSHOT_TEMPLATE = "curation/snapshot.html"
READ_SNAPSHOT_PERMISSION = "knowledge.view_pagesnapshot"
DECIDE = {
    "approve": superseding.candidate_approve,
    "reject": superseding.candidate_reject,
    "flag": superseding.candidate_flag_for_deletion,
}
DONE = {"approve": "Approved", "reject": "Rejected", "flag": "Flagged for deletion"}


def _may_read_snapshots(user) -> None:
    if not (user.is_active and user.has_perm(READ_SNAPSHOT_PERMISSION)):
        raise PermissionDenied("Page snapshots are for domain experts and editors.")


expert_required = signed_in_and(superseding.require_decider)
reader_required = signed_in_and(_may_read_snapshots)


# --- the queue --------------------------------------------------------------------------------


@require_GET
@never_cache
@expert_required
def review(request: HttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET)
    filters = form.filters()
    current = _requested_pair(request.GET.get("pair"))
    context = _workspace(filters, current=current)
    context["filter_errors"] = [
        f"{form.fields[name].label or name}: {' '.join(errors)}"
        for name, errors in form.errors.items()
    ]
    if is_fragment_request(request):
        return render(request, f"{REVIEW_TEMPLATE}#workspace", context)
    return render(request, REVIEW_TEMPLATE, _page(request, context, form=form))


@require_GET
@never_cache
@expert_required
def review_pair(request: HttpRequest, candidate_id: int) -> HttpResponse:
    current = _requested_pair(str(candidate_id))
    if current is None:
        raise Http404("No such pair.")
    filters = ReviewFilterForm(request.GET).filters()
    if not is_fragment_request(request):
        params = [*filters.params(), ("pair", candidate_id)]
        return redirect(_with_query(reverse("curation:review"), params))
    context = {"pair": presenters.pair_view(current), **_filter_context(filters)}
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


def _after_post(request, filters, current, notice: Notice) -> HttpResponse:
    """htmx: the refreshed workspace (next pair, progress, chart, notice). Plain form post:
    back to the queue (same filters, that pair) with the notice as a message."""
    if request.headers.get("HX-Request"):
        context = _workspace(filters, current=current, notice=notice)
        return render(request, f"{REVIEW_TEMPLATE}#workspace", context)
    messages.add_message(request, getattr(messages, notice.level.upper()), notice.text)
    for detail in notice.details:
        messages.add_message(request, messages.WARNING, detail)
    params = filters.params() + ([("pair", current.pk)] if current else [])
    return redirect(_with_query(reverse("curation:review"), params))


def _with_query(url: str, params: list[tuple[str, object]]) -> str:
    return f"{url}?{urlencode(params)}" if params else url


def _requested_pair(raw: str | None) -> SupersedingCandidate | None:
    if not raw or not raw.isdigit():
        return None
    try:
        return selectors.candidate_for_review(candidate_id=int(raw))
    except SupersedingCandidate.DoesNotExist:
        return None


def _workspace(filters, *, current=None, notice: Notice | None = None) -> dict:
    pending = selectors.candidates_pending(filters=filters)
    pairs = list(pending[: selectors.REVIEW_LIST_LIMIT])
    current = current or (pairs[0] if pairs else None)
    return {
        "pairs": pairs,
        "matching": pending.count() if len(pairs) == selectors.REVIEW_LIST_LIMIT else len(pairs),
        "list_limit": selectors.REVIEW_LIST_LIMIT,
        "pair": presenters.pair_view(current) if current else None,
        "position": _position(pairs, current),
        "progress": selectors.review_progress(),
        "chart": presenters.decisions_chart(selectors.decisions_per_day()),
        "notice": notice,
        **_filter_context(filters),
    }


def _position(pairs: list[SupersedingCandidate], current) -> int | None:
    ids = [pair.pk for pair in pairs]
    return ids.index(current.pk) + 1 if current and current.pk in ids else None


def _filter_context(filters: selectors.ReviewFilters) -> dict:
    params = filters.params()
    return {"filters": filters, "filter_params": params, "filter_query": urlencode(params)}


def _page(request: HttpRequest, context: dict, *, form: ReviewFilterForm) -> dict:
    return {
        **admin.site.each_context(request),
        "title": "Superseding review",
        "is_nav_sidebar_enabled": False,  # the pair needs the full width
        "form": form,
        "categories": selectors.review_categories(),
        **context,
    }


# --- the decision log -------------------------------------------------------------------------


@require_GET
@never_cache
@expert_required
def decisions(request: HttpRequest) -> HttpResponse:
    context = _decision_log()
    if is_fragment_request(request):
        return render(request, f"{DECISIONS_TEMPLATE}#decision-log", context)
    page = {
        **admin.site.each_context(request),
        "title": "Superseding decisions",
        "is_nav_sidebar_enabled": False,
        **context,
    }
    return render(request, DECISIONS_TEMPLATE, page)


@require_POST
@expert_required
def decision_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    try:
        revert = superseding.decision_revert(event_id=event_id, user=request.user)
    except AuditEvent.DoesNotExist:
        raise Http404("No such decision.") from None
    except (RevertRefused, AlreadyDecided, DecisionRefused) as exc:
        notice = Notice("error", f"Decision {event_id} was not reverted: {exc}")
    else:
        notice = Notice("success", f"{revert.summary} The pair is pending again.")
    if request.headers.get("HX-Request"):
        return render(request, f"{DECISIONS_TEMPLATE}#decision-log", _decision_log(notice))
    messages.add_message(request, getattr(messages, notice.level.upper()), notice.text)
    return redirect("curation:review-decisions")


def _decision_log(notice: Notice | None = None) -> dict:
    events = selectors.decision_events_recent(limit=selectors.DECISION_LOG_LIMIT)
    return {
        "events": presenters.event_views(events),
        "log_limit": selectors.DECISION_LOG_LIMIT,
        "notice": notice,
    }


# --- a page snapshot --------------------------------------------------------------------------


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
    context = {
        **admin.site.each_context(request),
        "title": f"Page snapshot {snapshot_id}",
        "is_nav_sidebar_enabled": False,
        "reading": presenters.snapshot_reading(page, unit),
        "may_review": request.user.has_perm(superseding.DECIDE_PERMISSION),
    }
    return render(request, SNAPSHOT_TEMPLATE, context)
