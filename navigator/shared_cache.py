"""The shared cache (Redis in production) as the API's limits use it, failing open: when it
cannot be reached, the counters live in this process until it can, so reads keep answering
and a flood is still bounded (by the limit times the number of workers), and the outage is
logged once a minute and shown by /health. Nothing else depends on these counters."""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache import BaseCache, caches
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

LOG_EVERY_SECONDS = 60

_local = LocMemCache("navigator-shared-cache-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
_state_lock = threading.Lock()
_state: dict = {"unreachable_since": None, "last_logged": float("-inf"), "error": ""}


class FailOpenCache:
    """add, incr, get and set of the shared cache, or of a process-local one while the
    shared cache fails (whatever its client raises: refused, timed out, reset)."""

    def __init__(self, shared: BaseCache | None = None):
        self._shared = shared

    @property
    def shared(self) -> BaseCache:
        return self._shared or caches["default"]

    def add(self, key: str, value, timeout: float) -> bool:
        return self._call("add", key, value, timeout=timeout)

    def incr(self, key: str) -> int:
        return self._call("incr", key)

    def get(self, key: str, default=None):
        return self._call("get", key, default)

    def set(self, key: str, value, timeout: float) -> None:
        return self._call("set", key, value, timeout=timeout)

    def _call(self, method: str, *args, **kwargs):
        try:
            result = getattr(self.shared, method)(*args, **kwargs)
        except ValueError:
            raise  # incr of a missing key: the caller's to handle, not an outage
        except Exception as exc:  # the cache client's own errors differ by backend
            _unreachable(exc)
            return getattr(_local, method)(*args, **kwargs)
        _reachable()
        return result


def _unreachable(exc: Exception) -> None:
    now = time.monotonic()
    with _state_lock:
        if _state["unreachable_since"] is None:
            _state["unreachable_since"] = time.time()
        _state["error"] = type(exc).__name__
        if now - _state["last_logged"] < LOG_EVERY_SECONDS:
            return
        _state["last_logged"] = now
    logger.warning(
        "shared cache unreachable (%s): API limits are counted per process until it returns",
        type(exc).__name__,
    )


def _reachable() -> None:
    if _state["unreachable_since"] is None:
        return
    with _state_lock:
        since, _state["unreachable_since"] = _state["unreachable_since"], None
        _state["last_logged"] = float("-inf")
    logger.warning("shared cache reachable again after %.0f s", time.time() - since)


def shared_cache_outage() -> str:
    """'' while the shared cache answers; else since when it has not, in words."""
    since = _state["unreachable_since"]
    if since is None:
        return ""
    return (
        f"unreachable for {time.time() - since:.0f} s ({_state['error']}): "
        "API limits counted per process"
    )
