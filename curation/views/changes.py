"""The editors' change log: recent taxonomy changes with their field-by-field diffs, each
revertible."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import RevertForm
from curation.models import AuditEvent
from curation.presenters.audit import event_views
from curation.selectors import changes as selectors
from curation.services.audit import RevertRefused
from curation.services.taxonomy import TaxonomyChangeRefused, taxonomy_change_revert
from curation.views.access import Notice, editor_required
from curation.views.responses import (
    render_page_or_partial,
    render_partial_or_redirect,
    revert_notice,
)

CHANGES_TEMPLATE = "curation/taxonomy_changes.html"


@require_GET
@never_cache
@editor_required
def taxonomy_changes(request: HttpRequest) -> HttpResponse:
    return render_page_or_partial(
        request,
        CHANGES_TEMPLATE,
        "change-log",
        _change_log(),
        title="Taxonomy changes",
        page=lambda: {"tab": "changes"},
    )


def _change_log(notice: Notice | None = None) -> dict:
    return {
        # Concepts are shown by their taxonomy id as it is now.
        "changes": event_views(selectors.taxonomy_changes_recent()),
        "log_limit": selectors.CHANGE_LOG_LIMIT,
        "notice": notice,
    }


@require_POST
@editor_required
def change_revert(request: HttpRequest, event_id: int) -> HttpResponse:
    def revert() -> AuditEvent:
        selectors.taxonomy_change_get(event_id=event_id)  # only the taxonomy's own entries
        return taxonomy_change_revert(event_id=event_id, user=request.user)

    notice = revert_notice(
        revert,
        missing="No such taxonomy change.",
        refused=f"Change {event_id} was not reverted",
        refusals=(RevertRefused, TaxonomyChangeRefused),
    )
    return render_partial_or_redirect(
        request,
        CHANGES_TEMPLATE,
        "change-log",
        lambda: _change_log(notice),
        notice=notice,
        to=lambda: _back(request) or "curation:taxonomy-changes",
    )


def _back(request: HttpRequest) -> str:
    """The page the revert was posted from, if it is one of this site's."""
    form = RevertForm(request.POST)
    form.is_valid()
    back = form.cleaned_data.get("next", "")
    allowed = url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return back if back and allowed else ""
