"""Amounts, their periods and age bands in gov.uk English: text in, typed findings out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Amount:
    value: Decimal
    unit: str  # "GBP" | "percent"
    start: int
    end: int
    printed: str


_MONEY = re.compile(
    r"£\s?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d{1,2})?(?:\s?(?P<mult>million|billion|bn|m)\b)?",
    re.I,
)
_PENCE = re.compile(r"(?<![\w.£])(?P<num>\d{1,3})p\b")
_PERCENT = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:\.\d{1,3})?)\s?(?:%|per ?cent\b)", re.I)
_MULTIPLIERS = {"million": 1_000_000, "m": 1_000_000, "billion": 10**9, "bn": 10**9}


def find_amounts(text: str) -> list[Amount]:
    found: list[Amount] = []
    for match in _MONEY.finditer(text):
        value = Decimal(match["num"].replace(",", "") + (match["dec"] or ""))
        if match["mult"]:
            value *= _MULTIPLIERS[match["mult"].lower()]
        found.append(Amount(value, "GBP", match.start(), match.end(), match.group().strip()))
    for match in _PENCE.finditer(text):
        value = Decimal(match["num"]) / 100
        found.append(Amount(value, "GBP", match.start(), match.end(), match.group()))
    for match in _PERCENT.finditer(text):
        found.append(
            Amount(Decimal(match["num"]), "percent", match.start(), match.end(), match.group())
        )
    return sorted(found, key=lambda amount: amount.start)


_PERIOD_WORDS = [
    (re.compile(r"\b(every|each) (4|four) weeks\b", re.I), "four_weeks"),
    (re.compile(r"\b(a|per|each|every) week\b|\bweekly\b|\bper wk\b", re.I), "week"),
    (re.compile(r"\b(a|per|each|every) month\b|\bmonthly\b", re.I), "month"),
    (
        re.compile(
            r"\b(a|an|per|each|every) (tax |academic )?year\b|\bannual(ly)?\b|\byearly\b|"
            r"\b(?:in|for) the (?:\d{4} to \d{4} )?(?:tax|academic) year\b",
            re.I,
        ),
        "year",
    ),
    (re.compile(r"\b(an|per|each) hour\b|\bhourly\b", re.I), "hour"),
    (re.compile(r"\b(a|per|each) day\b|\bdaily\b", re.I), "day"),
]


def period_in(text: str) -> str:
    """The payment/limit period named in a short stretch of text, or ''."""
    for pattern, period in _PERIOD_WORDS:
        if pattern.search(text):
            return period
    return ""


_PERIOD_PHRASES = {
    "year": "a year", "month": "a month", "four_weeks": "every 4 weeks", "week": "a week",
    "day": "a day", "hour": "an hour",
}  # fmt: skip


def with_period(text: str, printed: str, period: str) -> str:
    """The text with the figure's period said after it ("Under 18: £7.55 an hour"), when the
    text names no period of its own and the figure once."""
    if period not in _PERIOD_PHRASES or text.count(printed) != 1 or period_in(text):
        return text
    at = text.index(printed) + len(printed)
    return f"{text[:at]} {_PERIOD_PHRASES[period]}{text[at:]}"


def amount_text(value, value_unit: str) -> str:
    """An amount as people read it: £12,570 / £221.20 / 20% / 28 weeks."""
    value = Decimal(value)
    if value == value.to_integral_value():
        number = f"{int(value):,}"
    elif value_unit == "GBP":
        number = f"{value:,.2f}"
    else:
        number = f"{value.normalize():,f}"
    if value_unit == "GBP":
        return f"£{number}"
    return f"{number}%" if value_unit == "percent" else f"{number} {value_unit}"


_RATE_PERIOD = re.compile(
    r"^\s*(?:(?:a|per|each|every) (?P<unit>week|month|year|annum)\b|(?P<adverb>weekly|monthly|annually|yearly)\b)",
    re.I,
)
_RATE_UNITS = {"week": "week", "weekly": "week", "month": "month", "monthly": "month"}


def rate_period(after: str) -> str:
    """The period of a percentage rate, only when it follows the rate ('2% a year'): a rate in
    a table of weekly or monthly bands is a share of each band, not a per-month figure."""
    match = _RATE_PERIOD.match(after)
    if not match:
        return ""
    word = (match["unit"] or match["adverb"]).lower()
    return _RATE_UNITS.get(word, "year")


_AGE_UNDER = re.compile(r"\bunder[- ](\d{2})s?\b", re.I)
_AGE_OVER = re.compile(r"\b(\d{2}) (?:or|and) (?:over|older|above)\b", re.I)
_AGE_RANGE = re.compile(r"(?<![£\d.,])\b(\d{2}) to (\d{2})\b(?! (?:hours|weeks|days|months|years))")


def age_band(text: str) -> tuple[int, int] | None:
    """The one age band a text names ("under 25" → (0, 24), "25 or over" → (25, 120), "18 to
    20" → (18, 20)); None when it names none or several."""
    bands = {(0, int(m.group(1)) - 1) for m in _AGE_UNDER.finditer(text)}
    bands |= {(int(m.group(1)), 120) for m in _AGE_OVER.finditer(text)}
    bands |= {
        (int(m.group(1)), int(m.group(2)))
        for m in _AGE_RANGE.finditer(text)
        if int(m.group(1)) < int(m.group(2))
    }
    return bands.pop() if len(bands) == 1 else None
