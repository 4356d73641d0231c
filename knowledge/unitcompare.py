"""Comparing two units' words and figures: text similarity, whether their figures differ,
and the heuristic answer to "are these the same rule at different times?".

Pure functions over `UnitText`; the superseding detector (curation) and the heuristic
provider both use them.
"""

from __future__ import annotations

import re
from decimal import Decimal

from rapidfuzz import fuzz

from knowledge.parsing import normalise_inline
from knowledge.providers import Adjudication, UnitText, Usage
from knowledge.textfacts import MONTHS, amount_text, find_amounts, find_validities

HEURISTIC_MODEL = "heuristic-v1"
# Below this word similarity (figures masked) two units are different rules even when their
# types and quantities match: other rows of a table, other people, other steps. Calibrated on
# the real corpus against the gold chains (superseding_report --gold): 0 → 171 proposals and
# 17 gold steps found; 0.6 → 96 proposals and 16 steps (the one lost is worded unlike its
# successor on another page, which only a language model can pair).
MIN_WORD_SIMILARITY = 0.6
HEURISTIC_LABEL = "heuristic (rule-based, no LLM)"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_MONTH_WORD = re.compile(r"\b(" + "|".join(MONTHS) + r")\b", re.I)
_MASK = "#"


def normalised(text: str) -> str:
    return normalise_inline(text).lower()


def text_similarity(a: str, b: str) -> float:
    """0..1: the share of characters the two normalised texts have in common (Indel ratio)."""
    return fuzz.ratio(normalised(a), normalised(b)) / 100


def figures(text: str) -> tuple:
    """Every figure a text states: amounts and percentages, validity periods, and, to catch
    what those miss (ages, counts, bare dates), every number and month name."""
    amounts = tuple((amount.unit, amount.value) for amount in find_amounts(text))
    periods = tuple((v.valid_from, v.valid_to) for v in find_validities(text))
    numbers = tuple(n.replace(",", "") for n in _NUMBER.findall(text))
    months = tuple(month.lower() for month in _MONTH_WORD.findall(text))
    return amounts, periods, numbers, months


def near_identical(a: str, b: str, *, threshold: float) -> bool:
    """Duplicates, not versions: texts alike above `threshold` that state the same figures
    ('£12,500' and '£12,570' never are). The superseding detector's stage 1 and the dedup
    job's rule."""
    return text_similarity(a, b) > threshold and figures(a) == figures(b)


def masked(text: str) -> str:
    """The normalised text with amounts, dates, years and month names replaced by `#`. Other
    numbers stay: they name things ('18 to 20' and '21 to 24' are two age bands)."""
    text = normalised(text)
    spans = [(a.start, a.end) for a in find_amounts(text)]
    spans += [(v.start, v.start + len(v.phrase)) for v in find_validities(text)]
    left = len(text)
    for start, end in sorted(spans, reverse=True):
        if end <= left:  # an amount inside a date phrase is masked with the phrase
            text = text[:start] + _MASK + text[end:]
            left = start
    text = _MONTH_WORD.sub(_MASK, _YEAR.sub(_MASK, text))
    return re.sub(r"#(\s*#)+", _MASK, text)


def masked_similarity(a: str, b: str) -> float:
    """Text similarity once figures and dates are masked: how alike the words are."""
    return fuzz.ratio(masked(a), masked(b)) / 100


# --- the heuristic adjudicator ---------------------------------------------------------------


def heuristic_adjudicate(*, older: UnitText, newer: UnitText) -> Adjudication:
    """Same type and same quantity (for structured values: same unit, no two different
    periods, the same figure of their sentences) with a different value or validity, in
    words alike enough → the same rule at different times; anything else → not.
    Confidence is how alike the words are once figures are masked."""
    confidence = round(masked_similarity(older.text, newer.text), 4)
    reason = _not_comparable(older, newer)
    if reason:
        return _verdict(False, confidence, reason)
    changes = value_changes(older, newer) + validity_changes(older, newer)
    if not changes:
        return _verdict(False, confidence, "same figures and validity: a restatement, not a change")
    if confidence < MIN_WORD_SIMILARITY:
        return _verdict(
            False,
            confidence,
            f"the words differ too much ({confidence:.2f}): " + "; ".join(changes),
        )
    return _verdict(True, confidence, "; ".join(changes))


def _verdict(same_rule: bool, confidence: float, reason: str) -> Adjudication:
    return Adjudication(
        same_rule=same_rule,
        confidence=confidence,
        rationale=f"{HEURISTIC_LABEL}: {reason}",
        usage=Usage(model=HEURISTIC_MODEL),
    )


def _not_comparable(older: UnitText, newer: UnitText) -> str:
    if older.unit_type != newer.unit_type:
        return f"different unit types ({older.unit_type} / {newer.unit_type})"
    if (older.value_amount is None) != (newer.value_amount is None):
        return "only one of them holds a structured value"
    if older.value_amount is not None:
        # A period the extraction did not find is unknown, not different.
        periods = {older.value_period, newer.value_period} - {""}
        if older.value_unit != newer.value_unit or len(periods) > 1:
            return f"different quantities ({_quantity(older)} / {_quantity(newer)})"
        where = (_value_position(older), _value_position(newer))
        if None not in where and where[0] != where[1]:
            return "they hold different figures of their sentences (amount {} / {})".format(
                *(position + 1 for position in where)
            )
        return ""
    if _text_quantities(older.text) != _text_quantities(newer.text):
        return "their texts state different kinds or numbers of amounts"
    return ""


def _value_position(unit: UnitText) -> int | None:
    """Which amount of its text a unit's value is, when the text states several (one unit is
    made per amount: '£10,240 in a cash ISA, £2,000 in …')."""
    amounts = [(a.unit, a.value) for a in find_amounts(unit.text)]
    value = (unit.value_unit, Decimal(unit.value_amount))
    if len(amounts) < 2 or value not in amounts:
        return None
    return amounts.index(value)


def _quantity(unit: UnitText) -> str:
    period = unit.value_period.replace("_", " ") if unit.value_period else "no period"
    return f"{unit.value_unit or 'no unit'}, {period}"


def _text_quantities(text: str) -> list[str]:
    return [amount.unit for amount in find_amounts(text)]


def value_changes(older: UnitText, newer: UnitText) -> list[str]:
    """'£12,500 → £12,570' for a structured value, else for each amount of the text."""
    if older.value_amount is not None:
        if Decimal(older.value_amount) == Decimal(newer.value_amount):
            return []
        return [
            f"{amount_text(older.value_amount, older.value_unit)} → "
            f"{amount_text(newer.value_amount, newer.value_unit)}"
        ]
    pairs = zip(find_amounts(older.text), find_amounts(newer.text), strict=True)
    return [f"{a.printed} → {b.printed}" for a, b in pairs if a.value != b.value]


def validity_changes(older: UnitText, newer: UnitText) -> list[str]:
    changes = []
    if older.valid_from != newer.valid_from:
        changes.append(f"valid from {older.valid_from or 'open'} → {newer.valid_from or 'open'}")
    if older.valid_to != newer.valid_to:
        changes.append(f"valid to {older.valid_to or 'open'} → {newer.valid_to or 'open'}")
    return changes
