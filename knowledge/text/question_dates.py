"""The date a question asks about, read from its words: "2018/19", "in 2022-23", "back in
2016", "last tax year", "from next April", "in July 2024". A rule-based reader, not a model.

A year or tax year is asked about at a day inside it: 1 October of its first calendar year
falls in the tax year (6 April to 5 April), the academic year (1 August to 31 July) and the
minimum-wage year (1 April to 31 March) that start that calendar year, so a figure for any of
the three is in force on it. A date about a person ("born in March 1970") is not the date
asked about.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from knowledge.text.dates import MONTH_ABBREVIATIONS, MONTHS, tax_year_start_year

_MONTH_NUMBERS = MONTHS | MONTH_ABBREVIATIONS  # "July", "jul", "sept"
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NOT_A_PERSON = r"(?<!born )(?<!born in )(?<!born on )(?<!birthday )"

_PATTERNS: list[tuple[str, re.Pattern]] = [
    (
        "day",
        re.compile(
            rf"{_NOT_A_PERSON}\b(?P<day>[0-3]?\d)(?:st|nd|rd|th)? {_MONTH},? {_YEAR}\b", re.I
        ),
    ),
    (
        "day",
        re.compile(
            rf"{_NOT_A_PERSON}\b{_MONTH} (?P<day>[0-3]?\d)(?:st|nd|rd|th)?,? {_YEAR}\b", re.I
        ),
    ),
    (
        "span",
        re.compile(
            r"(?<![£\d.,])\b(?P<year>(?:19|20)\d\d) ?(?:/|-|–|to) ?(?P<end>(?:19|20)?\d\d)\b(?![\d%,.]\d)",
            re.I,
        ),
    ),
    ("month", re.compile(rf"{_NOT_A_PERSON}\b{_MONTH} {_YEAR}\b", re.I)),
    (
        "relative",
        re.compile(r"\b(?P<which>last|this|current|next|previous|coming)(?: tax)? year\b", re.I),
    ),
    ("next_april", re.compile(r"\b(?:from |after )?next april\b", re.I)),
    (
        "year",
        re.compile(
            rf"{_NOT_A_PERSON}(?<![£\d.,])\b(?:in|during|for|of|back in|around|since|until|before|after) {_YEAR}\b(?![\d%,.]\d)(?! ?[/–-] ?\d)",
            re.I,
        ),
    ),
]
_ABOUT_BIRTH = re.compile(r"\bborn\b", re.I)
_BEFORE = re.compile(r"\b(?:before|until|up to|prior to)\s*$", re.I)


@dataclass(frozen=True)
class DateMention:
    """The day a question is about, the words that said so, and why that day."""

    day: dt.date
    phrase: str
    reason: str

    def as_json(self) -> dict:
        return {"date": self.day.isoformat(), "phrase": self.phrase or None, "reason": self.reason}


def date_in_words(
    text: str, *, today: dt.date, kinds: tuple[str, ...] | None = None
) -> DateMention | None:
    """The first date the words ask about, the most precise reading first; None when they
    name none. `kinds`: only these readings ("span" for "2023-24", "relative" for "last tax
    year", …)."""
    found = []
    for kind, pattern in _PATTERNS:
        if kinds is not None and kind not in kinds:
            continue
        for match in pattern.finditer(text):
            if _ABOUT_BIRTH.search(text[max(0, match.start() - 20) : match.start()]):
                continue
            mention = _read(kind, match, today=today, before=_BEFORE.search(text[: match.start()]))
            if mention is not None:
                found.append((match.start(), mention))
        if found:
            return min(found, key=lambda item: item[0])[1]
    return None


def _read(kind: str, match: re.Match, *, today: dt.date, before) -> DateMention | None:
    phrase = match.group(0).strip()
    reader = {
        "day": _exact_day,
        "span": _year_span,
        "month": _month,
        "relative": _relative_year,
        "next_april": _next_april,
        "year": _calendar_year,
    }[kind]
    mention = reader(match, today=today, phrase=phrase)
    if mention is not None and before and kind in ("day", "month"):
        day = mention.day - dt.timedelta(days=1 if kind == "day" else mention.day.day)
        return DateMention(day, phrase, f"just before {phrase}: {day:%-d %B %Y}")
    return mention


def _exact_day(match, *, today, phrase) -> DateMention | None:
    try:
        day = dt.date(int(match["year"]), _MONTH_NUMBERS[match["month"].lower()], int(match["day"]))
    except ValueError:
        return None
    return DateMention(day, phrase, f"the date {day:%-d %B %Y} in the question")


def _year_span(match, *, today, phrase) -> DateMention | None:
    start = int(match["year"])
    end = match["end"]
    end_year = int(end) if len(end) == 4 else (start // 100) * 100 + int(end)
    if len(end) == 2 and end_year < start:
        end_year += 100  # 1999/00
    if end_year != start + 1:
        return None  # "2018-2020" or "2019/18" is not one year's span
    return DateMention(
        dt.date(start, 10, 1), phrase, f"the {start} to {end_year} year (a day inside it)"
    )


def _month(match, *, today, phrase) -> DateMention:
    day = dt.date(int(match["year"]), _MONTH_NUMBERS[match["month"].lower()], 15)
    return DateMention(day, phrase, f"{day:%B %Y} (the middle of the month)")


def _relative_year(match, *, today, phrase) -> DateMention:
    which = match["which"].lower()
    start = tax_year_start_year(today)
    if which in ("this", "current"):
        return DateMention(today, phrase, "this year: today")
    step = -1 if which in ("last", "previous") else 1
    year = start + step
    if "tax" in phrase.lower():
        return DateMention(
            dt.date(year, 10, 1), phrase, f"the {year} to {year + 1} tax year ({which})"
        )
    if step < 0:
        return DateMention(
            dt.date(today.year - 1, 7, 1), phrase, f"last year: {today.year - 1} (its middle)"
        )
    return _next_april(match, today=today, phrase=phrase)


def _next_april(match, *, today, phrase) -> DateMention:
    year = today.year if (today.month, today.day) < (4, 6) else today.year + 1
    return DateMention(dt.date(year, 4, 6), phrase, f"the next tax year, from 6 April {year}")


def _calendar_year(match, *, today, phrase) -> DateMention:
    year = int(match["year"])
    word = phrase.split()[0].lower()
    if word in ("before", "until"):
        return DateMention(
            dt.date(year - 1, 12, 31), phrase, f"before {year}: the end of {year - 1}"
        )
    if word == "after":
        return DateMention(
            dt.date(year + 1, 1, 1), phrase, f"after {year}: the first day of {year + 1}"
        )
    if word == "since":
        return DateMention(dt.date(year, 1, 1), phrase, f"since {year}: its first day")
    return DateMention(dt.date(year, 7, 1), phrase, f"the year {year} (its middle)")
