"""Who a statement is for by their date of birth, as gov.uk writes it: "if you were born on
or before 8 April 1948", "a man born on or after 6 April 1951", "if you or your partner were
born before 6 April 1935", "born between 6 April 2006 and 5 April 2008". Read as a range of
birth dates, `born_from` inclusive and `born_before` exclusive.

A child's date of birth ("children born before 6 April 2017") is a condition on the child,
not on the reader, and is not read; nor is one that may be either of two people's ("you or
your partner were born before …"), a bracket's or one list item's. Alternatives in one statement ("a man born on or after
6 April 1951, a woman born on or after 6 April 1953") are read as their union; a statement
that speaks of both sides of a date ("born on or before 8 April 1948 … born after 8 April
1948") narrows no one."""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_DATE = r"(\d{1,2})(?:st|nd|rd|th)? (" + "|".join(_MONTHS) + r") (\d{4})"
_BORN = re.compile(
    rf"\bborn (on or before|before|on or after|after|between) {_DATE}(?:,? and {_DATE})?",
    re.IGNORECASE,
)
# Whose birth it is: a child's (or a baby's, a young person's) is not the reader's.
_SOMEONE_ELSE = re.compile(
    r"\b(?:child|children|child's|baby|babies|son|daughter|young (?:person|people)|"
    r"grandchild\w*|stillborn|they|them|deceased)\b",
    re.IGNORECASE,
)
_CLAUSE_START = re.compile(r"\.(?=\s)|[;:\n•]|\bif\b|\bunless\b|\bwho\b", re.IGNORECASE)
# "you or your partner were born before …": either of two people, and a profile gives one
# date of birth only.
_EITHER_OF_TWO = re.compile(
    r"\byou or your (?:partner|husband|wife|civil partner|spouse)\b", re.IGNORECASE
)
# An item of a list that names a thing before its own condition ("Winter Fuel Payment - if
# you were born on or before 5 July 1952"): the condition is that item's, not the statement's.
_ITEM_OF_ITS_OWN = re.compile(r"^\s*[A-Z][\w' ]*?\s[-–]\s*if\b")


def births_read(text: str) -> tuple[dt.date | None, dt.date | None]:
    """(born_from, born_before): the birth dates the statement is for, either open."""
    lows: list[dt.date | None] = []
    highs: list[dt.date | None] = []
    for match in _BORN.finditer(text):
        if _about_someone_else(text, match.start()):
            continue
        first = _date(*match.group(2, 3, 4))
        if first is None:
            continue
        relation = match.group(1).lower()
        if relation == "between":
            last = _date(*match.group(5, 6, 7))
            if last is None or last < first:
                continue
            lows.append(first)
            highs.append(last + dt.timedelta(days=1))
            continue
        low = {"on or after": first, "after": first + dt.timedelta(days=1)}.get(relation)
        high = {"on or before": first + dt.timedelta(days=1), "before": first}.get(relation)
        lows.append(low)
        highs.append(high)
    if not lows:
        return None, None
    # The union of the alternatives: open on a side any of them leaves open.
    born_from = None if None in lows else min(lows)
    born_before = None if None in highs else max(highs)
    if born_from is None and born_before is None:
        return None, None  # both sides of a date: the statement narrows no one
    return born_from, born_before


def _about_someone_else(text: str, position: int) -> bool:
    """The words since the clause began say whose birth it is (a child's, either of two
    people's), or the date qualifies something else: a bracket's ("£277.08 a month (born
    before 6 April 2017)"), one list item's."""
    starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, position)]
    clause = text[starts[-1] if starts else 0 : position]
    item_start = max(text.rfind(";", 0, position), text.rfind(":", 0, position)) + 1
    return bool(
        _SOMEONE_ELSE.search(clause)
        or _EITHER_OF_TWO.search(clause)
        or text[:position].rstrip().endswith("(")
        or _ITEM_OF_ITS_OWN.match(text[item_start:position])
    )


def _date(day: str | None, month: str | None, year: str | None) -> dt.date | None:
    if not (day and month and year):
        return None
    try:
        return dt.date(int(year), _MONTHS.index(month.lower()) + 1, int(day))
    except ValueError:
        return None


def birth_range_of_age(age: int, on: dt.date) -> tuple[dt.date, dt.date]:
    """The earliest and the latest date of birth of someone `age` years old on `on`."""
    latest = _years_before(on, age)
    earliest = _years_before(on, age + 1) + dt.timedelta(days=1)
    return earliest, latest


def _years_before(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February in a year without one
        return day.replace(year=day.year - years, day=28)
