"""What users were served, as curation may know it: the seam between curation and the API's
query log.

The query log (`navigator.models.QueryLog`, with the units each response served in order)
belongs to the API, one layer above curation, which may not import it (the layers contract
in pyproject.toml). So curation declares here what it needs to know, per unit, over a time
window, and the API registers the function that reads it from its log when it starts
(`NavigatorConfig.ready`), as knowledge declares `units_embedded` and curation connects to
it. Curation's screens call `unit_exposure`; with no reader registered (curation used
without the API) nothing was served.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

TOP_RANKS = 3  # "top-3": served among a response's first three units


@dataclass(frozen=True)
class UnitExposure:
    """How much users were shown one unit: `weight` sums 1/rank over the responses that
    served it (first 1, second ½, …), `times` counts them, `top` those of them that served it
    among their first TOP_RANKS units."""

    weight: float
    times: int
    top: int


ExposureReader = Callable[..., dict[int, UnitExposure]]  # (*, since, until) -> by unit id

_reader: ExposureReader | None = None


def exposure_reader_register(reader: ExposureReader) -> None:
    """Make `reader(since=…, until=…)` the source of `unit_exposure` (the last one wins)."""
    global _reader
    _reader = reader


def unit_exposure(*, since: dt.datetime, until: dt.datetime) -> dict[int, UnitExposure]:
    """Each unit served from `since` (inclusive) to `until` (exclusive), by its id."""
    return _reader(since=since, until=until) if _reader else {}
