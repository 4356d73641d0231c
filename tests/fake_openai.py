"""A fake OpenAI-compatible chat-completions endpoint for tests, served over real HTTP.

The real `openai.OpenAI` client talks to it on 127.0.0.1, so the client's own behaviour
(retries, Retry-After, timeouts, response parsing) is exercised rather than mocked away.
Replies are scripted in order; every request is recorded with its parsed JSON body.

    def test_something(fake_openai):
        fake_openai.answer({"category": "isa", ...}, prompt_tokens=900, completion_tokens=40)
        fake_openai.error(429, headers={"Retry-After": "0"})
        client = OpenAI(base_url=fake_openai.base_url, api_key="test-key")

In a test module, `from tests.fake_openai import fake_openai_fixture  # noqa: F401` makes
the `fake_openai` fixture available (or use `FakeOpenAI` as a context manager).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PATHS = ("/v1/chat/completions", "/chat/completions")
_ids = itertools.count(1)


@dataclass
class Reply:
    """One scripted answer: a JSON body (dict or list), or raw bytes / text as given."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (to provoke client timeouts)
    content_type: str = "application/json"

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        if self.body is None:
            return b""
        return json.dumps(self.body).encode()


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any  # the parsed JSON body, or None when it was not JSON

    @property
    def model(self) -> str | None:
        return (self.body or {}).get("model")

    @property
    def messages(self) -> list[dict]:
        return (self.body or {}).get("messages") or []

    @property
    def response_format(self) -> dict | None:
        return (self.body or {}).get("response_format")

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages)


def chat_completion(
    content: Any,
    *,
    model: str = "gpt-4o-mini",
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    finish_reason: str = "stop",
    refusal: str | None = None,
) -> dict:
    """A normal chat-completion body. `content` that is not a string is JSON-encoded."""
    if content is not None and not isinstance(content, str):
        content = json.dumps(content)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tool_call_completion(*names: str, model: str = "gpt-4o-mini") -> dict:
    """A chat completion in which the model calls these tools (with empty arguments)."""
    body = chat_completion(None, model=model, finish_reason="tool_calls")
    body["choices"][0]["message"]["tool_calls"] = [
        {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for n, name in enumerate(names)
    ]
    return body


def error_body(message: str, *, kind: str = "server_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class FakeOpenAI:
    """The server. Scripted replies are used in order; once they run out, `responder` makes
    one for the request (when set), or `always` answers (when set), else a 418 that no client retries and that names the problem."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.always: Reply | None = None
        # Once the scripted replies run out: a reply made for each request (a stand-in model).
        self.responder: Callable[[Recorded], Reply] | None = None
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    # --- scripting ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, reply: Reply) -> FakeOpenAI:
        with self._lock:
            self.replies.append(reply)
        return self

    def answer(self, content: Any, *, delay: float = 0.0, **completion) -> FakeOpenAI:
        """Queue a 200 chat completion whose message content is `content` (JSON-encoded
        unless it is already a string)."""
        return self.reply(Reply(200, chat_completion(content, **completion), delay=delay))

    def error(
        self,
        status: int,
        message: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> FakeOpenAI:
        body = error_body(message or f"fake error {status}")
        return self.reply(Reply(status, body, headers=dict(headers or {}), delay=delay))

    @property
    def count(self) -> int:
        return len(self.requests)

    # --- lifecycle ---------------------------------------------------------------------

    def close(self) -> None:
        self._stopping.set()  # cuts short any handler still sleeping on a delay
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- serving -----------------------------------------------------------------------

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(recorded)
        if self.always is not None:
            return self.always
        return Reply(418, error_body("fake_openai: no scripted reply left", kind="test_error"))

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # noqa: A002 - quiet test output
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                recorded = Recorded("POST", self.path, dict(self.headers.items()), raw, body)
                with fake._lock:
                    fake.requests.append(recorded)
                if self.path.split("?")[0] not in PATHS:
                    self._send(Reply(404, error_body(f"no route {self.path}", kind="not_found")))
                    return
                reply = fake._next(recorded)
                if reply.delay and fake._stopping.wait(reply.delay):
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                payload = reply.payload()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout) before we answered

        return Handler


@pytest.fixture(name="fake_openai")
def fake_openai_fixture():
    """A running fake endpoint, shut down after the test."""
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()


def point_settings_at(fake, settings, **models) -> None:
    """Send the `openai` provider to this fake server, without retries, with these models
    (e.g. LLM_MODEL_EXTRACT="reader")."""
    settings.LLM_BASE_URL = fake.base_url
    settings.LLM_API_KEY = "test-key"
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_SECONDS = 2
    for name, value in models.items():
        setattr(settings, name, value)
