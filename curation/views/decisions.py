"""The domain experts' decision log: recent superseding decisions, each revertible."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.models import AuditEvent
from curation.presenters.audit import event_views
from curation.selectors import review as selectors
from curation.services import superseding
from curation.services.audit import RevertRefused
from curation.services.superseding import AlreadyDecided, DecisionRefused
from curation.views.access import (
    Notice,
    admin_page,
    expert_required,
    is_fragment_request,
    notice_message,
)

DECISIONS_TEMPLATE = "curation/decisions.html"


@require_GET
@never_cache
@expert_required
def decisions(request: HttpRequest) -> HttpResponse:
    context = _decision_log()
    if is_fragment_request(request):
        return render(request, f"{DECISIONS_TEMPLATE}#decision-log", context)
    page = admin_page(request, "Superseding decisions", **context)
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
    if request.htmx:
        return render(request, f"{DECISIONS_TEMPLATE}#decision-log", _decision_log(notice))
    notice_message(request, notice)
    return redirect("curation:review-decisions")


def _decision_log(notice: Notice | None = None) -> dict:
    events = selectors.decision_events_recent(limit=selectors.DECISION_LOG_LIMIT)
    return {
        "events": event_views(events),
        "log_limit": selectors.DECISION_LOG_LIMIT,
        "notice": notice,
    }
