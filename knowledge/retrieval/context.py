"""The context handed to a language model: the shown units as cited lines within a budget."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from knowledge.domain.temporal import TemporalStatus
from knowledge.embeddings import count_tokens_each
from knowledge.retrieval.hits import ConceptHit, UnitHit


def assemble_context(hits: list[ConceptHit], *, budget: int, day: dt.date) -> tuple[str, int]:
    """Concepts in rank order, their units grouped by source, each with its citation, cut to
    whole lines within the token budget."""
    candidates: list[str] = []
    for hit in hits:
        if not hit.units:
            continue
        candidates.append(f"## {hit.concept.name} [{hit.concept.taxonomy_id}]")
        by_source: dict[str, list[UnitHit]] = defaultdict(list)
        for unit in hit.units:
            by_source[unit.part_url].append(unit)
        for url, units in by_source.items():
            candidates.append(f"Source: {url}")
            candidates.extend(f"- {_unit_line(unit, day)}" for unit in units)
    lines: list[str] = []
    used = 0
    for line, tokens in zip(candidates, count_tokens_each(candidates), strict=True):
        cost = tokens + 1  # the newline
        if used + cost > budget:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines), used


def _unit_line(hit: UnitHit, day: dt.date) -> str:
    unit = hit.unit
    if hit.temporal_status == TemporalStatus.OUTDATED:
        # The newest figure known, past its period: said so, so that no reader takes it for
        # this period's.
        period = f"{_spoken(unit.valid_from)} to " if unit.valid_from else "up to "
        ended = _spoken(unit.valid_to)
        return f"{unit.text} (newest figure held: for {period}{ended}; ended {ended})"
    validity = ""
    if unit.valid_from or unit.valid_to:
        validity = f" (valid {unit.valid_from or '…'} to {unit.valid_to or 'now'})"
    status = "" if hit.temporal_status == "current" else f" [{hit.temporal_status} on {day}]"
    return f"{unit.text}{validity}{status}"


def _spoken(day: dt.date) -> str:
    """As gov.uk writes a day: 6 April 2024."""
    return f"{day.day} {day:%B %Y}"
