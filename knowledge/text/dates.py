"""Dates in gov.uk English: the tax year (6 April to 5 April) and the academic year
(1 August to 31 July), single days, and the validity phrases a page states ("2024 to 2025 tax
year", "from 6 April 2025", "April 2024 to March 2025"). Pure functions: text in, typed
findings (with offsets) out.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

TAX_YEAR_START_MONTH = 4
TAX_YEAR_START_DAY = 6


def tax_year_start_year(day: dt.date) -> int:
    """The calendar year in which the tax year containing `day` began."""
    if (day.month, day.day) >= (TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY):
        return day.year
    return day.year - 1


def tax_year_bounds(start_year: int) -> tuple[dt.date, dt.date]:
    """First and last day of the tax year that starts in `start_year` (e.g. 2024 -> 2024-25)."""
    first = dt.date(start_year, TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY)
    last = dt.date(start_year + 1, TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY - 1)
    return first, last


def tax_year_label(start_year: int) -> str:
    return f"{start_year}-{(start_year + 1) % 100:02d}"


MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
# "Sept" is how gov.uk tables shorten September, besides the calendar's "sep".
MONTH_ABBREVIATIONS = {
    **{name.lower(): number for number, name in enumerate(calendar.month_abbr) if name},
    "sept": 9,
}
_MONTH = "(" + "|".join(MONTHS) + ")"


@dataclass(frozen=True)
class Validity:
    valid_from: dt.date | None
    valid_to: dt.date | None
    start: int
    phrase: str


def _date(day: str, month: str, year: str) -> dt.date | None:
    try:
        return dt.date(int(year), MONTHS[month.lower()], int(day))
    except (ValueError, KeyError):
        return None


_ONE_DAY = re.compile(
    rf"^(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday) )?(\d{{1,2}}) {_MONTH} "
    rf"(\d{{4}})$",
    re.I,
)


def single_day(text: str) -> dt.date | None:
    """The day a text is, when it is one date and nothing else ('Wednesday 25 December 2024')."""
    found = _ONE_DAY.match(text.strip())
    return _date(found[1], found[2], found[3]) if found else None


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


_DAY_RANGE = re.compile(
    rf"(\d{{1,2}}) {_MONTH} (\d{{4}}) (?:to|and|until|-|–) (\d{{1,2}}) {_MONTH} (\d{{4}})", re.I
)
_TAX_YEAR_WORDS = re.compile(
    r"(?:tax years? (?:starting from )?(\d{4}) to (\d{4})|(\d{4}) to (\d{4}) tax year|(\d{4})[-/](\d{2}) tax year)",
    re.I,
)
_YEAR_PAIR = re.compile(r"(?<![\w£])((?:19|20)\d\d) to ((?:19|20)\d\d)\b(?! (?:a|per) )")
_BARE_YEARS = re.compile(r"^\s*(\d{4}) to (\d{4})\s*$")
_MONTH_RANGE = re.compile(rf"{_MONTH} (\d{{4}}) to {_MONTH} (\d{{4}})", re.I)
_FROM_DAY = re.compile(
    rf"\b(?:from|since|on or after|starting) (\d{{1,2}}) {_MONTH} (\d{{4}})", re.I
)
_BEFORE_DAY = re.compile(rf"\b(?:before|until|up to|to) (\d{{1,2}}) {_MONTH} (\d{{4}})", re.I)
# A date that says when something happened to a person ("born before", "joined the scheme on or
# before 4 October 2018", "started your course before 1 August 2016") is a condition on them,
# not the period a rule is in force.
_BIRTH_OR_AGE = re.compile(
    r"\b(born|birth|died|death|aged?|reach(ed)?|joined|started|began|moved|arrived|married|"
    r"claimed|applied)\b[^.;]*$",
    re.I,
)
_MONTH_START = re.compile(rf"^\s*{_MONTH} (\d{{4}})\b", re.I)


# Student finance dates its figures by academic year, not tax year. Its regulations count a
# course's academic year from 1 August ("an academic year beginning on or after 1 August"), so
# "2024 to 2025 academic year" runs 1 August 2024 to 31 July 2025.
ACADEMIC_YEAR_START_MONTH = 8
_ACADEMIC_NEAR = re.compile(r"academic years?", re.I)


def academic_year_bounds(start_year: int) -> tuple[dt.date, dt.date]:
    first = dt.date(start_year, ACADEMIC_YEAR_START_MONTH, 1)
    return first, dt.date(start_year + 1, ACADEMIC_YEAR_START_MONTH, 1) - dt.timedelta(days=1)


def _year_bounds(text: str, start: int, end: int, first_year: int, academic: bool):
    """A year pair's dates: an academic year when the words beside it say so (or the page
    counts in academic years and the pair does not say 'tax year'), a tax year otherwise."""
    before, after = text[max(0, start - 20) : start], text[end : end + 20]
    if "tax year" in (before + after).lower():
        return tax_year_bounds(first_year)
    if academic or _ACADEMIC_NEAR.search(before + after):
        return academic_year_bounds(first_year)
    return tax_year_bounds(first_year)


_ONWARDS = re.compile(r"\s*(?:tax year\s*)?(?:and )?onwards\b", re.I)
# "for tax years starting from 2024 to 2025": every year from that one on
_YEARS_STARTING = re.compile(
    r"\byears?\s+(?:starting|beginning)\s+(?:from|with|in)\s+(?:the\s+)?(?:tax\s+year\s+)?$",
    re.I,
)


_STARTING_IN = re.compile(r"\byears?\s+(?:starting|beginning)\s+(?:from|with|in)\b", re.I)


def _onwards(text: str, end: int, bounds: tuple, start: int | None = None) -> tuple:
    """'From tax year 2024 to 2025 onwards', 'tax years starting from 2024 to 2025': from that
    year's start, with no end."""
    starting = start is not None and (
        _YEARS_STARTING.search(text[max(0, start - 60) : start])
        or _STARTING_IN.search(text, start, end)
    )
    return (bounds[0], None) if _ONWARDS.match(text, end) or starting else bounds


def find_validities(text: str, *, academic: bool = False) -> list[Validity]:
    """Every validity phrase in `text`, most specific kinds first, in text order per kind.
    `academic`: the text's bare year pairs ('2024 to 2025') are academic years."""
    found: list[Validity] = []
    taken: list[range] = []

    def add(start, end, valid_from, valid_to, phrase):
        if any(start in span or end - 1 in span for span in taken):
            return
        # 'born on or after 6 April 1951', 'you started your … claim before 3 April 2017': a
        # date in the clause of what a person did is about them, not validity
        if _BIRTH_OR_AGE.search(text[max(0, start - 120) : start]):
            return
        if any(day and not 1990 <= day.year <= 2100 for day in (valid_from, valid_to)):
            return
        taken.append(range(start, end))
        if valid_from and valid_to and valid_from > valid_to:
            return
        found.append(Validity(valid_from, valid_to, start, phrase))

    for m in _DAY_RANGE.finditer(text):
        add(m.start(), m.end(), _date(m[1], m[2], m[3]), _date(m[4], m[5], m[6]), m.group())
    for m in _TAX_YEAR_WORDS.finditer(text):
        first = int(m[1] or m[3] or m[5])
        last = int(m[2] or m[4] or (str(first)[:2] + m[6]))
        if last == first + 1:
            bounds = tax_year_bounds(first)
            add(m.start(), m.end(), *_onwards(text, m.end(), bounds, m.start()), m.group())
    for m in _YEAR_PAIR.finditer(text):
        if int(m[2]) == int(m[1]) + 1:
            bounds = _year_bounds(text, m.start(), m.end(), int(m[1]), academic)
            add(m.start(), m.end(), *_onwards(text, m.end(), bounds, m.start()), m.group())
    for m in _MONTH_RANGE.finditer(text):
        first = dt.date(int(m[2]), MONTHS[m[1].lower()], 1)
        last = _month_end(int(m[4]), MONTHS[m[3].lower()])
        add(m.start(), m.end(), first, last, m.group())
    for m in _FROM_DAY.finditer(text):
        add(m.start(), m.end(), _date(m[1], m[2], m[3]), None, m.group())
    for m in _BEFORE_DAY.finditer(text):
        day = _date(m[1], m[2], m[3])
        if day:
            # "before 8 April" ends on the 7th; "up to 7 April", "until 7 April" include it
            last = day - dt.timedelta(days=1) if m.group().lower().startswith("before") else day
            add(m.start(), m.end(), None, last, m.group())
    return sorted(found, key=lambda validity: validity.start)


def header_validity(header: str, *, academic: bool = False) -> Validity | None:
    """A table header or row label that is itself a period: '2024 to 2025', 'April 2025'."""
    bare = _BARE_YEARS.match(header)
    if bare and int(bare[2]) == int(bare[1]) + 1:
        bounds = academic_year_bounds if academic else tax_year_bounds
        return Validity(*bounds(int(bare[1])), 0, header)
    found = find_validities(header, academic=academic)
    if found:
        return found[0]
    month = _MONTH_START.match(header)
    if month:
        return Validity(dt.date(int(month[2]), MONTHS[month[1].lower()], 1), None, 0, header)
    return None


_HINT_RANGE = re.compile(r"^(\d{4})-(\d{2})(?:-to-(\d{4})-(\d{2}))?(-or-later)?$")


def hint_validity(hint: str, *, academic: bool = False) -> Validity | None:
    """A page file's stated figures period ('2014-15', '2015-16-to-2019-20', '2024-25-or-later').
    Vague hints ('c2017-22', 'pre-2024-25', 'undated', '2018-or-later') give nothing."""
    match = _HINT_RANGE.match(hint or "")
    if not match:
        return None
    first = int(match[1])
    if int(match[2]) != (first + 1) % 100:
        return None
    last = int(match[3]) if match[3] else first
    bounds = academic_year_bounds if academic else tax_year_bounds
    valid_from = bounds(first)[0]
    valid_to = None if match[5] else bounds(last)[1]
    return Validity(valid_from, valid_to, 0, hint)


def counts_academic_years(text: str) -> bool:
    """Student finance pages count in academic years: their bare '2024 to 2025' is one."""
    lowered = text.lower()
    return lowered.count("academic year") > lowered.count("tax year")


def year_of_day(day: dt.date, *, academic: bool = False) -> tuple[dt.date, dt.date]:
    """The tax year (or academic year) a day falls in, as its first and last day."""
    if academic:
        start = day.year - (day.month < ACADEMIC_YEAR_START_MONTH)
        return academic_year_bounds(start)
    return tax_year_bounds(tax_year_start_year(day))


def hint_years(hint: str, *, academic: bool = False) -> tuple[dt.date, dt.date] | None:
    """The closed years a page file's figures period names: '2024-25' that year,
    '2017-18-to-2023-24' that range, '2024-25-or-later' 2024-25 (the year its figures were
    seen in; later years are not known). Vague hints give None."""
    validity = hint_validity(hint, academic=academic)
    if validity is None or validity.valid_from is None:
        return None
    if validity.valid_to is not None:
        return validity.valid_from, validity.valid_to
    return year_of_day(validity.valid_from, academic=academic)
