"""Part 3 of claim checking: the exact comparison of a claim's figure with a unit already
judged to be about the same quantity (knowledge.reading.aboutness). Amounts to the
penny, percentages, lengths of time in days (within a month's rounding), "about" within 5%,
number words and "£20k" as the claim reader reads them, the period next to each figure
(a week, a month, a year), and ages as the bounds their clause states ("aged 18 to 49"
against "18 or over but under 40"). Which of a unit's figures the claim's is compared with is
the one whose words beside it are most like the claim's (a rate table row prints the
eldest child's rate beside the others')."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from knowledge.models import AtomicUnit
from knowledge.reading.claims import Claim, Figure, masked, period_after
from knowledge.reading.unit_figures import (
    another_variant,
    equal,
    figure_context,
    figures_illustrative,
    for_another_year,
    printed_figures,
    unit_period,
    unit_values,
)
from knowledge.text.ages_incomes import age_bounds
from knowledge.text.words import denies, designators, word_stems

SAME, DIFFERS, OTHER_PERIOD, NOT_COMPARABLE = "same", "differs", "other_period", "none"
# Two values of one amount, another year's or a wrong one, are seldom more than this many
# times apart; farther apart they are amounts of different things.
MONEY_RATIO = Decimal(10)
# A clause ends at a semicolon, a colon or a full stop before a space; the point of "£25.60"
# ends nothing.
_CLAUSE_END = re.compile(r";|:\s|\.\s")


@dataclass(frozen=True)
class Comparison:
    relation: str  # SAME | DIFFERS | OTHER_PERIOD | NOT_COMPARABLE
    shown: str = ""  # what the unit states instead, as it prints it ("£20,000", "18 to 39")


def figure_compared(
    claim: Claim, figure: Figure, unit: AtomicUnit, day: dt.date | None = None
) -> Comparison:
    """`day`: the day the claim speaks of; a figure the unit prints for another year's span
    ("£3,354 for the 2023 to 2024 academic year") is not compared with a claim about it."""
    if figure.unit == "age":
        return _ages_compared(claim, figure, unit)
    printed = [
        (start, end, value)
        for start, end, value in printed_figures(unit.text, figure.unit)
        if not for_another_year(unit.text, end, day)
    ]
    if not printed:
        values = unit_values(unit, figure.unit)  # a structured value the text does not print
        if not values:
            return Comparison(NOT_COMPARABLE)
        if any(equal(value, figure) for value in values):
            return _with_period(figure, unit, SAME)
        return Comparison(DIFFERS, _money(values[0], figure.unit))
    if another_variant(designators(claim.text), unit.text) or figures_illustrative(unit):
        # Class 2's figures are not Class 3's; a worked example's are not the rule's.
        return Comparison(NOT_COMPARABLE)
    near_claim = figure_context(claim.text, figure.start, figure.end)
    own = word_stems(claim.text)
    scored = [
        (
            len(near_claim & figure_context(unit.text, start, end)),
            start,
            end,
            value,
            len(own & word_stems(_clause_at(unit.text, start))),
        )
        for start, end, value in printed
    ]
    best = max(overlap for overlap, *_ in scored)
    if best == 0 and near_claim:
        # None of its figures is said to be of what the claim's is. A unit printing two of
        # the claim's figures, this one among them, states them ("between £242 and £967 a
        # week" against "Your pay: £242 to £967 a week"): one printed figure alike may be a
        # coincidence, two are the claim's. Comparing another would be a guess, and a guess
        # must neither support nor contradict.
        partners = [f for f in claim.figures if f is not figure and f.unit == figure.unit]
        pair = any(equal(value, other) for other in partners for *_, value in printed)
        for _, _, end, value, _ in scored:
            if pair and equal(value, figure):
                return _with_period(figure, unit, SAME, period_after(unit.text, end))
        return Comparison(NOT_COMPARABLE)
    partners = [f for f in claim.figures if f.unit == figure.unit]
    if len(partners) > 1 and len(printed) > 1:
        # Several figures of one measure on each side: each of the claim's is compared with
        # the one of the unit's the best pairing of all of them gives it ("rise to £500,000
        # … worth less than £2 million" against "increase to £500,000 … less than £2
        # million"), so the words beside one of the claim's figures cannot pull it onto the
        # unit's other figure; swapped figures stay swapped.
        pairing = _pairing(claim.text, tuple(partners), unit.text, tuple(printed))
        candidates = [scored[pairing[partners.index(figure)]]]
    else:
        # Of the figures said most like the claim's, those in the clause most like the claim.
        candidates = [item for item in scored if item[0] == best]
        closest = max(item[4] for item in candidates)
        candidates = [item for item in candidates if item[4] == closest]
    for _, _, end, value, _ in candidates:
        if equal(value, figure):
            return _with_period(figure, unit, SAME, period_after(unit.text, end))
    _, start, end, value, _ = candidates[0]
    if figure.unit == "GBP" and not _within(value, figure.value, MONEY_RATIO):
        # £26.05 a week and an income of £60,000 are not two values of one quantity.
        return Comparison(NOT_COMPARABLE)
    stated = period_after(unit.text, end)
    if figure.period and stated and stated != figure.period:
        # Another value for another period is another quantity (a weekly allowance beside a
        # monthly one), not another value of the claim's.
        return Comparison(NOT_COMPARABLE)
    return Comparison(DIFFERS, unit.text[start:end])


@functools.lru_cache(maxsize=4096)
def _pairing(claim: str, figures: tuple[Figure, ...], text: str, printed: tuple) -> tuple[int, ...]:
    """For each of the claim's figures, the index of the unit's printed figure it is paired
    with: the one-to-one pairing with most words beside the figures shared in all, then most
    of the claim's words in their clauses, then most values alike (an answer's claims come
    back reading after reading: each pairing is searched once). With more of the claim's
    figures than the unit prints, the extra ones share the best of theirs."""
    own = word_stems(claim)
    beside = [figure_context(claim, f.start, f.end) for f in figures]
    gains = [
        [
            (
                len(near & figure_context(text, start, end)),
                len(own & word_stems(_clause_at(text, start))),
                int(equal(value, f)),
            )
            for start, end, value in printed
        ]
        for near, f in zip(beside, figures, strict=True)
    ]
    if len(figures) > len(printed) or math.perm(len(printed), len(figures)) > _PAIRINGS_AT_MOST:
        return tuple(max(range(len(printed)), key=row.__getitem__) for row in gains)
    best = max(
        itertools.permutations(range(len(printed)), len(figures)),
        key=lambda chosen: tuple(
            sum(gains[f][p][part] for f, p in enumerate(chosen)) for part in range(3)
        ),
    )
    return tuple(best)


# Beyond this many pairings (a claim's 3 figures against a table's 18), each of the claim's
# figures is paired on its own.
_PAIRINGS_AT_MOST = 5000


def _with_period(figure: Figure, unit: AtomicUnit, relation: str, stated: str = "") -> Comparison:
    """The same value given for another period ("£90 a week" where the claim says a month)
    is another quantity."""
    period = stated or unit_period(unit, figure)
    if figure.period and period and period != figure.period:
        return Comparison(OTHER_PERIOD, f"{figure.printed} a {period.replace('_', ' ')}")
    return Comparison(relation)


def _ages_compared(claim: Claim, figure: Figure, unit: AtomicUnit) -> Comparison:
    """The ages at which the claim's condition changes against those of the unit's clause
    most like the claim: "24 or under" and "25 or over" draw one line, at 25; "aged 18 to
    49" draws one at 50 where "18 or over but under 40" draws it at 40. A claim that names
    one of the unit's lines ("you must be under 40") agrees with it."""
    said = _clause_at(claim.text, figure.start)
    claimed = age_bounds(said)
    if claimed is None or denies(said):
        # "You can't get it for a child over 20" bounds whom it is not for: read by meaning.
        return Comparison(NOT_COMPARABLE)
    clause = unit_clause(claim, unit, bounded=True)
    stated = age_bounds(clause) if clause else None
    if stated is None:
        return Comparison(NOT_COMPARABLE)
    if _lines(*claimed) <= _lines(*stated):
        return Comparison(SAME)
    return Comparison(DIFFERS, _ages(*stated))


def _within(first: Decimal, second: Decimal, ratio: Decimal) -> bool:
    low, high = sorted((abs(first), abs(second)))
    return low > 0 and high <= low * ratio


def _lines(low: int | None, high: int | None) -> set[int]:
    return {age for age in (low, None if high is None else high + 1) if age is not None}


def unit_clause(claim: Claim, unit: AtomicUnit, *, bounded: bool = False) -> str:
    """The unit's clause sharing most words with the claim (in a list, "16 or over for a cash
    ISA; 18 or over but under 40 for a Lifetime ISA", the item the claim is about), the
    shorter of two alike; with `bounded`, among those stating an age bound."""
    own = word_stems(masked(claim.text))
    found = _clause_stems(unit.text)
    if bounded:
        found = tuple(item for item in found if age_bounds(item[0]) is not None)
    best = max(found, key=lambda item: (len(own & item[1]), -len(item[0])), default=None)
    return best[0] if best else ""


# The same units come back search after search, claim after claim: each text's clauses, and
# their words, are read once.
@functools.lru_cache(maxsize=4096)
def _clause_stems(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((clause, word_stems(clause)) for _, clause in _clauses(text))


@functools.lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[tuple[int, str], ...]:
    """(where it starts, the clause) for each clause of the text."""
    found, start = [], 0
    for end in [*(m.start() for m in _CLAUSE_END.finditer(text)), len(text)]:
        if text[start:end].strip():
            found.append((start, text[start:end].strip()))
        start = end + 1
    return tuple(found)


def _clause_at(text: str, position: int) -> str:
    """The clause of the text holding `position`."""
    return next((c for start, c in reversed(_clauses(text)) if start <= position), text)


def _ages(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"aged {low} to {high}"
    return f"aged {low} or over" if low is not None else f"aged {high} or under"


def _money(value: Decimal, unit: str) -> str:
    if unit == "GBP":
        return f"£{value:,.2f}".replace(".00", "")
    return f"{value.normalize():f}%" if unit == "percent" else f"{value.normalize():f} {unit}"
