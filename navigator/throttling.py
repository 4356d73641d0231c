"""Rate limits kept in the Django cache (Redis in production), shared by every process;
while it cannot be reached, each process counts on its own (navigator.shared_cache).

Counters are fixed windows incremented atomically (Redis INCR), so concurrent workers never
lose each other's counts, as a read-modify-write list of timestamps would; a restart keeps
them. A window lets a caller send up to twice the limit across its boundary, which is fine
for a guard against floods.

The client address is REMOTE_ADDR. Behind a reverse proxy that is the proxy's address, so
every client would share one limit; with BEHIND_TLS_PROXY (docker-compose's Caddy) it is the
last X-Forwarded-For entry, the one that proxy wrote. Without a proxy the header is not read:
any client can write it, and would pick a fresh address for each guess.
"""

from __future__ import annotations

import ipaddress
import time

from django.conf import settings
from django.core.cache import BaseCache
from django.http import HttpRequest
from ninja.throttling import BaseThrottle

from navigator.shared_cache import FailOpenCache
from navigator.stages import request_stages

PERIOD_SECONDS = {
    "sec": 1,
    "min": 60,
    "hour": 3600,
    "day": 86400,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86400,
}


def parse_rate(rate: str) -> tuple[int, int]:
    """`"60/m"` → (60, 60), `"5/15m"` → (5, 900): calls, seconds (ninja's notation)."""
    calls, period = rate.split("/", 1)
    for unit, seconds in PERIOD_SECONDS.items():
        if period.endswith(unit):
            return int(calls), int(period.removesuffix(unit) or 1) * seconds
    raise ValueError(f"not a rate: {rate!r} (expected e.g. 60/m or 5/15m)")


class WindowCounter:
    """How many times a key was counted in the current window, in the shared cache."""

    def __init__(self, rate: str, *, prefix: str, cache: BaseCache | None = None):
        self.limit, self.duration = parse_rate(rate)
        self.prefix = prefix
        self._cache = cache

    @property
    def cache(self) -> FailOpenCache:
        return FailOpenCache(self._cache)

    def key(self, ident: str) -> str:
        return f"navigator:{self.prefix}:{ident}:{int(time.time() // self.duration)}"

    def increment(self, ident: str) -> int:
        key = self.key(ident)
        self.cache.add(key, 0, timeout=self.duration + 1)
        try:
            return self.cache.incr(key)
        except ValueError:  # expired between add and incr
            self.cache.add(key, 1, timeout=self.duration + 1)
            return 1

    def count(self, ident: str) -> int:
        return self.cache.get(self.key(ident), 0)

    def seconds_left(self) -> int:
        return max(1, self.duration - int(time.time() % self.duration))


class TokenRateThrottle(BaseThrottle):
    """Calls per API token (by its id) per window, whichever process serves them."""

    def __init__(self, rate: str, *, cache: BaseCache | None = None):
        self.counter = WindowCounter(rate, prefix="token-calls", cache=cache)
        self.num_requests = self.counter.limit  # the benchmark lifts it

    def allow_request(self, request: HttpRequest) -> bool:
        token = getattr(request, "auth", None)
        if token is None:
            return True  # refused by authentication already
        allowed = self.counter.increment(str(token.pk)) <= self.num_requests
        request_stages(request).mark("throttle")
        return allowed

    def wait(self) -> float:
        return float(self.counter.seconds_left())


class AuthFailureLimit:
    """Failed authentications per client address; once over the limit, the address is
    refused until the window ends, before its token is looked up."""

    def __init__(self, rate: str, *, cache: BaseCache | None = None):
        self.counter = WindowCounter(rate, prefix="auth-failures", cache=cache)
        self.limit = self.counter.limit

    def blocked(self, request: HttpRequest) -> bool:
        return self.counter.count(client_address(request)) >= self.limit

    def record_failure(self, request: HttpRequest) -> None:
        self.counter.increment(client_address(request))

    def seconds_left(self) -> int:
        return self.counter.seconds_left()

    def window_key(self, request: HttpRequest, kind: str) -> str:
        """Names the log row that counts this address's refusals of one kind this window."""
        return self.counter.key(f"{client_address(request)}:{kind}")


def client_address(request: HttpRequest) -> str:
    if settings.BEHIND_TLS_PROXY:
        # The last X-Forwarded-For entry is the one our proxy wrote: the address it saw.
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR") or "unknown"


def client_ip(request: HttpRequest) -> str | None:
    """The client address as stored in an inet column, or None if it is not one."""
    try:
        return str(ipaddress.ip_address(client_address(request)))
    except ValueError:
        return None
