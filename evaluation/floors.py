"""Floors under an evaluation's figures (`--floors name=value,…`), for regression gates: parsed
against the figures a command knows, and each figure under its floor named with both values.
A name ending in `_max` is a ceiling (false refusals, missed claims)."""

from __future__ import annotations

import math
from collections.abc import Callable


class FloorError(ValueError):
    """A floor names a figure the command does not know, or its value is not a number."""


def floors_parse(text: str, names: tuple[str, ...]) -> dict[str, float]:
    floors = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = (piece.strip() for piece in part.partition("="))
        if name not in names:
            raise FloorError(f"--floors: unknown figure {name!r}; use {', '.join(names)}")
        try:
            floors[name] = float(value)
        except ValueError:
            raise FloorError(f"--floors: {name} needs a number, not {value!r}") from None
        if not math.isfinite(floors[name]):
            raise FloorError(f"--floors: {name} needs a finite number, not {value!r}")
    return floors


def floors_missed(
    figures: dict[str, float | None],
    floors: dict[str, float],
    *,
    unmeasured: Callable[[str], str] = lambda name: "not in the report",
) -> list[str]:
    """Each figure under its floor (or over its ceiling), named; an unmeasured one says why."""
    failures = []
    for name, floor in floors.items():
        value = figures.get(name)
        if value is None:
            failures.append(f"{name}: not measured ({unmeasured(name)})")
        elif name.endswith("_max") and value > floor:
            failures.append(f"{name}: {value:.3f} above {floor}")
        elif not name.endswith("_max") and value < floor:
            failures.append(f"{name}: {value:.3f} below {floor}")
    return failures
