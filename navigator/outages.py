"""What a caller is told when the database cannot be reached: a 503 with Retry-After, the
cause in words (the API's JSON in navigator.api, a plain page for screens here), never the
driver's message or a traceback, whatever DEBUG says. Only errors of reaching the database
count; a query's own error (a bug) stays a 500."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.utils.html import escape

# Connection refused or lost, server shutting down or starting up, too many clients: the
# driver raises these as OperationalError, and InterfaceError for a connection it had closed.
DatabaseUnavailable = (OperationalError, InterfaceError)


def database_unavailable_detail(exc: Exception) -> str:
    return (
        f"the database is unavailable ({_cause(exc)}); nothing was read or changed: "
        f"retry in {settings.DATABASE_RETRY_AFTER_SECONDS} s"
    )


def _cause(exc: Exception) -> str:
    """The kind of failure in words, from the driver's SQLSTATE or message, without the
    message itself (it may name hosts, users or paths)."""
    text = str(exc).lower()
    cause = getattr(exc, "__cause__", None)
    sqlstate = getattr(cause, "sqlstate", None) or ""
    if sqlstate == "57P01" or "terminating connection" in text:
        return "the server was shut down or restarted"
    if sqlstate in ("57P02", "57P03") or "starting up" in text or "shutting down" in text:
        return "the server is starting up or shutting down"
    if sqlstate == "53300" or "too many clients" in text:
        return "too many connections"
    if "connection refused" in text or "no such file" in text or "could not connect" in text:
        return "connection refused"
    if "timeout" in text or "timed out" in text:
        return "connection timed out"
    return "the connection failed"


def database_unavailable_middleware(get_response: Callable[[HttpRequest], HttpResponse]):
    """Screens: a plain page with 503 and Retry-After instead of Django's error page. It
    uses no template, so that nothing else (a context processor, the user) reads the
    database on the way out."""

    def middleware(request: HttpRequest) -> HttpResponse:
        return get_response(request)

    def process_exception(request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, DatabaseUnavailable):
            return None
        page = (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<title>Navigator: temporarily unavailable</title></head><body>"
            "<h1>Temporarily unavailable</h1>"
            f"<p>{escape(database_unavailable_detail(exc).capitalize())}.</p></body></html>"
        )
        response = HttpResponse(page, status=503)
        response["Retry-After"] = str(settings.DATABASE_RETRY_AFTER_SECONDS)
        return response

    middleware.process_exception = process_exception
    return middleware
