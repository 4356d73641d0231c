"""Who may open the curation screens, and the pieces every screen's views share.

Each screen's decorator is `signed_in_and(check)`: anonymous people go to the admin login (an
htmx request asks the page to reload, which then redirects), and signed-in people that
`check` refuses (it raises PermissionDenied) get 403. The services check again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse


def signed_in_and(check: Callable) -> Callable:
    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.is_authenticated:
                if request.headers.get("HX-Request"):
                    return HttpResponse(status=401, headers={"HX-Refresh": "true"})
                return redirect_to_login(request.get_full_path())
            check(request.user)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def is_fragment_request(request: HttpRequest) -> bool:
    """An htmx swap (not htmx restoring a page from history, which needs the whole page)."""
    return bool(request.headers.get("HX-Request")) and not request.headers.get(
        "HX-History-Restore-Request"
    )


@dataclass(frozen=True)
class Notice:
    """What a screen tells the person after a change; `event` is its audit entry, if any."""

    level: str  # an admin message class: success, warning, error
    text: str
    event: object | None = None
    details: list[str] = field(default_factory=list)
