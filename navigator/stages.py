"""Where an API request's time goes, stage by stage: reported in a search's `timings_ms`,
kept in its query log row, and sent as a `Server-Timing` header (which browsers' developer
tools and load testers read) with the stages that end after the body is made.

A stage's time runs from the previous mark to its own, so the stages add up to the request's
time inside Django; the first starts when the outermost middleware sees the request.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

_ATTRIBUTE = "navigator_stages"


class RequestStages:
    def __init__(self) -> None:
        self.started = self._last = time.perf_counter()
        self.ms: dict[str, float] = {}

    def mark(self, stage: str) -> None:
        """The time since the previous mark belongs to `stage` (added, if it repeats)."""
        now = time.perf_counter()
        self.ms[stage] = round(self.ms.get(stage, 0.0) + (now - self._last) * 1000, 2)
        self._last = now

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    def server_timing(self) -> str:
        """The `Server-Timing` header's value: each stage, then the whole as `total`."""
        parts = [f"{stage};dur={ms}" for stage, ms in self.ms.items()]
        return ", ".join([*parts, f"total;dur={self.elapsed_ms()}"])


def request_stages(request: HttpRequest) -> RequestStages:
    """The request's stages; started now when no middleware started them (ninja's test
    client calls the view directly)."""
    stages = getattr(request, _ATTRIBUTE, None)
    if stages is None:
        stages = RequestStages()
        setattr(request, _ATTRIBUTE, stages)
    return stages


def request_stages_middleware(get_response: Callable[[HttpRequest], HttpResponse]):
    """Outermost, so that the stages count the other middleware's work too."""

    def middleware(request: HttpRequest) -> HttpResponse:
        setattr(request, _ATTRIBUTE, RequestStages())
        return get_response(request)

    return middleware
