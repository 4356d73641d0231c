"""Dates and periods for the heuristic extraction: which year a page counts in (tax or
academic), the period a page states for itself, a table row's year, which stated period a
figure or a rule takes (and why), and the period a page's rates are given in."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from knowledge.domain.extraction import PageInput, ValidityBasis
from knowledge.text.amounts import Amount, period_in
from knowledge.text.dates import (
    Validity,
    find_validities,
    header_validity,
    single_day,
)
from knowledge.text.dates import (
    counts_academic_years as text_counts_academic_years,
)

Dates = tuple[dt.date | None, dt.date | None]


class PageDates:
    """Which period a unit of one page states, and on what basis (a ValidityBasis): a figure
    takes the period stated nearest it in its sentence or table row (STATED), else its
    column head's, its section's headings' or a lead-in sentence's before it (HEADING); a
    rule takes a period when its sentence opens with one ("From 6 April 2025, …"), and ends
    with a period it names that ends ("due between 25 December 2024 and 2 January 2025").
    Nothing else dates a unit here: whether an undated figure holds for its capture's year
    (a figure set each year) or stays open is decided where proposals become units, for
    every provider alike, and gov.uk's `public_updated_at` never dates one."""

    def __init__(self, page: PageInput):
        self.page = page
        self.academic = counts_academic_years(page)

    def validity(
        self,
        section: dict,
        line_start: int,
        quote: str,
        validity: Validity | None,
        amount: Amount | None,
    ) -> tuple[Dates, str]:
        """ "you can backdate to any tax year since 5 April 2015" is a rule about dates, not a
        rule that started then. `validity`: a table cell's period, stated in its own row
        (its label is in the quote) or by its column head (HEADING)."""
        if validity is not None:
            in_row = bool(validity.phrase) and validity.phrase in quote
            basis = ValidityBasis.STATED if in_row else ValidityBasis.HEADING
            return (validity.valid_from, validity.valid_to), basis
        own = find_validities(quote, academic=self.academic)
        if amount is not None:
            stated = nearest_validity(own, quote.find(amount.printed), len(amount.printed))
        else:
            stated = next((v for v in own if opens_sentence(quote, v)), None)
        if stated is not None:
            return (stated.valid_from, stated.valid_to), ValidityBasis.STATED
        # only a closed period ends a rule: "up to 7 April 2024 and … from 8 April 2024"
        # names a change, after which the rule goes on
        ending = [v.valid_to for v in own if v.valid_from and v.valid_to]
        goes_on = any(v.valid_from and v.valid_to is None for v in own)
        if amount is None and ending and not goes_on:
            # A rule about a period that ends ("payments due between 25 December 2024 and
            # 2 January 2025", a worked example "in tax year 2024 to 2025") holds until that
            # period's end; when it started is not said.
            return (None, max(ending)), ValidityBasis.STATED
        in_section = self._section_validity(section, line_start, figures=amount is not None)
        if in_section is not None:
            return (in_section.valid_from, in_section.valid_to), ValidityBasis.HEADING
        return (None, None), ValidityBasis.OPEN

    def _section_validity(self, section: dict, line_start: int, *, figures: bool):
        """The period its headings state; for figures also one stated earlier in the section
        ("The rates for 2024 to 2025 are:"). A rule does not take a date from a sentence
        before it: that sentence's date is about something else."""
        found = find_validities(" ".join(section["heading_path"]), academic=self.academic)
        if found:
            return found[0]
        if not figures:
            return None
        before = self.page.text[section["start"] : line_start]
        found = [
            v for v in find_validities(before, academic=self.academic) if v.valid_from or v.valid_to
        ]
        return found[-1] if found else None


def counts_academic_years(page: PageInput) -> bool:
    """Student finance pages count in academic years: their bare '2024 to 2025' is one."""
    return text_counts_academic_years(page.text)


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
