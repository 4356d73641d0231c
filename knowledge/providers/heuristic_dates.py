"""Dates and periods for the heuristic extraction: which year a page counts in (tax or
academic), the period a page states for itself, a table row's year, which stated period a
figure or a rule takes, and the period a page's rates are given in."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from knowledge.domain.extraction import PageInput
from knowledge.text.amounts import Amount, period_in
from knowledge.text.dates import (
    ACADEMIC_YEAR_START_MONTH,
    Validity,
    academic_year_bounds,
    find_validities,
    header_validity,
    hint_validity,
    single_day,
    tax_year_bounds,
    tax_year_start_year,
)

# A page that counts in tax years, or gives weekly or monthly rates (uprated each year): its
# undated figures are the year's it was updated in. Elsewhere a figure is a standing limit.
_YEARLY = re.compile(r"\btax years?\b|\b(?:weekly|monthly) (?:rates?|amounts?|allowances?)\b", re.I)
Dates = tuple[dt.date | None, dt.date | None]


class PageDates:
    """Which period a unit of one page holds for, and on what basis: a figure takes the
    period stated nearest it, then its section's, the page's own, the page file's, and only
    then the tax year the page was last updated in; a rule takes a period only when its
    sentence opens with one ("From 6 April 2025, …")."""

    def __init__(self, page: PageInput):
        self.page = page
        self.academic = counts_academic_years(page)
        self.page_period = page_validity(page)
        self.hint_period = hint_validity(page.period_hint, academic=self.academic)
        self.yearly_page = bool(_YEARLY.search(page.text))

    def validity(
        self,
        section: dict,
        line_start: int,
        quote: str,
        validity: Validity | None,
        amount: Amount | None,
        *,
        period: str = "",
    ) -> tuple[Dates, str]:
        """ "you can backdate to any tax year since 5 April 2015" is a rule about dates, not a
        rule that started then; a figure in a table takes its header's or row's period."""
        if validity is not None:
            return (validity.valid_from, validity.valid_to), "table header or row"
        own = find_validities(quote, academic=self.academic)
        if amount is not None:
            stated = nearest_validity(own, quote.find(amount.printed), len(amount.printed))
        else:
            stated = next((v for v in own if opens_sentence(quote, v)), None)
        if stated is not None:
            return (stated.valid_from, stated.valid_to), "stated in the quote"
        in_section = self._section_validity(section, line_start, figures=amount is not None)
        if in_section is not None:
            return (in_section.valid_from, in_section.valid_to), "stated in its section"
        if amount is None:
            # A rule with no period of its own holds until something supersedes it; the
            # page's period dates its figures, not its rules.
            return (None, None), ""
        return self._page_dates(period)

    def _page_dates(self, period: str) -> tuple[Dates, str]:
        if self.page_period is not None:
            return (self.page_period.valid_from, self.page_period.valid_to), "stated on the page"
        if self.hint_period is not None:
            return (self.hint_period.valid_from, self.hint_period.valid_to), "page file's period"
        if not (period or self.yearly_page or self.academic):
            # a limit with no period on a page that counts no years and pays no rates ("owe
            # less than £5,000") stands until changed, whenever the page was updated
            return (None, None), "period not stated on the page"
        if self.page.public_updated_at is not None and not update_is_stale(self.page):
            # In force when the page was last updated; when it ends is unknown until a newer
            # version supersedes it, so the end stays open.
            updated = self.page.public_updated_at.date()
            if self.academic:
                start = updated.year - (updated.month < ACADEMIC_YEAR_START_MONTH)
                return (academic_year_bounds(start)[0], None), (
                    "academic year of the page's last update"
                )
            first, _ = tax_year_bounds(tax_year_start_year(updated))
            return (first, None), "tax year of the page's last update"
        return (None, None), "period not stated on the page"

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
