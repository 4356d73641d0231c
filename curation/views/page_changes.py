"""Changes on gov.uk: the pages gov.uk changed or removed, each page's change as a word diff
with the units it left unconfirmed, the units new in its current version and the superseding
proposals that involve them; experts and editors confirm a unit still holds (or retire it) in
place, and undo either.

A decision posted by htmx gets the unit's row back; a plain form post is redirected to the
page with the outcome as a message.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.models import AuditEvent
from curation.presenters.page_diff import page_diff
from curation.selectors import page_changes as selectors
from curation.services import freshness_decisions as decisions
from curation.services.audit import RevertRefused
from curation.services.superseding import DECIDE_PERMISSION
from curation.views.access import Notice, admin_page, change_reviewer_required, notice_message
from curation.views.responses import revert_notice
from knowledge.models import AtomicUnit, Source

LIST_TEMPLATE = "curation/changes.html"
PAGE_TEMPLATE = "curation/changes_page.html"
DECISION_ACTIONS = (decisions.CONFIRM_ACTION, decisions.RETIRE_ACTION)


@require_GET
@never_cache
@change_reviewer_required
def changes(request: HttpRequest) -> HttpResponse:
    context = admin_page(
        request,
        "Changes on gov.uk",
        pages=selectors.changed_pages(),
        pages_limit=selectors.CHANGED_PAGES_LIMIT,
        concepts=selectors.concepts_needing_review(),
        concepts_limit=selectors.NEEDS_REVIEW_LIMIT,
        yearly_due=selectors.concepts_needing_this_years_figure(day=timezone.localdate()),
    )
    return render(request, LIST_TEMPLATE, context)


@require_GET
@never_cache
@change_reviewer_required
def change_page(request: HttpRequest, source_id: int) -> HttpResponse:
    try:
        change = selectors.page_change_get(source_id=source_id)
    except Source.DoesNotExist:
        raise Http404("No such page.") from None
    diff = None
    if change.previous is not None and change.current is not None:
        diff = page_diff(change.previous.text, change.current.text)
    title = f"Changes on gov.uk: {change.source.title or change.source.url}"
    context = admin_page(
        request, title, change=change, diff=diff, may_review=_may_review(request.user)
    )
    return render(request, PAGE_TEMPLATE, context)


@require_POST
@change_reviewer_required
def change_unit_confirm(request: HttpRequest, unit_id: int) -> HttpResponse:
    return _decide(request, unit_id, decisions.unit_confirm, "confirmed")


@require_POST
@change_reviewer_required
def change_unit_retire(request: HttpRequest, unit_id: int) -> HttpResponse:
    return _decide(request, unit_id, decisions.unit_retire, "retired")


def _decide(request: HttpRequest, unit_id: int, decide, done: str) -> HttpResponse:
    note = request.POST.get("note", "")  # its length and characters are the service's to refuse
    try:
        event = decide(unit_id=unit_id, user=request.user, note=note)
    except AtomicUnit.DoesNotExist:
        raise Http404("No such unit.") from None
    except decisions.FreshnessDecisionRefused as exc:
        return _unit_row(request, unit_id, Notice("error", f"Unit {unit_id} was not {done}: {exc}"))
    return _unit_row(request, unit_id, Notice.done(event))


@require_POST
@change_reviewer_required
def change_decision_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    missing = "No such confirmation or retirement."
    try:
        unit_id = selectors.decision_unit_id(event_id=event_id, actions=DECISION_ACTIONS)
    except AuditEvent.DoesNotExist:
        raise Http404(missing) from None
    notice = revert_notice(
        lambda: decisions.freshness_decision_revert(event_id=event_id, user=request.user),
        missing=missing,
        refused=f"Decision {event_id} was not undone",
        refusals=(RevertRefused, decisions.FreshnessDecisionRefused),
    )
    return _unit_row(request, unit_id, notice)


def _unit_row(request: HttpRequest, unit_id: int, notice: Notice) -> HttpResponse:
    """htmx: the unit's row as it is now, with the outcome (and the decision to undo). Plain
    post: back to the unit's page with the outcome as a message."""
    unit = selectors.unit_for_change_row(unit_id=unit_id)
    if request.htmx:
        context = {"unit": unit, "notice": notice, "decision": notice.event}
        return render(request, f"{PAGE_TEMPLATE}#unit-row", context)
    # The outcome alone: these decisions are undone here, not from the editors' change log.
    notice_message(request, Notice(notice.level, notice.text))
    return redirect("curation:changes-page", source_id=unit.source_id)


def _may_review(user) -> bool:
    return user.has_perm(DECIDE_PERMISSION)
