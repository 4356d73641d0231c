"""Part 4 of claim checking: what the knowledge base holds of a quantity when no unit about
it is in force on the day a claim speaks of, said in words instead of a contradiction. A
figure another period held does not say what holds on a day the knowledge base has nothing
for (figures change each year): the claim is unsupported, with the figures and periods held
and the day the newest ended. Only a figure held unchanged over consecutive years up to the
newest period (the ISA allowance, £20,000 in every year held since 2017) contradicts another
figure past it, and says so."""

from __future__ import annotations

import datetime as dt

from knowledge.domain.temporal import TemporalStatus
from knowledge.reading.candidates import Evidence

# A figure the same in every period held over at least this many years, each period running
# on from the one before, has not been set anew each year.
STABLE_YEARS = 3


def held_periods(held: list[tuple[Evidence, str]]) -> str:
    """ "£25.60 (6 April 2024 to 5 April 2025); £24.00 (6 April 2023 to 5 April 2024)": the
    figures held (or the units' texts, when no figure was read), newest first."""
    shown = []
    for evidence, value in sorted(held, key=lambda item: _end(item[0]), reverse=True):
        unit = evidence.unit
        entry = f"{value or unit.text[:80]} ({period_words(unit.valid_from, unit.valid_to)})"
        if entry not in shown:
            shown.append(entry)
    return "; ".join(shown[:4])


def past_newest(held: list[Evidence], day: dt.date) -> bool:
    """Every period held ended before `day`."""
    return all(e.unit.valid_to is not None and e.unit.valid_to < day for e in held)


def newest(held: list[Evidence]) -> list[Evidence]:
    """The units of the newest period held (outdated: ended, nothing newer known)."""
    return [e for e in held if e.temporal_status == TemporalStatus.OUTDATED]


def stable(same_value: list[Evidence]) -> tuple[dt.date, dt.date] | None:
    """(first day, last day) when these units, all stating one figure, cover an unbroken run
    of at least STABLE_YEARS years ending with the newest period held; None otherwise."""
    dated = sorted(
        (e.unit.valid_from, e.unit.valid_to)
        for e in same_value
        if e.unit.valid_from is not None and e.unit.valid_to is not None
    )
    if not dated:
        return None
    start, end = dated[0]
    for first, last in dated[1:]:
        if first > end + dt.timedelta(days=1):
            start = first  # a gap: the run starts again
        end = max(end, last)
    if (end - start).days < 365 * STABLE_YEARS - 2:
        return None
    return start, end


def period_words(start: dt.date | None, end: dt.date | None) -> str:
    if start and end:
        return f"{spoken(start)} to {spoken(end)}"
    if end:
        return f"up to {spoken(end)}"
    return f"from {spoken(start)}" if start else "no dates"


def spoken(day: dt.date) -> str:
    return f"{day.day} {day:%B %Y}"


def _end(evidence: Evidence) -> dt.date:
    return evidence.unit.valid_to or dt.date.max
