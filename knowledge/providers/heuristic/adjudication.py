"""The heuristic provider's answer to "are these two units the same rule at different
times?": from their types, structured values, dates and how alike their words are once
figures are masked (knowledge.text.compare). It never asks a model.
"""

from __future__ import annotations

from decimal import Decimal

from knowledge.domain.extraction import Adjudication, UnitText, Usage
from knowledge.text.amounts import amount_text, find_amounts
from knowledge.text.compare import masked_similarity

HEURISTIC_MODEL = "heuristic-v1"
HEURISTIC_LABEL = "heuristic (rule-based, no LLM)"
# Below this word similarity (figures masked) two units are different rules even when their
# types and quantities match: other rows of a table, other people, other steps. Calibrated on
# the real corpus against the gold chains (superseding_report --gold): 0 → 171 proposals and
# 17 gold steps found; 0.6 → 96 proposals and 16 steps (the one lost is worded unlike its
# successor on another page, which only a language model can pair).
MIN_WORD_SIMILARITY = 0.6


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
