"""Who may open the curation screens, and the pieces every screen's views share.

Each screen's decorator is `signed_in_and(check)`: anonymous people go to the admin login (an
htmx request asks the page to reload, which then redirects), and signed-in people that
`check` refuses (it raises PermissionDenied) get 403. The services check again, and the
screens' links ask the same check (`curation.views.navigation`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps

from django.contrib import admin, messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from curation.roles import require_role
from curation.services.freshness_decisions import require_change_reviewer
from curation.services.superseding import require_decider
from curation.services.taxonomy import require_editor

READ_SNAPSHOT_PERMISSION = "knowledge.view_pagesnapshot"


def signed_in_and(check: Callable) -> Callable:
    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.is_authenticated:
                if request.htmx:
                    # A login form swapped into a fragment would be no use: reload instead.
                    return HttpResponse(status=401, headers={"HX-Refresh": "true"})
                return redirect_to_login(request.get_full_path())
            check(request.user)
            return view(request, *args, **kwargs)

        wrapper.access_check = check  # kept by the decorators wrapped around it
        return wrapper

    return decorator


def _require_staff(user) -> None:
    if not (user.is_active and user.is_staff):
        raise PermissionDenied("The jobs screen is for staff.")


def _may_read_snapshots(user) -> None:
    require_role(user, READ_SNAPSHOT_PERMISSION, action="read page snapshots")


staff_required = signed_in_and(_require_staff)
expert_required = signed_in_and(require_decider)
editor_required = signed_in_and(require_editor)
reader_required = signed_in_and(_may_read_snapshots)
change_reviewer_required = signed_in_and(require_change_reviewer)


def is_fragment_request(request: HttpRequest) -> bool:
    """An htmx swap (not htmx restoring a page from history, which needs the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


@dataclass(frozen=True)
class Notice:
    """What a screen tells the person after a change; `event` is its audit entry, if any."""

    level: str  # an admin message class: success, warning, error
    text: str
    event: object | None = None
    details: list[str] = field(default_factory=list)
    job_url: str = ""  # where the work it queued can be followed

    @classmethod
    def done(cls, event) -> Notice:
        """A change made: its audit entry's summary, and the entry to revert it from."""
        return cls("success", event.summary, event)

    @classmethod
    def refused(cls, what: str, problem: object) -> Notice:
        return cls("error", f"{what}: {problem}")


def admin_page(request: HttpRequest, title: str, **context) -> dict:
    """A whole screen's context in the admin's frame; the tables and pairs need the full
    width, so the admin's navigation sidebar is left out."""
    return {
        **admin.site.each_context(request),
        "title": title,
        "is_nav_sidebar_enabled": False,
        **context,
    }


def notice_message(request: HttpRequest, notice: Notice) -> None:
    """A plain form post's outcome, for the page it is redirected to; a change names its
    audit entry, where it can be reverted."""
    text = notice.text
    if notice.event is not None:
        entry = f"{reverse('curation:taxonomy-changes')}#change-{notice.event.pk}"
        text = format_html('{} &mdash; <a href="{}">audit entry (Revert)</a>', text, entry)
    if notice.job_url:
        text = format_html(
            '{} &mdash; <a href="{}">follow it on the jobs screen</a>', text, notice.job_url
        )
    messages.add_message(request, getattr(messages, notice.level.upper()), text)
    for detail in notice.details:
        messages.add_message(request, messages.WARNING, detail)
