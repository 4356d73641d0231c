"""The MCP server at `/mcp` (Model Context Protocol, streamable HTTP transport), built on the
official `mcp` SDK: the tools of the one registry `GET /tools` and the JSON API read
(navigator.tools), each accepting only the fields it publishes, the same answers as the JSON
API (navigator.answers), and the recommended assistant prompt.

The SDK is asynchronous and Django's views here are not: each process runs one event loop in a
thread of its own holding the SDK's session manager (stateless, JSON answers), and the view
hands it each authenticated request. A tool's work touches the database, so it runs in a
worker thread, as Django's ORM wants outside an event loop. The view authenticates with the
API's tokens, refuses and throttles as the API does; every tool call is logged like an API
call (the endpoint `/mcp/<tool>`), the profile by its field names only."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import threading

import anyio
import mcp_types as types
from django.conf import settings
from django.db import close_old_connections, connections
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from ninja.errors import AuthenticationError, HttpError, Throttled
from ninja.responses import NinjaJSONEncoder
from pydantic import ValidationError

from knowledge.retrieval import SearchError
from navigator import services
from navigator.api import TOKEN_THROTTLE, TokenAuth, api, refused
from navigator.assistant import ASSISTANT_PROMPT_VERSION, assistant_prompt
from navigator.outages import DatabaseUnavailable, database_unavailable_detail
from navigator.tools import TOOL_BY_NAME, tool_definitions

PROMPT_NAME = "navigator_assistant"
# Under gunicorn's 30 s worker timeout: a call still running then is answered 504.
REQUEST_SECONDS = 25
# The request's ApiToken, set where the view hands the request over; the SDK carries the
# context into the tasks that answer it.
_caller = contextvars.ContextVar("navigator_mcp_caller", default=None)
logger = logging.getLogger(__name__)


def _in_worker_thread(function, *args):
    """Run `function` where Django's ORM may run, closing what it opened there."""

    def run():
        close_old_connections()
        try:
            return function(*args)
        finally:
            connections.close_all()

    return anyio.to_thread.run_sync(run)


async def _list_tools(ctx, params) -> types.ListToolsResult:
    definitions = await _in_worker_thread(tool_definitions)
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=d["function"]["name"],
                description=d["function"]["description"],
                input_schema=d["function"]["parameters"],
            )
            for d in definitions
        ]
    )


async def _call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    return await _in_worker_thread(_tool_call, params.name, params.arguments or {}, _caller.get())


def _tool_call(name: str, arguments: dict, token) -> types.CallToolResult:
    """The tool's answer, as the JSON API gives it; bad arguments are a tool error naming
    each field, as the API's 422 does (a field the tool does not publish among them); a
    search that cannot be answered as asked, a 400; a database out of reach, its cause in
    words. Logged as the API logs (not when the database is out of reach: the log is in it)."""
    endpoint = f"/mcp/{name}"[:100]
    if token is None:  # the view always sends one; a tool is never answered without it
        return _tool_error("a valid API token is required")
    tool = TOOL_BY_NAME.get(name)
    if tool is None:
        detail = f"unknown tool {name!r}: use {', '.join(TOOL_BY_NAME)}"
        _log(token, "/mcp", 404, outcome="invalid", error=detail)
        return _tool_error(detail)
    try:
        payload = tool.arguments(arguments)
    except ValidationError as error:
        detail = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in error.errors()
        )
        _log(token, endpoint, 422, outcome="invalid", error=detail)
        return _tool_error(f"invalid arguments: {detail}")
    try:
        body, logged = tool.answer(payload)
    except SearchError as error:
        _log(token, endpoint, 400, outcome="invalid", error=str(error))
        return _tool_error(str(error))
    except DatabaseUnavailable as error:
        return _tool_error(database_unavailable_detail(error))
    except Exception:
        logger.exception("MCP tool %s failed", name)
        _log(token, endpoint, 500, outcome="invalid", error="internal error")
        return _tool_error("the tool failed on the server; the failure is logged")
    _log(token, endpoint, 200, **logged)
    if not tool.built_exact:  # as the API's response schema passes it: its fields, its defaults
        body = tool.response.model_validate(body).model_dump(mode="json")
    text = json.dumps(body, cls=NinjaJSONEncoder)  # as the JSON API writes it
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=json.loads(text)
    )


def _log(token, endpoint: str, status: int, **fields) -> None:
    services.query_log_write(token=token, endpoint=endpoint, status_code=status, **fields)


def _tool_error(detail: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=detail)], is_error=True)


async def _list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name=PROMPT_NAME,
                description="The system prompt recommended for an assistant using Navigator's "
                f"tools ({ASSISTANT_PROMPT_VERSION}): when to call the knowledge base, when "
                "not, and to verify a drafted answer before sending it.",
            )
        ]
    )


async def _get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name != PROMPT_NAME:
        raise ValueError(f"unknown prompt {params.name!r}: use {PROMPT_NAME!r}")
    return types.GetPromptResult(
        description=f"Navigator's recommended assistant prompt, {ASSISTANT_PROMPT_VERSION}",
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=assistant_prompt()))
        ],
    )


def _server() -> Server:
    return Server(
        "navigator",
        version=ASSISTANT_PROMPT_VERSION,
        instructions=assistant_prompt(),
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
    )


class _Loop:
    """The process's event loop thread, running the SDK's session manager; started at the
    first request, and again in a process forked after it (which has no such thread) or when
    the thread has died."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.manager: StreamableHTTPSessionManager | None = None

    def ready(self) -> _Loop:
        with self._lock:
            alive = self._thread is not None and self._thread.is_alive()
            if self._pid != os.getpid() or not alive:
                started = threading.Event()
                self._thread = threading.Thread(
                    target=self._run, args=(started,), name="mcp", daemon=True
                )
                self._thread.start()
                if not started.wait(10):
                    raise RuntimeError("the MCP session manager did not start within 10 s")
                self._pid = os.getpid()
        return self

    def _run(self, started: threading.Event) -> None:
        self.loop = asyncio.new_event_loop()
        # Django already checks the Host header (ALLOWED_HOSTS) before the view runs.
        self.manager = StreamableHTTPSessionManager(
            app=_server(),
            stateless=True,
            json_response=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.API_MAX_BODY_BYTES,
        )

        async def serve() -> None:
            async with self.manager.run():
                started.set()
                await asyncio.Event().wait()  # for the life of the process

        try:
            self.loop.run_until_complete(serve())
        except Exception:
            logger.exception("the MCP session manager stopped")

    def respond(self, scope: dict, body: bytes, token) -> tuple[int, list, bytes]:
        """The SDK's answer; a call that runs past REQUEST_SECONDS is cancelled and raises
        TimeoutError."""
        future = asyncio.run_coroutine_threadsafe(self._respond(scope, body, token), self.loop)
        try:
            return future.result(timeout=REQUEST_SECONDS)
        except TimeoutError:
            future.cancel()
            raise

    async def _respond(self, scope: dict, body: bytes, token) -> tuple[int, list, bytes]:
        _caller.set(token)
        incoming = [{"type": "http.request", "body": body, "more_body": False}]
        answered = asyncio.Event()
        status, headers, chunks = 500, [], []

        async def receive() -> dict:
            if incoming:
                return incoming.pop()
            await answered.wait()  # the client stays connected until the answer is sent
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status, headers = message["status"], message.get("headers", [])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    answered.set()

        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            answered.set()
        return status, headers, b"".join(chunks)


_LOOP = _Loop()


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """Authenticated, throttled and refused by the JSON API's own gate and handlers, then
    handed to the SDK."""
    try:
        token = TokenAuth()(request)  # a blocked address, an oversized body, the bearer token
        if token is None:
            raise AuthenticationError()
        request.auth = token
        if not TOKEN_THROTTLE.allow_request(request):
            raise Throttled(TOKEN_THROTTLE.wait())
    except (AuthenticationError, HttpError, Throttled) as refusal:
        response = api.on_exception(request, refusal)
        if response.status_code == 401:
            response["WWW-Authenticate"] = "Bearer"  # as MCP clients expect
        return response
    if request.method not in ("POST", "DELETE"):
        # Stateless: no stream of the server's own messages to open with GET.
        response = refused(request, 405, f"{request.method}: the MCP endpoint takes POST")
        response["Allow"] = "POST, DELETE"
        return response
    try:
        status, headers, body = _LOOP.ready().respond(_scope(request), request.body, token)
    except TimeoutError:
        return refused(request, 504, f"the MCP call took longer than {REQUEST_SECONDS} s")
    except RuntimeError as error:  # the session manager could not start
        logger.error("MCP unavailable: %s", error)
        response = refused(request, 503, "the MCP server is starting or unavailable: retry")
        response["Retry-After"] = "5"
        return response
    response = HttpResponse(body, status=status)
    for name, value in headers:
        if name.lower() not in (b"content-length", b"connection", b"transfer-encoding"):
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response


def _scope(request: HttpRequest) -> dict:
    headers = [
        (key[5:].replace("_", "-").lower().encode("latin-1"), value.encode("latin-1"))
        for key, value in request.META.items()
        if key.startswith("HTTP_") and isinstance(value, str)
    ]
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if request.META.get(key):
            headers.append((key.replace("_", "-").lower().encode(), request.META[key].encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR") or "", 0),
        "server": (request.get_host().rsplit(":", 1)[0], int(request.get_port())),
    }
