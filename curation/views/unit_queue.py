"""The experts' review queue: the units to look at first (what users were served most, times
how much the product doubts it), each with why it is there, signed off, sent to triage or
retired in place with the keyboard, and each change undone from its notice. The header says
how much of what users were served had been reviewed: overall, per category, week by week.

Exposure is read through `curation.exposure`, the seam the API registers its query log
behind; the view reads it once per request and hands it to the selectors.

htmx requests get the workspace partial they swap; the same URLs answer a plain browser with
the whole page (a change then redirects back to the queue with a message).
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.exposure import unit_exposure
from curation.forms.fields import whole_number
from curation.presenters.unit_queue import queue_rows, share_chart
from curation.selectors import unit_queue as selectors
from curation.services import signoff, triage
from curation.services import unit_queue as services
from curation.services.audit import RevertRefused
from curation.views.access import Notice, signed_in_and
from curation.views.paging import page_number, paginate
from curation.views.responses import (
    render_page_or_partial,
    render_partial_or_redirect,
    revert_notice,
)
from knowledge.models import AtomicUnit

TEMPLATE = "curation/unit_queue.html"
TITLE = "What to review first"
signer_required = signed_in_and(signoff.require_signer)
remover_required = signed_in_and(services.require_unit_remover)


@require_GET
@never_cache
@signer_required
def unit_queue(request: HttpRequest) -> HttpResponse:
    days, page = _days(request.GET.get("days")), page_number(request.GET.get("page"))
    context = _workspace(request, days=days, page=page)
    return render_page_or_partial(request, TEMPLATE, "workspace", context, title=TITLE)


@require_POST
@signer_required
def unit_queue_signoff(request: HttpRequest, unit_id: int) -> HttpResponse:
    note = request.POST.get("note", "")  # its length and characters are the service's to refuse
    try:
        event = signoff.unit_signoff(unit_id=unit_id, user=request.user, note=note)
    except AtomicUnit.DoesNotExist:
        raise Http404("No such unit.") from None
    except signoff.SignoffRefused as exc:
        return _after_post(request, Notice.refused(f"Unit {unit_id} was not signed off", exc))
    return _after_post(request, Notice.done(event))


@require_POST
@remover_required
def unit_queue_triage(request: HttpRequest, unit_id: int) -> HttpResponse:
    send = triage.unit_triage_send
    return _remove(request, unit_id, send, triage.TriageRefused, "sent to triage")


@require_POST
@remover_required
def unit_queue_retire(request: HttpRequest, unit_id: int) -> HttpResponse:
    return _remove(
        request, unit_id, services.unit_queue_retire, services.QueueChangeRefused, "retired"
    )


def _remove(request, unit_id: int, remove, refusal: type[Exception], done: str) -> HttpResponse:
    reason = request.POST.get("reason", "")  # refused by the service when empty or too long
    try:
        event = remove(unit_id=unit_id, user=request.user, reason=reason)
    except AtomicUnit.DoesNotExist:
        raise Http404("No such unit.") from None
    except refusal as exc:
        return _after_post(request, Notice.refused(f"Unit {unit_id} was not {done}", exc))
    return _after_post(request, Notice.done(event))


@require_POST
@signer_required
def unit_queue_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    notice = revert_notice(
        lambda: services.unit_queue_change_revert(event_id=event_id, user=request.user),
        missing="No such change.",
        refused=f"Change {event_id} was not undone",
        refusals=(RevertRefused, services.QueueChangeRefused, signoff.SignoffRefused),
    )
    return _after_post(request, notice)


def _after_post(request, notice: Notice) -> HttpResponse:
    """htmx: the workspace read after the change, the notice inside. A plain form post: back
    to the queue (same window and page) with the notice as a message."""
    days, page = _days(request.POST.get("days")), page_number(request.POST.get("page"))
    return render_partial_or_redirect(
        request,
        TEMPLATE,
        "workspace",
        lambda: _workspace(request, days=days, page=page, notice=notice),
        notice=notice,
        to=_queue_url(days, page),
    )


def _days(raw: str | None) -> int:
    """The window asked for, in days: DEFAULT_DAYS when none or nonsense, at most MAX_DAYS."""
    days = whole_number(raw or "")
    return min(days, selectors.MAX_DAYS) if days else selectors.DEFAULT_DAYS


def _queue_url(days: int, page: int) -> str:
    params = [("days", days)] if days != selectors.DEFAULT_DAYS else []
    params += [("page", page)] if page > 1 else []
    url = reverse("curation:unit-queue")
    return f"{url}?{urlencode(params)}" if params else url


def _edit_url(unit_id: int) -> str:
    """The unit editor's page for the unit; empty while that screen is not installed."""
    try:
        return reverse("curation:unit-edit", kwargs={"unit_id": unit_id})
    except NoReverseMatch:
        return ""


def _workspace(request, *, days: int, page: int, notice: Notice | None = None) -> dict:
    now = timezone.localtime()
    exposure = unit_exposure(since=now - dt.timedelta(days=days), until=now)
    query = urlencode({"days": days}) if days != selectors.DEFAULT_DAYS else ""
    pager = paginate(
        selectors.unit_queue(exposure=exposure, today=now.date()),
        number=page,
        per_page=selectors.QUEUE_PER_PAGE,
        url=reverse("curation:unit-queue"),
        query=query,
        target="unit-queue-workspace",
    )
    overall, by_category = selectors.reviewed_share(exposure=exposure)
    return {
        "days": days,
        "page_number": pager.page.number,
        "pager": pager,
        "rows": queue_rows(list(pager.page.object_list), days=days, edit_url=_edit_url),
        "first_rank": pager.page.start_index(),
        "overall": overall,
        "by_category": by_category,
        "chart": share_chart(selectors.reviewed_share_by_week(weeks=_weeks(now))),
        "notice": notice,
        "undoable": _undoable(notice),
        "may_remove": _may_remove(request.user),
    }


def _weeks(now: dt.datetime) -> list[tuple[dt.datetime, dt.datetime, dict]]:
    """The last CHART_WEEKS weeks (seven days each, the last ending now), with what each
    served."""
    weeks = []
    for back in range(selectors.CHART_WEEKS, 0, -1):
        start = now - dt.timedelta(weeks=back)
        end = start + dt.timedelta(weeks=1)
        weeks.append((start, end, unit_exposure(since=start, until=end)))
    return weeks


def _undoable(notice: Notice | None) -> bool:
    """Whether the notice's change is one this screen undoes (a revert is not)."""
    event = notice.event if notice else None
    return event is not None and event.action in services.REVERTIBLE_HERE


def _may_remove(user) -> bool:
    try:
        services.require_unit_remover(user)
    except PermissionDenied:
        return False
    return True
