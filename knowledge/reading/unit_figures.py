"""What a unit's text says of figures: the figures it prints of a claim's measure (money,
percent, a length of time in days), whether one equals the claim's (exactly, within 5% when
the claim says "about", a length of time within a month's rounding), whether one is printed
for another year's span, its period, whether the unit is a worked example, and the words
beside a figure, which say what it is the figure of (knowledge.reading.compare compares,
knowledge.verification.check decides the verdict)."""

from __future__ import annotations

import datetime as dt
import functools
import re
from decimal import Decimal

from knowledge.models import AtomicUnit
from knowledge.reading.claims import Figure, claim_figures, period_after
from knowledge.text.amounts import find_amounts
from knowledge.text.words import STOPWORDS, designators

APPROXIMATE_SHARE = Decimal("0.05")  # "about £1,000" allows 5%


# A worked example, however it opens: a unit that is one as a whole ("Example:", or "Example"
# after the heading it is stated under: "Putting money into an ISA: Example You could save
# …"), or an example given inside a clause ("for example, if you earn £60,000 you pay…"),
# which reaches to the end of its clause or its brackets.
_WHOLE_EXAMPLE = re.compile(r"\bexample:|^\W*example\b|:\s+examples?\b", re.I)
_INLINE_EXAMPLE = re.compile(
    r"\b(?:for example|for instance|e\.g\.)(?P<given>[^;:)]*?)(?:[;:)]|\.\s|$)", re.I
)


def worked_example(unit: AtomicUnit) -> bool:
    """The unit is or gives an example (aboutness reads it as less likely the rule itself)."""
    return (
        unit.unit_type == "example"
        or bool(_WHOLE_EXAMPLE.search(unit.text))
        or bool(_INLINE_EXAMPLE.search(unit.text))
    )


def figures_illustrative(unit: AtomicUnit) -> bool:
    """The unit's figures are an illustration, not the rule's: it is an example as a whole,
    or it gives one with a figure in it. An example of a kind of thing ("for example
    holidays or business; … Up to 8 weeks") leaves the unit's figures the rule's."""
    if unit.unit_type == "example" or _WHOLE_EXAMPLE.search(unit.text):
        return True
    return any(re.search(r"\d", m.group("given")) for m in _INLINE_EXAMPLE.finditer(unit.text))


# A length of time is one measure whatever it is counted in: "182 days" is "26 weeks" and
# about "6 months" (equal within DURATION_SHARE: a month is not a whole number of days).
DAYS_IN = {
    "days": Decimal(1),
    "weeks": Decimal(7),
    "months": Decimal("30.4375"),
    "years": Decimal("365.25"),
}
DURATION_SHARE = Decimal("0.015")


# "£3,354 for the 2023 to 2024 academic year": a figure printed with its own year's span. An
# open span ("for tax years up to and including 2023 to 2024", "starting from") is not one.
_YEAR_SPAN = re.compile(r"\b(20\d\d) to (20\d\d)\b")
_OPEN_SPAN = re.compile(
    r"\b(?:up to|including|until|starting|from|before|after|since)\b[^.;£]*$", re.I
)
YEAR_SPAN_REACH = 45  # characters after the figure, within its clause


def for_another_year(text: str, end: int, day: dt.date | None) -> bool:
    """The figure ending at `end` is printed for a year's span ("£3,354 for the 2023 to 2024
    academic year") that does not hold `day`."""
    if day is None:
        return False
    after = re.split(r"[.;£]", text[end : end + YEAR_SPAN_REACH])[0]
    span = _YEAR_SPAN.search(after)
    if span is None or _OPEN_SPAN.search(after[: span.start()]):
        return False
    first, second = int(span.group(1)), int(span.group(2))
    return second == first + 1 and not dt.date(first, 4, 6) <= day <= dt.date(second, 8, 31)


def equal(value: Decimal, figure: Figure) -> bool:
    wanted = _measured(figure.value, figure.unit)
    if figure.approximate or figure.unit in DAYS_IN:
        share = APPROXIMATE_SHARE if figure.approximate else DURATION_SHARE
        return abs(value - wanted) <= share * wanted
    return value == wanted


def _measured(value: Decimal, unit: str) -> Decimal:
    return value * DAYS_IN[unit] if unit in DAYS_IN else value


def unit_values(unit: AtomicUnit, kind: str) -> list[Decimal]:
    """The unit's figures of the claim's measure (lengths of time in days): those its text
    prints, which is what its quote shows; the structured value and the statement's other
    figures only when the text prints none (a structured value the text does not print is an
    extraction slip, not a fact)."""
    values = [value for _, _, value in printed_figures(unit.text, kind)]
    if not values:
        structured = [(unit.value_amount, unit.value_unit)] + [
            (f["amount"], f["unit"]) for f in unit.figures
        ]
        values += [
            _measured(Decimal(a), kind) for a, u in structured if a is not None and u == kind
        ]
    return [Decimal(v).normalize() for v in values]


def _same_measure(unit: str, kind: str) -> bool:
    return unit == kind or (unit in DAYS_IN and kind in DAYS_IN)


def unit_period(unit: AtomicUnit, figure: Figure) -> str:
    """The period ("week", "month", …) the unit gives the claim's figure: its structured
    value's, one of its other figures', else the words after the figure in its text; "" when
    it gives none."""
    structured = unit.value_amount is not None and unit.value_period not in ("", "one_off")
    if structured and Decimal(unit.value_amount).normalize() == figure.value.normalize():
        return unit.value_period
    for other in unit.figures:  # one of the statement's other figures, with its period
        if other["period"] and Decimal(other["amount"]) == figure.value:
            return other["period"]
    for amount in find_amounts(unit.text):
        if amount.value == figure.value:
            return period_after(unit.text, amount.end)
    return ""


def another_variant(claimed: set[str], text: str) -> bool:
    """The unit names a numbered variant of the claim's scheme and not the claim's own
    (Class 2 contributions for a claim about Class 3): its figures are another variant's."""
    if not claimed:
        return False
    named = designators(text)
    kinds = {variant.split()[0] for variant in claimed}
    return not (claimed & named) and any(v.split()[0] in kinds for v in named)


_AMOUNTS_MASKED = re.compile(
    r"£\s?[\d,]+(?:\.\d+)?\s?(?:k\b|million|billion|bn)?|\d+(?:\.\d+)?\s?%", re.I
)
CONTEXT_WORDS = 4  # content words each side of a figure that say what it is about
_CONTEXT_NOISE = frozenset(
    [
        "a",
        "per",
        "each",
        "every",
        "week",
        "weeks",
        "weekly",
        "month",
        "months",
        "monthly",
        "year",
        "years",
        "yearly",
        "annual",
        "hour",
        "hours",
        "hourly",
        "day",
        "days",
        "daily",
        "up",
        "more",
        "less",
        "than",
        "over",
        "under",
        "least",
        "most",
        "get",
        "got",
        "is",
        "be",
        "been",
        "you",
        "your",
        "not",
        "only",
        "also",
        "there",
        "that",
        "this",
        "these",
        "those",
        "so",
        "do",
        "does",
        "would",
        "could",
        "should",
        "may",
        "must",
        "all",
        "any",
        "about",
        "around",
        "rate",
        "rates",
        "amount",
        "need",
        "pay",
        "paid",
        "tax",
        "can",
        "cannot",
    ]
)


def figure_context(text: str, start: int, end: int) -> frozenset[str]:
    """Stems of the content words just before and after a figure (what it is the figure of),
    numbers among them ("18 to 20: £10.00" is the figure of ages 18 to 20) but not the digits
    of other amounts ("over £125,140 … 45%": 45% is not the figure of 125 or 140)."""
    before = _AMOUNTS_MASKED.sub(" ", text[:start])
    after = _AMOUNTS_MASKED.sub(" ", text[end:])

    def words(stretch: str) -> list[str]:
        return [
            w[:5]
            for w in re.findall(r"[a-z]+|\d+", stretch.lower())
            if w not in STOPWORDS and w not in _CONTEXT_NOISE and (len(w) > 2 or w.isdigit())
        ]

    return frozenset(words(before)[-CONTEXT_WORDS:] + words(after)[:CONTEXT_WORDS])


# Each reading of a claim's evidence asks again for the figures of the same units' texts,
# and the same units come back answer after answer: each text is read once a measure.
@functools.lru_cache(maxsize=4096)
def printed_figures(text: str, kind: str) -> tuple[tuple[int, int, Decimal], ...]:
    """Where the text prints figures of the claim's measure, with their values in it."""
    if kind in ("GBP", "percent"):
        return tuple((a.start, a.end, a.value) for a in find_amounts(text) if a.unit == kind)
    return tuple(
        (f.start, f.end, _measured(f.value, f.unit))
        for f in claim_figures(text)
        if _same_measure(f.unit, kind)
    )
