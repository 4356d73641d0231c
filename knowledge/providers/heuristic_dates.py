"""Dates and periods for the heuristic extraction: which year a page counts in (tax or
academic), the period a page states for itself, a table row's year, which stated period a
figure or a rule takes, and the period a page's rates are given in."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from knowledge.providers.types import PageInput
from knowledge.textfacts import (
    Validity,
    find_validities,
    header_validity,
    period_in,
    single_day,
)


def counts_academic_years(page: PageInput) -> bool:
    """Student finance pages count in academic years: their bare '2024 to 2025' is one."""
    lowered = page.text.lower()
    return lowered.count("academic year") > lowered.count("tax year")


def page_validity(page: PageInput) -> Validity | None:
    """A tax year the page states for itself ('The current tax year is …', 'In the 2015 to
    2016 tax year …'): the most frequent closed period in its text."""
    counts: dict[tuple, int] = defaultdict(int)
    for validity in find_validities(page.text, academic=counts_academic_years(page)):
        if validity.valid_from and validity.valid_to:
            counts[(validity.valid_from, validity.valid_to)] += 1
    if not counts:
        return None
    (valid_from, valid_to), _ = max(counts.items(), key=lambda item: (item[1], item[0]))
    return Validity(valid_from, valid_to, 0, "page")


def nearest_validity(validities: list[Validity], at: int, width: int) -> Validity | None:
    """The period stated closest to a figure in its quote ("£722 up to 7 April 2024 and is
    £793 from 8 April 2024": each figure its own)."""
    if at < 0 or not validities:
        return validities[0] if validities else None

    def gap(validity: Validity) -> int:
        end = validity.start + len(validity.phrase)
        return validity.start - (at + width) if validity.start >= at else at - end

    return min(validities, key=gap)


_OPENING_WORDS = re.compile(r"^(?:in|for|during|over) (?:the )?$", re.I)


def opens_sentence(quote: str, validity: Validity) -> bool:
    """The period opens its sentence: 'From 6 April 2025, …', 'In the 2024 to 2025 tax year …'."""
    before = quote[: validity.start]
    lead = re.split(r"(?<=[.!?:;])\s+", before)[-1] if before.strip() else ""
    return not lead.strip() or bool(_OPENING_WORDS.match(lead.lstrip()))


_RATES_PER = re.compile(
    r"\b(?:hourly|weekly|monthly|yearly|annual) (?:rates?|amounts?)\b|"
    r"\brates? (?:per|an?|each) (?:hour|week|month|year)\b",
    re.I,
)


def rates_period(text: str) -> str:
    """The period a page's opening says its figures are in ("The hourly rate for the minimum
    wage depends on your age"): the period of a figure the page states with no period of its
    own, as in its rate tables."""
    opening = text[:400]
    match = _RATES_PER.search(opening)
    return period_in(match.group()) if match else ""


def row_label_validity(label: str, academic: bool = False) -> Validity | None:
    """A table row labelled with a start month ('April 2024 (current rate)') holds that year's
    rates: gov.uk rate tables list one row a year, so it runs for twelve months. A row
    labelled with one day ('Wednesday 25 December 2024': opening times, payment dates) holds
    for that day."""
    day = single_day(label)
    if day is not None:
        return Validity(day, day, 0, label)
    validity = header_validity(label, academic=academic)
    if validity is None or validity.valid_to is not None or validity.valid_from is None:
        return validity
    start = validity.valid_from
    return Validity(start, start.replace(year=start.year + 1) - dt.timedelta(days=1), 0, label)


_YEAR = re.compile(r"\b(20\d\d)\b")


def update_is_stale(page: PageInput) -> bool:
    """True when the page names a year well after its last update: gov.uk changes a page's
    figures each April without always changing its update date (a page 'updated' in 2015 that
    says "from 8 April 2024"), so that date cannot date its figures."""
    if page.public_updated_at is None:
        return True
    # A page may announce next April's change the year it is updated; a year beyond that
    # was written later than the update date says.
    updated = page.public_updated_at.year
    return any(int(year) > updated + 1 for year in _YEAR.findall(page.text))
