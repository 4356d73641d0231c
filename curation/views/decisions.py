"""The domain experts' decision log: recent superseding decisions, each revertible."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.presenters.audit import event_views
from curation.selectors import review as selectors
from curation.services import superseding
from curation.services.audit import RevertRefused
from curation.services.superseding import AlreadyDecided, DecisionRefused
from curation.views.access import Notice, expert_required
from curation.views.responses import (
    render_page_or_partial,
    render_partial_or_redirect,
    revert_notice,
)

DECISIONS_TEMPLATE = "curation/decisions.html"


@require_GET
@never_cache
@expert_required
def decisions(request: HttpRequest) -> HttpResponse:
    return render_page_or_partial(
        request,
        DECISIONS_TEMPLATE,
        "decision-log",
        _decision_log(),
        title="Superseding decisions",
    )


@require_POST
@expert_required
def decision_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    notice = revert_notice(
        lambda: superseding.decision_revert(event_id=event_id, user=request.user),
        missing="No such decision.",
        refused=f"Decision {event_id} was not reverted",
        refusals=(RevertRefused, AlreadyDecided, DecisionRefused),
        then=" The pair is pending again.",
    )
    return render_partial_or_redirect(
        request,
        DECISIONS_TEMPLATE,
        "decision-log",
        lambda: _decision_log(notice),
        notice=notice,
        to="curation:review-decisions",
    )


def _decision_log(notice: Notice | None = None) -> dict:
    events = selectors.decision_events_recent(limit=selectors.DECISION_LOG_LIMIT)
    return {
        "events": event_views(events),
        "log_limit": selectors.DECISION_LOG_LIMIT,
        "notice": notice,
    }
