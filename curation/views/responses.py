"""The answers every curation screen gives, in one shape each.

A screen (GET) is the whole page in the admin's frame, or only the named partial an htmx swap
asks for. A change (POST) answers htmx with the partial it swaps, read after the change with the
outcome inside, and a plain form post with a redirect and the outcome as a message. A revert
of an audit entry says how it went in the same words on every screen."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from curation.models import AuditEvent
from curation.views.access import Notice, admin_page, is_fragment_request, notice_message


def render_page_or_partial(
    request: HttpRequest,
    template: str,
    partial: str,
    context: dict,
    *,
    title: str,
    page: Callable[[], dict] | None = None,
) -> HttpResponse:
    """An htmx swap gets `template#partial` with `context`; anything else (a browser, htmx
    restoring history) the whole page, titled `title`, with `page()` added: what only the
    whole page shows (filters, pickers, counts), read only when it is shown."""
    if is_fragment_request(request):
        return render(request, f"{template}#{partial}", context)
    whole_page = page() if page else {}
    return render(request, template, admin_page(request, title, **whole_page, **context))


def render_partial_or_redirect(
    request: HttpRequest,
    template: str,
    partial: str,
    context: Callable[[], dict],
    *,
    notice: Notice,
    to: str | Callable[[], str],
) -> HttpResponse:
    """After a change: htmx gets `template#partial` with `context()` (read after the change,
    `notice` inside it); a plain form post is redirected to `to` (a URL or URL name, or what
    makes one) with `notice` as a message."""
    if request.htmx:
        return render(request, f"{template}#{partial}", context())
    notice_message(request, notice)
    return redirect(to() if callable(to) else to)


def revert_notice(
    revert: Callable[[], AuditEvent],
    *,
    missing: str,
    refused: str,
    refusals: tuple[type[Exception], ...],
    then: str = "",
) -> Notice:
    """Call `revert` (a service reverting an audit entry) and say how it went: the revert's
    summary (`then` added), or `refused` and the reason. An entry that does not exist is 404,
    `missing` its message."""
    try:
        event = revert()
    except AuditEvent.DoesNotExist:
        raise Http404(missing) from None
    except refusals as exc:
        return Notice.refused(refused, exc)
    return Notice("success", event.summary + then)
