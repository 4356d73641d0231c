"""The door to gov.uk, tested over real HTTP against a loopback server that plays gov.uk.

Every request the client builds for https://www.gov.uk is sent, unchanged apart from its
address, to a `ThreadingHTTPServer` on 127.0.0.1 (see `LoopbackTransport`), so the Host and
User-Agent headers, redirects, status codes, timeouts and body framing are all real. Each
scenario is checked at the client and again through ingestion (source, item, snapshots).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from knowledge import govuk, tasks
from knowledge.documents import GOVUK_ORIGIN, document_from_json
from knowledge.govuk import (
    USER_AGENT,
    ContentApiClient,
    FetchError,
    LocalDirectorySource,
    PageGone,
    RateLimiter,
    RefusedTarget,
    TransientFetchError,
    ensure_allowed_url,
)
from knowledge.models import IngestItem, IngestJob, PageSnapshot, SnapshotLink, Source
from knowledge.services.ingest import (
    govuk_job_create,
    ingest_item_run,
    ingest_job_create,
    page_store,
)
from tests.factories import SourceFactory

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
CHILD_BENEFIT = json.loads((FIXTURES / "child-benefit.json").read_text(encoding="utf-8"))
CHILD_BENEFIT_API = "/api/content/child-benefit"
CHILD_BENEFIT_URL = "https://www.gov.uk/child-benefit"
CHILD_BENEFIT_LINKS = {
    "/child-benefit-tax-charge",
    "/national-insurance-credits",
    "/new-state-pension",
    "/child-benefit/how-to-claim",
}
# The rate limiter shares the client's `sleep`; at 1000 requests a second its waits are
# about a millisecond, so anything from 10 ms up is a retry backoff.
BACKOFF_FLOOR = 0.01


# --- the loopback gov.uk ------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One scripted response. `framing`: "length" (Content-Length), "chunked", or "close"
    (HTTP/1.0, no length: the body ends when the connection closes)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    framing: str = "length"


@dataclass(frozen=True)
class SeenRequest:
    path: str
    headers: dict[str, str]  # names lower-cased


class FakeGovUk:
    """Routing table (path -> replies used in order, the last one repeating) and request log."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.requests: list[SeenRequest] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.port = 0

    def script(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self.routes[path] = list(replies)

    def take(self, path: str, headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(SeenRequest(path, headers))
            replies = self.routes.get(path)
            if not replies:
                return Reply(404, b'{"error": "no route scripted"}')
            return replies.pop(0) if len(replies) > 1 else replies[0]

    @property
    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


class _GovUkHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        fake: FakeGovUk = self.server.fake
        reply = fake.take(self.path, {name.lower(): value for name, value in self.headers.items()})
        if reply.delay and fake.stopping.wait(reply.delay):
            self.close_connection = True  # tearing down: answer nothing
            return
        if reply.framing == "close":
            self.protocol_version = "HTTP/1.0"
            self.close_connection = True
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.framing == "length":
            self.send_header("Content-Length", str(len(reply.body)))
        elif reply.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(reply.body), 1024):
            chunk = reply.body[start : start + 1024]
            if reply.framing == "chunked":
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            else:
                self.wfile.write(chunk)
        if reply.framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass


class _LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeGovUk):
        super().__init__(("127.0.0.1", 0), _GovUkHandler)
        self.fake = fake

    def handle_error(self, request, client_address) -> None:
        # A client that gave up (timeout, size limit) leaves the handler writing to a closed
        # socket; that is expected here, anything else is reported.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class LoopbackTransport(httpx.HTTPTransport):
    """Sends each request to the loopback server, keeping it as built for www.gov.uk."""

    def __init__(self, port: int):
        super().__init__()
        self.port = port
        self.sent: list[str] = []  # URLs as the client built them

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(str(request.url))
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return super().handle_request(request)


@pytest.fixture
def govuk_server():
    fake = FakeGovUk()
    server = _LoopbackServer(fake)
    fake.port = server.server_address[1]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-govuk", daemon=True
    )
    thread.start()
    yield fake
    fake.stopping.set()  # wake delayed replies so that nothing outlives the test
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@dataclass
class Rig:
    client: ContentApiClient
    sleeps: list[float]
    transport: LoopbackTransport

    @property
    def backoffs(self) -> list[float]:
        return [seconds for seconds in self.sleeps if seconds >= BACKOFF_FLOOR]


CLIENT_DEFAULTS = {
    "timeout": 0.5,
    "connect_timeout": 0.5,
    "max_attempts": 3,
    "requests_per_second": 1000,
    "max_bytes": 1_000_000,
}


@pytest.fixture(autouse=True)
def no_real_govuk(monkeypatch):
    """Ingestion may only reach the loopback server: the real client is never built."""

    def refuse() -> ContentApiClient:
        raise AssertionError("this test would have built a client for the real gov.uk")

    monkeypatch.setattr(govuk, "content_api_client", refuse)


@pytest.fixture
def make_rig(govuk_server, monkeypatch):
    """A client wired to the loopback server, also installed as the services' client."""
    rigs: list[Rig] = []

    def make(**options) -> Rig:
        sleeps: list[float] = []
        transport = LoopbackTransport(govuk_server.port)
        client = ContentApiClient(
            transport=transport, sleep=sleeps.append, **{**CLIENT_DEFAULTS, **options}
        )
        monkeypatch.setattr(govuk, "content_api_client", lambda: client)
        rigs.append(Rig(client, sleeps, transport))
        return rigs[-1]

    yield make
    for rig in rigs:
        rig.client.close()


@pytest.fixture
def rig(make_rig) -> Rig:
    return make_rig()


# --- helpers ------------------------------------------------------------------------------


def json_reply(data: object, *, status: int = 200, **options) -> Reply:
    headers = {"Content-Type": "application/json", **options.pop("headers", {})}
    return Reply(status, json.dumps(data).encode(), headers, **options)


def simple_page(base_path: str, title: str, body_html: str = "<p>Some guidance.</p>") -> dict:
    return {
        "base_path": base_path,
        "title": title,
        "document_type": "answer",
        "public_updated_at": None,
        "details": {"body": body_html},
    }


def child_benefit_with_new_rate() -> dict:
    page = copy.deepcopy(CHILD_BENEFIT)
    first_part = page["details"]["parts"][0]
    assert "£25.60" in first_part["body"]
    first_part["body"] = first_part["body"].replace("£25.60", "£26.05")
    return page


def existing_source(page: dict = CHILD_BENEFIT) -> Source:
    """A source ingested earlier, with one snapshot (and its links)."""
    origin = f"{GOVUK_ORIGIN}/api/content{page['base_path']}"
    return page_store(document=document_from_json(page, origin=origin)).source


def ingest_path(path: str) -> IngestItem:
    job = govuk_job_create(paths=[path])
    return ingest_item_run(job_id=job.pk, ref=job.refs[0])


def stored_rows() -> tuple[int, int, int]:
    return Source.objects.count(), PageSnapshot.objects.count(), SnapshotLink.objects.count()


# --- the harness itself -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("framing", "length_header", "chunked", "http_version"),
    [
        ("length", True, False, "HTTP/1.1"),
        ("chunked", False, True, "HTTP/1.1"),
        ("close", False, False, "HTTP/1.0"),
    ],
)
def test_loopback_server_frames_bodies_as_scripted(
    govuk_server, framing, length_header, chunked, http_version
):
    body = b"x" * 5000
    govuk_server.script("/probe", Reply(200, body, framing=framing))
    with httpx.Client(transport=LoopbackTransport(govuk_server.port)) as http:
        response = http.get("https://www.gov.uk/probe")
    assert response.content == body
    assert ("content-length" in response.headers) is length_header
    assert (response.headers.get("transfer-encoding") == "chunked") is chunked
    assert response.http_version == http_version
    assert govuk_server.requests[0].headers["host"] == "www.gov.uk"


# --- a page that is there -----------------------------------------------------------------


def test_page_is_fetched_from_the_content_api_as_navigator_on_www_gov_uk(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, json_reply(CHILD_BENEFIT))

    document = rig.client.fetch("/child-benefit")

    assert document.url == CHILD_BENEFIT_URL
    assert document.title == "Child Benefit"
    assert [part.slug for part in document.parts] == [
        "what-youll-get",
        "eligibility",
        "how-to-claim",
    ]
    assert document.origin == "https://www.gov.uk/api/content/child-benefit"
    (request,) = govuk_server.requests
    assert request.path == CHILD_BENEFIT_API
    assert request.headers["host"] == "www.gov.uk"
    assert request.headers["user-agent"] == USER_AGENT
    assert USER_AGENT.startswith("Navigator/")
    assert request.headers["accept"] == "application/json"
    assert rig.transport.sent == ["https://www.gov.uk/api/content/child-benefit"]
    assert rig.backoffs == []


def test_page_address_is_fetched_like_its_path(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, json_reply(CHILD_BENEFIT))
    assert rig.client.fetch(CHILD_BENEFIT_URL).url == CHILD_BENEFIT_URL
    assert govuk_server.paths == [CHILD_BENEFIT_API]


@pytest.mark.django_db
def test_new_page_becomes_a_source_with_one_snapshot_and_its_links(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, json_reply(CHILD_BENEFIT))

    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.NEW and item.reason == ""
    source = Source.objects.get()
    assert item.source == source
    assert (source.url, source.base_path, source.title) == (
        CHILD_BENEFIT_URL,
        "/child-benefit",
        "Child Benefit",
    )
    assert source.status == Source.Status.OK and source.status_reason == ""
    snapshot = PageSnapshot.objects.get()
    assert source.current_snapshot == snapshot == item.snapshot
    assert snapshot.origin == "https://www.gov.uk/api/content/child-benefit"
    assert "£25.60" in snapshot.text
    assert set(snapshot.links.values_list("target_path", flat=True)) == CHILD_BENEFIT_LINKS
    assert govuk_server.requests[0].headers["user-agent"] == USER_AGENT


@pytest.mark.django_db
def test_same_content_is_unchanged_and_new_content_adds_a_current_snapshot(rig, govuk_server):
    govuk_server.script(
        CHILD_BENEFIT_API,
        json_reply(CHILD_BENEFIT),
        json_reply(CHILD_BENEFIT),
        json_reply(child_benefit_with_new_rate()),
    )
    first = ingest_path("/child-benefit")

    second = ingest_path("/child-benefit")
    assert second.outcome == IngestItem.Outcome.UNCHANGED
    assert second.snapshot == first.snapshot
    assert PageSnapshot.objects.count() == 1
    assert Source.objects.get().status == Source.Status.OK

    third = ingest_path("/child-benefit")
    assert third.outcome == IngestItem.Outcome.CHANGED
    source = Source.objects.get()
    assert source.snapshots.count() == 2
    assert source.status == Source.Status.CHANGED
    assert source.current_snapshot == third.snapshot != first.snapshot
    assert "£26.05" in source.current_snapshot.text
    assert source.content_hash == third.snapshot.content_hash
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 3


# --- redirects ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "location",
    [
        "https://www.gov.uk/api/content/new-path",
        "/api/content/new-path",
        "https://www.gov.uk/new-path",  # the page's public address: asked for via the API
        "/new-path",
    ],
)
def test_redirect_moves_the_source_to_its_new_address(rig, govuk_server, location):
    govuk_server.script("/api/content/old-path", Reply(301, headers={"Location": location}))
    govuk_server.script("/api/content/new-path", json_reply(simple_page("/new-path", "New")))
    old = existing_source(simple_page("/old-path", "Old"))

    document = rig.client.fetch("/old-path")
    assert document.url == "https://www.gov.uk/new-path"
    assert govuk_server.paths == ["/api/content/old-path", "/api/content/new-path"]
    assert all(request.headers["host"] == "www.gov.uk" for request in govuk_server.requests)

    item = ingest_path("/old-path")

    assert item.outcome == IngestItem.Outcome.CHANGED
    source = Source.objects.get()  # moved, not duplicated
    assert source.pk == old.pk == item.source_id
    assert (source.url, source.base_path) == ("https://www.gov.uk/new-path", "/new-path")
    assert source.title == "New"
    assert source.current_snapshot.origin == "https://www.gov.uk/api/content/new-path"
    assert source.snapshots.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("location", "named"),
    [
        ("https://evil.example/api/content/x", "evil.example"),
        ("//evil.example/api/content/x", "evil.example"),
        ("https://127.0.0.1/api/content/x", "127.0.0.1"),
        ("http://www.gov.uk/api/content/x", "only https"),
        ("https://www.gov.uk:8443/api/content/x", "www.gov.uk:8443"),
    ],
)
def test_redirect_away_from_https_www_gov_uk_is_refused(rig, govuk_server, location, named):
    govuk_server.script(CHILD_BENEFIT_API, Reply(302, headers={"Location": location}))
    govuk_server.script("/api/content/x", json_reply(simple_page("/x", "Not gov.uk")))
    source = SourceFactory(url=CHILD_BENEFIT_URL, base_path="/child-benefit")

    with pytest.raises(RefusedTarget) as refused:
        rig.client.fetch("/child-benefit")
    assert named in refused.value.reason
    assert rig.transport.sent == ["https://www.gov.uk/api/content/child-benefit"]
    assert govuk_server.paths == [CHILD_BENEFIT_API]  # the loopback would have shown /x

    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.FAILED and named in item.reason
    assert item.source == source
    source.refresh_from_db()
    assert source.status == Source.Status.ERROR and named in source.status_reason
    assert stored_rows() == (1, 0, 0)
    assert "/api/content/x" not in govuk_server.paths


@pytest.mark.django_db
def test_redirect_without_location_or_in_a_loop_fails_with_its_reason(rig, govuk_server):
    govuk_server.script("/api/content/nowhere", Reply(301))
    govuk_server.script("/api/content/loop", Reply(308, headers={"Location": "/loop"}))

    with pytest.raises(FetchError, match="without a Location header"):
        rig.client.fetch("/nowhere")
    with pytest.raises(FetchError, match="more than 5 redirects"):
        rig.client.fetch("/loop")
    assert govuk_server.paths.count("/api/content/loop") == 6

    assert "without a Location" in ingest_path("/nowhere").reason
    assert ingest_path("/loop").outcome == IngestItem.Outcome.FAILED
    assert stored_rows() == (0, 0, 0)


# --- gone ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("status", [404, 410])
def test_page_gone_marks_the_source_gone_and_keeps_its_snapshot(
    rig, govuk_server, status, settings
):
    settings.SOURCE_GONE_AFTER_FAILURES, settings.SOURCE_GONE_AFTER_DAYS = 1, 0  # gone at once
    govuk_server.script(CHILD_BENEFIT_API, json_reply({"error": "gone"}, status=status))
    source = existing_source()
    snapshot = source.current_snapshot
    before = stored_rows()

    with pytest.raises(PageGone) as gone:
        rig.client.fetch("/child-benefit")
    assert not isinstance(gone.value, TransientFetchError)
    assert str(status) in gone.value.reason
    assert govuk_server.paths == [CHILD_BENEFIT_API]  # not retried
    assert rig.backoffs == []

    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.GONE and str(status) in item.reason
    assert item.source == source and item.snapshot is None
    source.refresh_from_db()
    assert source.status == Source.Status.GONE
    assert str(status) in source.status_reason
    assert source.current_snapshot == snapshot
    assert stored_rows() == before


@pytest.mark.django_db
def test_gone_page_that_comes_back_is_ok_again(rig, govuk_server):
    source = existing_source()
    govuk_server.script(CHILD_BENEFIT_API, Reply(404), json_reply(CHILD_BENEFIT))

    assert ingest_path("/child-benefit").outcome == IngestItem.Outcome.GONE
    assert ingest_path("/child-benefit").outcome == IngestItem.Outcome.UNCHANGED

    source.refresh_from_db()
    assert source.status == Source.Status.OK and source.status_reason == ""
    assert source.snapshots.count() == 1


# --- retries ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_rate_limited_request_waits_for_retry_after_then_succeeds(rig, govuk_server):
    rate_limited = Reply(429, headers={"Retry-After": "7"})
    govuk_server.script(CHILD_BENEFIT_API, rate_limited, json_reply(CHILD_BENEFIT))

    assert rig.client.fetch("/child-benefit").url == CHILD_BENEFIT_URL
    assert rig.backoffs == [7.0]
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 2

    govuk_server.script(CHILD_BENEFIT_API, rate_limited, json_reply(CHILD_BENEFIT))
    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.NEW
    assert rig.backoffs == [7.0, 7.0]
    assert Source.objects.get().status == Source.Status.OK
    assert PageSnapshot.objects.count() == 1


def test_retry_after_longer_than_max_backoff_is_capped(rig, govuk_server):
    govuk_server.script(
        CHILD_BENEFIT_API, Reply(429, headers={"Retry-After": "3600"}), json_reply(CHILD_BENEFIT)
    )
    rig.client.fetch("/child-benefit")
    assert rig.backoffs == [30.0]


@pytest.mark.django_db
def test_server_error_then_success_retries_once_after_a_backoff(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, Reply(500), json_reply(CHILD_BENEFIT))

    assert rig.client.fetch("/child-benefit").title == "Child Benefit"
    (backoff,) = rig.backoffs
    assert 0.5 <= backoff <= 0.625  # backoff_base with up to 25 % jitter
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 2

    govuk_server.script(CHILD_BENEFIT_API, Reply(500), json_reply(CHILD_BENEFIT))
    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.NEW
    assert len(rig.backoffs) == 2
    assert stored_rows() == (1, 1, len(CHILD_BENEFIT_LINKS))


@pytest.mark.django_db
def test_server_error_forever_gives_up_after_max_attempts(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, Reply(500))
    source = existing_source()
    before = stored_rows()

    with pytest.raises(TransientFetchError) as failed:
        rig.client.fetch("/child-benefit")
    assert "HTTP 500" in failed.value.reason and "3 attempts" in failed.value.reason
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 3
    first, second = rig.backoffs  # between attempts only, growing
    assert 0.5 <= first <= 0.625 and 1.0 <= second <= 1.25

    # The service records what the client gave up on, after the client's attempts only.
    job = govuk_job_create(paths=["/child-benefit"])
    item = ingest_item_run(job_id=job.pk, ref="/child-benefit")
    assert item.outcome == IngestItem.Outcome.FAILED and "3 attempts" in item.reason
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 6
    source.refresh_from_db()
    assert source.status == Source.Status.ERROR and source.current_snapshot is not None
    assert stored_rows() == before


@pytest.mark.django_db
def test_ingest_task_records_server_errors_as_a_failed_item(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, Reply(500))
    source = existing_source()
    before = stored_rows()
    job = govuk_job_create(paths=["/child-benefit"])

    outcome = tasks.ingest_page.apply(args=(job.pk, "/child-benefit"), throw=True).get()

    assert outcome == IngestItem.Outcome.FAILED
    item = IngestItem.objects.get(job=job)
    assert item.outcome == IngestItem.Outcome.FAILED and "500" in item.reason
    source.refresh_from_db()
    assert source.status == Source.Status.ERROR and "500" in source.status_reason
    assert source.current_snapshot is not None
    assert stored_rows() == before
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FINISHED
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 3


@pytest.mark.django_db
def test_ingest_task_on_a_worker_does_not_retry_what_the_client_gave_up_on(
    rig, govuk_server, monkeypatch
):
    govuk_server.script(CHILD_BENEFIT_API, Reply(503))
    job = govuk_job_create(paths=["/child-benefit"])

    def no_task_retry(*args, **kwargs):
        raise AssertionError("the task retried a fetch the client had retried already")

    monkeypatch.setattr(tasks.ingest_page, "retry", no_task_retry)
    # As a worker runs it (not eagerly), where a Celery retry would be scheduled.
    tasks.ingest_page.push_request(is_eager=False, called_directly=False, retries=0)
    try:
        outcome = tasks.ingest_page(job.pk, "/child-benefit")
    finally:
        tasks.ingest_page.pop_request()

    assert outcome == IngestItem.Outcome.FAILED
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 3  # the client's max_attempts, once
    assert len(rig.backoffs) == 2
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FINISHED


@pytest.mark.django_db
def test_response_slower_than_the_read_timeout_is_a_transient_timeout(make_rig, govuk_server):
    rig = make_rig(max_attempts=2)
    govuk_server.script(CHILD_BENEFIT_API, json_reply(CHILD_BENEFIT, delay=1.5))
    source = SourceFactory(url=CHILD_BENEFIT_URL, base_path="/child-benefit")

    started = time.monotonic()
    with pytest.raises(TransientFetchError) as failed:
        rig.client.fetch("/child-benefit")
    elapsed = time.monotonic() - started
    assert "ReadTimeout" in failed.value.reason and "2 attempts" in failed.value.reason
    assert elapsed < 1.5 * 2  # did not wait for the slow answers
    assert govuk_server.paths == [CHILD_BENEFIT_API] * 2
    assert len(rig.backoffs) == 1

    job = govuk_job_create(paths=["/child-benefit"])
    tasks.ingest_page.apply(args=(job.pk, "/child-benefit"), throw=True)

    item = IngestItem.objects.get(job=job)
    assert item.outcome == IngestItem.Outcome.FAILED and "ReadTimeout" in item.reason
    source.refresh_from_db()
    assert source.status == Source.Status.ERROR and "ReadTimeout" in source.status_reason
    assert stored_rows() == (1, 0, 0)


# --- bodies that are not pages ------------------------------------------------------------


@pytest.mark.django_db
def test_malformed_json_fails_the_item_and_stores_nothing(rig, govuk_server):
    govuk_server.script(
        CHILD_BENEFIT_API, Reply(200, b'{"base_path": "/child-benefit", "tit', {"X": "y"})
    )
    source = existing_source()
    snapshot = source.current_snapshot
    before = stored_rows()

    with pytest.raises(FetchError, match="not valid JSON") as failed:
        rig.client.fetch("/child-benefit")
    assert not isinstance(failed.value, TransientFetchError | PageGone)
    assert govuk_server.paths == [CHILD_BENEFIT_API]  # not retried

    item = ingest_path("/child-benefit")

    assert item.outcome == IngestItem.Outcome.FAILED and "not valid JSON" in item.reason
    assert item.snapshot is None
    source.refresh_from_db()
    assert source.status == Source.Status.ERROR and "not valid JSON" in source.status_reason
    assert source.current_snapshot == snapshot
    assert stored_rows() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("page", "missing"),
    [
        ({"foo": 1}, "neither 'details' (Content API) nor 'url' (page file)"),
        ({"title": "X", "details": {"body": "<p>x</p>"}}, "base_path: missing"),
        ({"base_path": "/x", "details": {"body": "<p>x</p>"}}, "title: missing"),
        ({"base_path": "/x", "title": "X", "details": {}}, "no 'parts', 'body'"),
        ([{"base_path": "/x"}], "must be an object"),
    ],
)
def test_json_that_is_not_a_page_names_what_is_missing(rig, govuk_server, page, missing):
    govuk_server.script("/api/content/x", json_reply(page))

    with pytest.raises(FetchError) as failed:
        rig.client.fetch("/x")
    assert "is not a page" in failed.value.reason and missing in failed.value.reason

    item = ingest_path("/x")

    assert item.outcome == IngestItem.Outcome.FAILED and missing in item.reason
    assert item.source is None
    assert stored_rows() == (0, 0, 0)


def test_other_client_errors_fail_at_once(rig, govuk_server):
    govuk_server.script(CHILD_BENEFIT_API, Reply(403))
    with pytest.raises(FetchError, match="HTTP 403") as failed:
        rig.client.fetch("/child-benefit")
    assert not isinstance(failed.value, TransientFetchError | PageGone)
    assert govuk_server.paths == [CHILD_BENEFIT_API]


def _padded_page(size: int) -> bytes:
    """A valid page of at least `size` bytes, so only the size limit can refuse it."""
    page = simple_page("/big", "Big", "<p>" + "A long paragraph. " * (size // 18) + "</p>")
    return json.dumps(page).encode()


@pytest.mark.django_db
@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_oversized_body_is_refused(make_rig, govuk_server, framing):
    rig = make_rig(max_bytes=2000)
    body = _padded_page(10 * 1024)
    assert len(body) >= 10 * 1024
    govuk_server.script("/api/content/big", Reply(200, body, framing=framing))

    with pytest.raises(FetchError, match="over the limit of 2000") as failed:
        rig.client.fetch("/big")
    assert not isinstance(failed.value, TransientFetchError)
    if framing == "length":  # refused on the declared length, before reading the body
        assert f"is {len(body)} bytes" in failed.value.reason
    assert govuk_server.paths == ["/api/content/big"]

    item = ingest_path("/big")

    assert item.outcome == IngestItem.Outcome.FAILED and "over the limit" in item.reason
    assert stored_rows() == (0, 0, 0)


@pytest.mark.django_db
def test_body_within_the_limit_is_accepted_without_a_length(make_rig, govuk_server):
    rig = make_rig(max_bytes=20 * 1024)
    body = _padded_page(10 * 1024)
    govuk_server.script("/api/content/big", Reply(200, body, framing="chunked"))
    assert rig.client.fetch("/big").url == "https://www.gov.uk/big"


# --- nothing but https://www.gov.uk -------------------------------------------------------

REFUSED_URLS = [
    "http://www.gov.uk/api/content/child-benefit",
    "https://evil.example/api/content/child-benefit",
    "https://127.0.0.1/api/content/child-benefit",
    "https://www.gov.uk:8443/api/content/child-benefit",
    "https://user@www.gov.uk/api/content/child-benefit",
    "https://www.gov.uk@evil.example/api/content/child-benefit",
    "https://www.gov.uk.evil.example/api/content/child-benefit",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_other_hosts_schemes_ports_and_users_are_refused_before_any_request(rig, govuk_server, url):
    with pytest.raises(RefusedTarget) as refused:
        ensure_allowed_url(url)
    assert url in refused.value.reason

    with pytest.raises(RefusedTarget):
        rig.client._get_with_retries(url)

    assert rig.transport.sent == []
    assert govuk_server.requests == []
    assert rig.sleeps == []


def test_a_password_without_a_user_name_is_refused_too(rig, govuk_server):
    url = "https://:secret@www.gov.uk/api/content/child-benefit"
    with pytest.raises(RefusedTarget):
        ensure_allowed_url(url)
    assert rig.transport.sent == []


@pytest.mark.parametrize(
    "url",
    [
        "https://www.gov.uk/api/content/child-benefit",
        "https://www.gov.uk:443/api/content/child-benefit",
        "https://WWW.GOV.UK/api/content/child-benefit",
    ],
)
def test_https_www_gov_uk_is_allowed(url):
    ensure_allowed_url(url)  # no exception


@pytest.mark.parametrize(
    "path",
    [
        "https://evil.example/child-benefit",
        "http://www.gov.uk/child-benefit",
        "//evil.example/child-benefit",
        "child-benefit",
        "/benefits/../child-benefit",
    ],
)
def test_fetch_refuses_what_is_not_a_gov_uk_path(rig, govuk_server, path):
    with pytest.raises(RefusedTarget):
        rig.client.fetch(path)
    assert rig.transport.sent == [] and govuk_server.requests == []


@pytest.mark.django_db
def test_job_for_a_non_gov_uk_address_is_refused_naming_its_position():
    with pytest.raises(ValueError, match=r"path 1 \('https://evil.example/x'\)"):
        govuk_job_create(paths=["https://evil.example/x"])
    with pytest.raises(ValueError, match="path 2"):
        govuk_job_create(paths=["/child-benefit", "//evil.example/x"])
    assert not IngestJob.objects.exists()

    job = govuk_job_create(paths=["https://www.gov.uk/child-benefit/", " /child-benefit "])
    assert job.refs == ["/child-benefit"]


# --- rate limiting ------------------------------------------------------------------------


class FakeClock:
    def __init__(self, start: float = 1000.0):
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_request_starts_by_its_interval():
    clock = FakeClock()
    limiter = RateLimiter(2, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(5):
        limiter.wait()
        starts.append(clock.now)

    assert clock.sleeps == pytest.approx([0.5] * 4)
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:], strict=False)]
    assert gaps == pytest.approx([0.5] * 4)


def test_rate_limiter_does_not_wait_when_requests_are_already_spaced():
    clock = FakeClock()
    limiter = RateLimiter(2, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        limiter.wait()
        clock.now += 0.6
    assert clock.sleeps == []


def test_rate_limiter_waits_only_the_rest_of_the_interval():
    clock = FakeClock()
    limiter = RateLimiter(2, clock=clock, sleep=clock.sleep)
    limiter.wait()
    clock.now += 0.2
    limiter.wait()
    assert clock.sleeps == pytest.approx([0.3])


# --- a local directory of page files ------------------------------------------------------

PAGE_FILE = {
    "url": "https://www.gov.uk/x",
    "base_path": "/x",
    "title": "X",
    "document_type": "guide",
    "public_updated_at": None,
    "parts": None,
    "body_text": "Some text.\n\n  • a bullet",
    "body_text_format": "plain text",
}


@pytest.fixture
def pages(tmp_path) -> Path:
    """pages/ with one page file, next to a secret page file outside it."""
    root = tmp_path / "pages"
    root.mkdir()
    (root / "x.json").write_text(json.dumps(PAGE_FILE), encoding="utf-8")
    (tmp_path / "secret.json").write_text(json.dumps({**PAGE_FILE, "title": "Secret"}))
    return root


@pytest.mark.parametrize(
    "name", ["../secret.json", "sub/../../secret.json", "./../secret.json", "ABSOLUTE"]
)
def test_local_source_refuses_names_that_leave_the_directory(pages, name):
    if name == "ABSOLUTE":
        name = str(pages.parent / "secret.json")
    with pytest.raises(RefusedTarget):
        LocalDirectorySource(pages).fetch(name)


def test_local_source_refuses_a_symlink_that_points_outside(pages):
    (pages / "escape.json").symlink_to(pages.parent / "secret.json")
    (pages / "escape-dir").symlink_to(pages.parent, target_is_directory=True)
    (pages / "alias.json").symlink_to(pages / "x.json")  # inside: fine
    source = LocalDirectorySource(pages)

    with pytest.raises(RefusedTarget, match="leads outside"):
        source.fetch("escape.json")
    with pytest.raises(RefusedTarget, match="leads outside"):
        source.fetch("escape-dir/secret.json")
    assert source.names() == ["alias.json", "x.json"]
    assert source.fetch("alias.json").title == "X"


def test_local_source_missing_file_is_gone(pages):
    (pages / "sub").mkdir()
    source = LocalDirectorySource(pages)
    with pytest.raises(PageGone):
        source.fetch("missing.json")
    with pytest.raises(PageGone):
        source.fetch("sub")


def test_local_source_invalid_json_is_a_fetch_error(pages):
    (pages / "broken.json").write_text("{not json", encoding="utf-8")
    (pages / "latin1.json").write_bytes(b'{"title": "\xa3"}')
    (pages / "list.json").write_text("[]", encoding="utf-8")
    source = LocalDirectorySource(pages)

    with pytest.raises(FetchError, match="broken.json is not valid JSON"):
        source.fetch("broken.json")
    with pytest.raises(FetchError, match="not valid JSON"):
        source.fetch("latin1.json")
    with pytest.raises(FetchError, match="must be an object"):
        source.fetch("list.json")


def test_local_source_reads_a_content_api_file(pages):
    (pages / "child-benefit.json").write_text(json.dumps(CHILD_BENEFIT), encoding="utf-8")
    document = LocalDirectorySource(pages).fetch("child-benefit.json")
    assert document.url == CHILD_BENEFIT_URL and document.title == "Child Benefit"
    assert len(document.parts) == 3 and document.parts[0].body_format == "html"
    assert document.origin == "file:child-benefit.json"


def test_local_source_reads_a_page_file(pages):
    document = LocalDirectorySource(pages).fetch("x.json")
    assert (document.url, document.base_path, document.title) == ("https://www.gov.uk/x", "/x", "X")
    assert document.document_type == "guide" and document.public_updated_at is None
    (part,) = document.parts
    assert part.body == "Some text.\n\n  • a bullet" and part.body_format == "text"
    assert document.origin == "file:x.json"


def test_local_source_root_must_be_a_directory(tmp_path):
    with pytest.raises(FetchError, match="not a directory"):
        LocalDirectorySource(tmp_path / "missing")


def _directory_job(root: Path, ref: str) -> IngestJob:
    return ingest_job_create(
        kind=IngestJob.Kind.DIRECTORY, refs=[ref], params={"root": str(root.resolve())}
    )


@pytest.mark.django_db
def test_directory_ingest_refuses_a_page_outside_its_directory(pages):
    (pages / "escape.json").symlink_to(pages.parent / "secret.json")
    for ref in ["../secret.json", "escape.json"]:
        item = ingest_item_run(job_id=_directory_job(pages, ref).pk, ref=ref)
        assert item.outcome == IngestItem.Outcome.FAILED and "refused" in item.reason
    assert stored_rows() == (0, 0, 0)

    item = ingest_item_run(job_id=_directory_job(pages, "x.json").pk, ref="x.json")
    assert item.outcome == IngestItem.Outcome.NEW
    assert Source.objects.get().title == "X"


def test_local_source_skips_a_symlink_loop_when_listing(pages):
    os.symlink("loop.json", pages / "loop.json")
    assert LocalDirectorySource(pages).names() == ["x.json"]


@pytest.mark.django_db
def test_directory_ingest_fails_the_item_of_a_symlink_loop(pages):
    os.symlink("loop.json", pages / "loop.json")
    item = ingest_item_run(job_id=_directory_job(pages, "loop.json").pk, ref="loop.json")
    assert item.outcome == IngestItem.Outcome.FAILED
    assert stored_rows() == (0, 0, 0)
