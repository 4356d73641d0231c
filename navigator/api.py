"""The public JSON API (`/api/v1`): thin endpoints over knowledge's selectors and services,
one for each tool of the registry (navigator.tools) at its path, with its request model.

Every call is logged (token, query, outcome, concepts, per-stage timings), bad input
included; errors name the field that is wrong and carry `outcome: "invalid"`.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from ninja import NinjaAPI, Path
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.responses import Status
from ninja.security import HttpBearer

from knowledge import selectors
from knowledge.models import AtomicUnit
from knowledge.retrieval import SearchError
from navigator import answers, presenters, services
from navigator.assistant import ASSISTANT_PROMPT_VERSION, assistant_prompt
from navigator.outages import DatabaseUnavailable, database_unavailable_detail
from navigator.schemas.common import ErrorOut, HealthOut
from navigator.schemas.facts import CategoryOut, ConceptOut, UnitOut
from navigator.schemas.search import SearchIn
from navigator.stages import request_stages
from navigator.throttling import AuthFailureLimit, TokenRateThrottle, client_ip
from navigator.tools import TOOL_BY_NAME, TOOLS, Tool, tool_definitions

AUTH_FAILURES = AuthFailureLimit(settings.API_AUTH_FAILURE_RATE)
# Per token, counted in the shared cache; unauthenticated callers are refused before it.
TOKEN_THROTTLE = TokenRateThrottle(settings.API_THROTTLE_RATE)


class TooManyAuthFailures(HttpError):
    def __init__(self, wait: int):
        self.wait = wait
        super().__init__(
            429, f"too many failed authentications from this address: retry in {wait} s"
        )


class BodyTooLarge(HttpError):
    def __init__(self):
        super().__init__(413, f"body: larger than {settings.API_MAX_BODY_BYTES} bytes")


class TokenAuth(HttpBearer):
    """The gate of every authenticated call. Before the token is looked up: the address's
    recent failed authentications (a blocked address is refused whatever it sends), then
    the body's declared size (refused unread)."""

    def __call__(self, request: HttpRequest):
        stages = request_stages(request)
        stages.mark("routing")  # the middleware, the URL's resolution, ninja's dispatch
        if AUTH_FAILURES.blocked(request):
            raise TooManyAuthFailures(AUTH_FAILURES.seconds_left())
        if _declared_body_bytes(request) > settings.API_MAX_BODY_BYTES:
            raise BodyTooLarge()
        token = super().__call__(request)
        stages.mark("auth")
        return token

    def authenticate(self, request: HttpRequest, token: str):
        return services.api_token_authenticate(raw=token)


def _declared_body_bytes(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # Django then reads no body at all


api = NinjaAPI(
    title="Navigator API",
    version="1",
    description="Citation-grounded UK personal-finance rules from gov.uk: concepts, units, sources.",
    urls_namespace="api",
    auth=TokenAuth(),
    throttle=[TOKEN_THROTTLE],
)


def _log(request, *, status: int, **fields) -> None:
    token = getattr(request, "auth", None)
    services.query_log_write(
        token=token if hasattr(token, "pk") else None,
        endpoint=request.path[:100],
        status_code=status,
        **fields,
    )


def refused(request, status: int, detail: str, *, kind: str = ""):
    """A call refused before it is served (bad token, blocked address, oversized body, over
    its rate): one log row per address, kind and window counts them all, so a flood grows a
    counter, not the log."""
    services.query_log_count_repeat(
        group=AUTH_FAILURES.window_key(request, kind or str(status)),
        window_seconds=AUTH_FAILURES.counter.duration,
        endpoint=request.path[:100],
        status_code=status,
        outcome="invalid",
        error=detail,
        client_address=client_ip(request),
        token=getattr(request, "auth", None),
    )
    return api.create_response(
        request, {"outcome": "invalid", "detail": detail, "fields": []}, status=status
    )


def _error(request, status: int, detail: str, fields: list[dict] | None = None):
    _log(request, status=status, outcome="invalid", error=detail)
    return api.create_response(
        request, {"outcome": "invalid", "detail": detail, "fields": fields or []}, status=status
    )


@api.exception_handler(ValidationError)
def on_validation_error(request, exc: ValidationError):
    fields = []
    for error in exc.errors:
        location = [str(part) for part in error.get("loc", [])]
        if location and location[0] in ("body", "query", "path", "header"):
            location = location[1:]  # where the value came from, not its name
        if location and location[0] == "payload":
            location = location[1:]
        fields.append(
            {"field": ".".join(location) or "body", "message": error.get("msg", "invalid")}
        )
    detail = "; ".join(f"{f['field']}: {f['message']}" for f in fields) or "invalid request"
    return _error(request, 422, detail, fields)


@api.exception_handler(SearchError)
def on_search_error(request, exc: SearchError):
    return _error(request, 400, str(exc), [{"field": exc.field, "message": exc.message}])


@api.exception_handler(AuthenticationError)
def on_auth_error(request, exc):
    AUTH_FAILURES.record_failure(request)
    return refused(request, 401, "a valid API token is required: Authorization: Bearer <token>")


@api.exception_handler(TooManyAuthFailures)
def on_too_many_auth_failures(request, exc: TooManyAuthFailures):
    response = refused(request, 429, str(exc))
    response["Retry-After"] = str(exc.wait)
    return response


@api.exception_handler(BodyTooLarge)
def on_body_too_large(request, exc: BodyTooLarge):
    return refused(request, 413, str(exc))


@api.exception_handler(Throttled)
def on_throttled(request, exc: Throttled):
    token = getattr(request, "auth", None)
    response = refused(request, 429, str(exc), kind=f"throttled:{token.pk if token else '-'}")
    if exc.wait:
        response["Retry-After"] = str(int(exc.wait))
    return response


def on_database_unavailable(request, exc: Exception):
    """The database could not be reached: a 503 a downstream app can wait out, naming the
    cause in words and never the driver's message, whatever DEBUG says; nothing is logged
    (the log is in the same database)."""
    response = api.create_response(
        request,
        {"outcome": "unavailable", "detail": database_unavailable_detail(exc), "fields": []},
        status=503,
    )
    response["Retry-After"] = str(settings.DATABASE_RETRY_AFTER_SECONDS)
    return response


for _unavailable in DatabaseUnavailable:
    api.add_exception_handler(_unavailable, on_database_unavailable)


@api.exception_handler(Http404)
def on_not_found(request, exc: Http404):
    return _error(request, 404, str(exc) or "not found")


@api.exception_handler(HttpError)
def on_http_error(request, exc: HttpError):
    return _error(request, exc.status_code, str(exc))


def search(request, payload: SearchIn):
    """Written out for speed: its stages timed (Server-Timing), the body it built sent without
    validating it again, and its log row written after sending."""
    stages = request_stages(request)
    stages.mark("parse")  # the body read and validated
    answered = answers.search_answered(payload)
    stages.mark("search")  # the question's own timings say where inside
    body = presenters.search_payload(answered)
    stages.mark("present")
    body["timings_ms"] |= {stage: ms for stage, ms in stages.ms.items() if stage != "search"}
    body["timings_ms"]["http"] = stages.elapsed_ms()
    # The presenter builds exactly SearchOut (tests/navigator/test_api.py holds it to the
    # schema), so ninja's second validation of ~40 units is skipped.
    content = api.renderer.render(request, body, response_status=200)
    stages.mark("render")
    logged = answers.search_logged(payload, answered.result, body)
    logged["timings_ms"] = body["timings_ms"] | {"render": stages.ms["render"]}
    response = LoggedAfterSending(
        content,
        log=lambda: _log(request, status=200, **logged),
        content_type=api.renderer.media_type,
    )
    response["Server-Timing"] = stages.server_timing()
    return response


def answering(tool: Tool) -> Callable:
    """The endpoint of a tool that needs nothing of the request but its body: validated into
    the tool's request model, answered, logged."""

    def endpoint(request, payload):
        body, logged = tool.answer(payload)
        _log(request, status=200, **logged)
        return body

    endpoint.__annotations__ = {"payload": tool.request}
    endpoint.__name__ = tool.path.strip("/")  # its OpenAPI operationId: navigator_api_<path>
    return endpoint


# Each tool of the registry has its endpoint: generated by `answering`, or written out.
WRITTEN_OUT = {"knowledgeBaseSearch": search}
for _tool in TOOLS:
    api.post(
        _tool.path,
        response={200: _tool.response} | dict.fromkeys(_tool.errors, ErrorOut),
        summary=_tool.summary,
        description=_tool.doc,
    )(WRITTEN_OUT.get(_tool.name) or answering(_tool))


class LoggedAfterSending(HttpResponse):
    """A response whose QueryLog row is written once the server has sent it: the WSGI server
    calls close() after the last byte, so the caller does not wait for the log's INSERT.
    The row is written before Django's own close(), which may end the database session."""

    def __init__(self, content: bytes, *, log: Callable[[], None], **kwargs):
        super().__init__(content, **kwargs)
        self._log = log

    def close(self) -> None:
        try:
            self._log()
        finally:
            super().close()


@api.get(
    "/concepts/{taxonomy_id}", response={200: ConceptOut, 404: ErrorOut}, summary="A concept by id"
)
def concept(request, taxonomy_id: str, include_historical: bool = False):
    """An old id kept as an alias answers with the current concept and says so."""
    if "\x00" in taxonomy_id:  # PostgreSQL text cannot hold it
        raise HttpError(422, "taxonomy_id: must not contain a NUL byte")
    found, alias = selectors.concept_resolve(taxonomy_id=taxonomy_id)
    if found is None:
        raise HttpError(404, f"taxonomy_id: no concept or alias {taxonomy_id!r}")
    today = timezone.localdate()
    units = selectors.concept_units(
        concept=found, as_of=today, include_historical=include_historical
    )
    signoffs = presenters.signoffs_for([unit for unit, _ in units])
    _log(
        request,
        status=200,
        query=taxonomy_id,
        result_concepts=[found.taxonomy_id],
        result_units=[unit.pk for unit, _ in units],
    )
    return {
        "taxonomy_id": found.taxonomy_id,
        "name": found.name,
        "description": found.description,
        "status": found.status,
        "category": presenters.category_ref(found),
        "aliases": list(found.aliases.values_list("alias", flat=True)),
        "resolved_from_alias": alias,
        "units": [
            presenters.unit_payload(unit, status=status, signoffs=signoffs)
            for unit, status in units
        ],
    }


@api.get("/categories", response=list[CategoryOut], summary="The 23 categories")
def categories(request):
    _log(request, status=200)
    return [
        {"slug": c.slug, "name": c.name, "description": c.description, "concepts": c.active}
        for c in selectors.categories_with_counts()
    ]


@api.get("/units/{unit_id}", response={200: UnitOut, 404: ErrorOut}, summary="One unit")
def unit(request, unit_id: int = Path(..., ge=1, le=2**63 - 1)):  # a bigint
    units = (
        AtomicUnit.objects.alive()
        .select_related("source", "snapshot", "corrected_by")
        .with_sightings()
    )
    found = units.filter(pk=unit_id).first()
    if found is None:
        raise HttpError(404, f"unit_id: no unit {unit_id}")
    _log(request, status=200, query=str(unit_id), result_units=[found.pk])
    return presenters.unit_payload(
        found, status=found.temporal_status_on(timezone.localdate()).value
    )


@api.get("/health", response={200: HealthOut, 503: HealthOut}, auth=None, summary="Health")
def health(request):
    report = services.health_report()
    return Status(200 if report["status"] == "ok" else 503, report)


@api.get("/tool", auth=None, summary="The knowledgeBaseSearch tool definition for LLM agents")
def tool(request):
    return TOOL_BY_NAME["knowledgeBaseSearch"].definition()


@api.get(
    "/tools",
    auth=None,
    summary="Every tool definition for LLM agents, and the recommended system prompt",
)
def tools(request):
    """The tools (OpenAI function format) an assistant registers: search, analyze, verify and
    suggest, as the MCP server at /mcp lists them; and the system prompt recommended beside
    them (when to call the knowledge base, when not, and to verify a drafted answer)."""
    return {
        "tools": tool_definitions(),
        "system_prompt": assistant_prompt(),
        "system_prompt_version": ASSISTANT_PROMPT_VERSION,
    }
