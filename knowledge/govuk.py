"""The one door to gov.uk: the Content API over HTTPS, or a local directory of page files.

Both return `PageDocument`s. The HTTP client only ever talks to https://www.gov.uk: any
other host, scheme or a bare IP address is refused before a socket opens, including in
redirects. Tests replace the network with `transport` (the one seam), keeping real HTTP.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from knowledge.documents import GOVUK_ORIGIN, PageDocument, PageFormatError, document_from_json

ALLOWED_HOST = "www.gov.uk"
CONTENT_API_PREFIX = "/api/content"
USER_AGENT = "Navigator/0.1 (UK personal-finance knowledge base; +https://github.com/navigator)"


class FetchError(Exception):
    """The page could not be fetched or read; `reason` says why in words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TransientFetchError(FetchError):
    """Rate limited, a server error or a timeout, still so after the client's retries."""


class PageGone(FetchError):
    """gov.uk says the page no longer exists (404 or 410)."""


class RefusedTarget(FetchError):
    """The address is not gov.uk's; nothing was sent."""


def content_api_url(path: str) -> str:
    """https://www.gov.uk/api/content/<path> for a gov.uk path or page address."""
    if path.startswith(GOVUK_ORIGIN + "/"):
        path = path[len(GOVUK_ORIGIN) :]
    ensure_govuk_path(path)
    return f"{GOVUK_ORIGIN}{CONTENT_API_PREFIX}{path}"


def ensure_govuk_path(path: str) -> None:
    if not path.startswith("/") or path.startswith("//") or ".." in path.split("/"):
        raise RefusedTarget(f"not a gov.uk path: {path!r}")


def ensure_allowed_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise RefusedTarget(f"refused {url!r}: only https is allowed")
    if parts.hostname != ALLOWED_HOST or parts.port not in (None, 443) or "@" in parts.netloc:
        raise RefusedTarget(f"refused {url!r}: only {ALLOWED_HOST} may be requested")


# Rate limiting and retries stay hand-written: the libraries weighed need as much glue as they
# save. tenacity parses no Retry-After, so a custom wait, a result predicate for 429/5xx and a
# give-up callback come out longer than the loop below. stamina retries only on exceptions,
# does not cap a Retry-After wait and has no sleep to replace in tests. httpx-retries retries
# inside the transport, out of reach of the rate limiter, and not while the body is read. Of
# the rate limiters, pyrate-limiter counts whole requests per window (bursts, not an even
# spacing) behind a background thread, and limits only answers yes or no, leaving the waiting
# to us.
class RateLimiter:
    """At most `per_second` request starts a second, shared by all threads of a client."""

    def __init__(self, per_second: float, clock=time.monotonic, sleep=time.sleep):
        self.interval = 1.0 / per_second if per_second > 0 else 0.0
        self.clock, self.sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self.clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self.sleep(start - now)


class ContentApiClient:
    """Fetches pages from the Content API, retrying a transient failure (429, 5xx, timeout,
    connection error) up to `max_attempts` times with a growing, jittered backoff.

    This is the one retry layer for a gov.uk fetch. It is here rather than in the Celery
    task because only here is the Retry-After header at hand, and because the CLI runs tasks
    eagerly, where a task retry would not wait at all. Retrying in the task as well would
    multiply the requests (attempts × task retries) to a gov.uk that is already refusing
    them; a page that still fails is recorded as failed and the next refresh fetches it again.
    """

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
        max_attempts: int = 4,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        max_bytes: int = 5_000_000,
        max_redirects: int = 5,
        requests_per_second: float = 5.0,
        concurrency: int = 4,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.max_attempts = max_attempts
        self.backoff_base, self.max_backoff = backoff_base, max_backoff
        self.max_bytes, self.max_redirects = max_bytes, max_redirects
        self.sleep = sleep
        self.rate_limiter = RateLimiter(requests_per_second, sleep=sleep)
        self._slots = threading.BoundedSemaphore(concurrency)
        self.http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            follow_redirects=False,  # followed by hand so each hop is checked
            transport=transport,
        )

    def fetch(self, path: str) -> PageDocument:
        """Fetch one page by gov.uk path; redirects move the page to its new address."""
        url = content_api_url(path)
        for _ in range(self.max_redirects + 1):
            response_url, status, headers, body = self._get_with_retries(url)
            if status in (301, 302, 303, 307, 308):
                url = self._redirect_target(response_url, headers)
                continue
            return self._document(url, status, body)
        raise FetchError(f"more than {self.max_redirects} redirects from {path}")

    def _redirect_target(self, current: str, headers: httpx.Headers) -> str:
        location = headers.get("location")
        if not location:
            raise FetchError(f"redirect without a Location header from {current}")
        target = urljoin(current, location)
        ensure_allowed_url(target)
        if not urlsplit(target).path.startswith(CONTENT_API_PREFIX + "/"):
            target = content_api_url(urlsplit(target).path)
        return target

    def _document(self, url: str, status: int, body: bytes) -> PageDocument:
        if status in (404, 410):
            raise PageGone(f"gov.uk answered {status} for {url}")
        if status != 200:
            raise FetchError(f"gov.uk answered HTTP {status} for {url}")
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise FetchError(f"response from {url} is not valid JSON: {exc}") from None
        try:
            return document_from_json(data, origin=url)
        except PageFormatError as exc:
            raise FetchError(f"response from {url} is not a page: {exc}") from None

    def _get_with_retries(self, url: str) -> tuple[str, int, httpx.Headers, bytes]:
        ensure_allowed_url(url)
        last_reason = ""
        for attempt in range(1, self.max_attempts + 1):
            try:
                status, headers, body = self._get_once(url)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                last_reason = f"{type(exc).__name__} fetching {url}"
                wait = self._backoff(attempt)
            else:
                if status != 429 and status < 500:
                    return url, status, headers, body
                last_reason = f"gov.uk answered HTTP {status} for {url}"
                wait = self._retry_after(headers) or self._backoff(attempt)
            if attempt < self.max_attempts:
                self.sleep(min(wait, self.max_backoff))
        raise TransientFetchError(f"{last_reason} (gave up after {self.max_attempts} attempts)")

    def _get_once(self, url: str) -> tuple[int, httpx.Headers, bytes]:
        with self._slots:
            self.rate_limiter.wait()
            with self.http.stream("GET", url) as response:
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    raise FetchError(
                        f"response from {url} is {declared} bytes, "
                        f"over the limit of {self.max_bytes}"
                    )
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchError(
                            f"response from {url} is over the limit of {self.max_bytes} bytes"
                        )
                    chunks.append(chunk)
                return response.status_code, response.headers, b"".join(chunks)

    def _backoff(self, attempt: int) -> float:
        return self.backoff_base * (2 ** (attempt - 1)) * (1 + random.random() / 4)

    @staticmethod
    def _retry_after(headers: httpx.Headers) -> float | None:
        value = headers.get("retry-after")
        if not value:
            return None
        if value.strip().isdigit():
            return float(value.strip())
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None

    def close(self) -> None:
        self.http.close()


class LocalDirectorySource:
    """Page files (Content API JSON or the corpus page-file shape) under one directory."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FetchError(f"not a directory: {root}")

    def names(self) -> list[str]:
        return sorted(
            path.relative_to(self.root).as_posix()
            for path in self.root.rglob("*.json")
            if self._inside(path)
        )

    def fetch(self, name: str) -> PageDocument:
        path = self.resolve(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise FetchError(f"{name} is not valid JSON: {exc}") from None
        try:
            return document_from_json(data, origin=f"file:{name}")
        except PageFormatError as exc:
            raise FetchError(f"{name}: {exc}") from None

    def resolve(self, name: str) -> Path:
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise RefusedTarget(f"refused {name!r}: page names are relative to the directory")
        path = self.root / name
        if not self._inside(path):
            raise RefusedTarget(f"refused {name!r}: it leads outside {self.root.name}/")
        if not path.is_file():
            raise PageGone(f"no page file {name} in {self.root.name}/")
        return path

    def _inside(self, path: Path) -> bool:
        try:
            return path.resolve(strict=False).is_relative_to(self.root)
        except (OSError, RuntimeError):  # a symlink loop leads nowhere inside
            return False


_shared_client: ContentApiClient | None = None


def content_api_client() -> ContentApiClient:
    """The process's client, configured from settings (one rate limiter per process).

    Tests replace this function: it is the seam between Navigator and gov.uk.
    """
    global _shared_client
    if _shared_client is None:
        _shared_client = _client_from_settings()
    return _shared_client


def _client_from_settings() -> ContentApiClient:
    from django.conf import settings

    return ContentApiClient(
        timeout=settings.GOVUK_TIMEOUT_SECONDS,
        requests_per_second=settings.GOVUK_REQUESTS_PER_SECOND,
        concurrency=settings.GOVUK_CONCURRENCY,
        max_bytes=settings.GOVUK_MAX_RESPONSE_BYTES,
    )
