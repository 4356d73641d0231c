"""Checking an expert's correction of a unit before anything is written: each field on its
own (naming the field when it is wrong), then the unit as it would be (an amount with its
unit, dates in order), and a re-selected quote against the page snapshot it must be part of."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation

from django.utils.dateparse import parse_date

from knowledge.domain.extraction import ValidityBasis
from knowledge.models import AtomicUnit, Concept, ConceptAlias
from knowledge.services.proposals import MAX_AMOUNT, figures_checked
from knowledge.text.applicability import applicability_checked

CORRECTABLE = (
    "text",
    "unit_type",
    "value_amount",
    "value_unit",
    "value_period",
    "figures",
    "valid_from",
    "valid_to",
    "validity_basis",
    "concept",
    "evidence_start",
    "evidence_end",
    "applicability",
)
TOGETHER_FIELDS = ("value_amount", "value_unit", "value_period", "valid_from", "valid_to")
MAX_TEXT = 4000
AMOUNT_PLACES = Decimal("0.0001")  # AtomicUnit.value_amount's decimal places


class CorrectionRefused(ValueError):
    """The correction cannot be made as asked; the message names the field and why."""


def changes_checked(unit: AtomicUnit, changes: dict) -> dict:
    """The asked changes as field values, checked one by one and then together (the unit as
    it would be); only those that differ from the unit."""
    values = {}
    for field, raw in changes.items():
        if field == "concept":
            continue
        values[field] = CHECKS[field](raw)
    if "evidence_start" in values or "evidence_end" in values:
        values.update(_evidence(unit, values))
    _check_together({f: values.get(f, getattr(unit, f)) for f in TOGETHER_FIELDS})
    changed = {f: v for f, v in values.items() if getattr(unit, f) != v}
    if ("valid_from" in changed or "valid_to" in changed) and "validity_basis" not in changed:
        # Dates an expert set are theirs: no longer "the capture of a yearly figure" (which
        # freshness extends with each newer capture) or whatever the machine read them from.
        changed["validity_basis"] = ValidityBasis.EXPERT.value
    return changed


def _text(raw) -> str:
    text = " ".join(str(raw or "").split())
    if not text:
        raise CorrectionRefused("text: the statement cannot be empty")
    if len(text) > MAX_TEXT or "\x00" in text:
        raise CorrectionRefused(f"text: at most {MAX_TEXT} characters, no NUL")
    return text


def _choice(field: str, choices: type, *, blank: bool):
    def check(raw) -> str:
        value = str(raw or "").strip()
        if (blank and not value) or value in choices.values:
            return value
        raise CorrectionRefused(f"{field}: {value!r} is not one of {', '.join(choices.values)}")

    return check


def _amount(raw) -> Decimal | None:
    if raw is None or str(raw).strip() == "":
        return None
    try:
        amount = Decimal(str(raw).strip().replace(",", "").lstrip("£"))
    except InvalidOperation:
        raise CorrectionRefused(f"value_amount: {raw!r} is not a number") from None
    if not amount.is_finite() or not abs(amount) < MAX_AMOUNT:
        raise CorrectionRefused(f"value_amount: {raw!r} is not a usable amount")
    # As the column holds it, so that what the audit records is what the database reads back.
    return amount.quantize(AMOUNT_PLACES)


def _date(field: str):
    def check(raw) -> dt.date | None:
        if raw is None or raw == "":
            return None
        if isinstance(raw, dt.date):
            return raw
        try:
            parsed = parse_date(str(raw).strip())
        except ValueError:
            parsed = None
        if parsed is None:
            raise CorrectionRefused(f"{field}: {raw!r} is not a date (YYYY-MM-DD)")
        return parsed

    return check


def _basis(raw) -> str:
    value = str(raw or "").strip()
    if value in ValidityBasis._value2member_map_:
        return value
    names = ", ".join(repr(b.value) for b in ValidityBasis)
    raise CorrectionRefused(f"validity_basis: {value!r} is not one of {names}")


def _figures(raw) -> list[dict]:
    try:
        return figures_checked(raw if raw is not None else [])
    except ValueError as exc:
        raise CorrectionRefused(f"figures: {exc}") from None


def _offset(field: str):
    def check(raw) -> int:
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise CorrectionRefused(f"{field}: {raw!r} is not a character offset") from None

    return check


def _applicability(raw) -> dict:
    try:
        return applicability_checked(raw if raw is not None else {})
    except ValueError as exc:
        raise CorrectionRefused(f"applicability: {exc}") from None


CHECKS = {
    "text": _text,
    "unit_type": _choice("unit_type", AtomicUnit.Type, blank=False),
    "value_amount": _amount,
    "value_unit": _choice("value_unit", AtomicUnit.ValueUnit, blank=True),
    "value_period": _choice("value_period", AtomicUnit.Period, blank=True),
    "figures": _figures,
    "valid_from": _date("valid_from"),
    "valid_to": _date("valid_to"),
    "validity_basis": _basis,
    "evidence_start": _offset("evidence_start"),
    "evidence_end": _offset("evidence_end"),
    "applicability": _applicability,
}


def _evidence(unit: AtomicUnit, values: dict) -> dict:
    """The quote the offsets select on the unit's page snapshot, trimmed of the blanks at its
    ends, with its offsets recomputed: it is the page's text by construction, so verified."""
    page = unit.snapshot.text
    start = values.get("evidence_start", unit.evidence_start)
    end = values.get("evidence_end", unit.evidence_end)
    if not 0 <= start < end <= len(page):
        raise CorrectionRefused(
            f"evidence_start: the quote {start}–{end} is not inside the page "
            f"(0–{len(page)} characters)"
        )
    quote = page[start:end]
    start += len(quote) - len(quote.lstrip())
    end -= len(quote) - len(quote.rstrip())
    if end <= start:
        raise CorrectionRefused("evidence_start: the quote selects only blanks")
    return {
        "evidence_start": start,
        "evidence_end": end,
        "evidence_quote": page[start:end],
        "evidence_verified": True,
    }


def _check_together(unit: dict) -> None:
    if unit["value_amount"] is not None and not unit["value_unit"]:
        raise CorrectionRefused("value_unit: an amount needs its unit (£, %, weeks, …)")
    if unit["value_amount"] is None and (unit["value_unit"] or unit["value_period"]):
        raise CorrectionRefused("value_amount: a unit or period needs an amount")
    valid_from, valid_to = unit["valid_from"], unit["valid_to"]
    if valid_from and valid_to and valid_from > valid_to:
        raise CorrectionRefused(f"valid_to: {valid_to} is before valid_from {valid_from}")


def active_concept(taxonomy_id) -> Concept:
    name = str(taxonomy_id or "").strip()
    concept = Concept.objects.filter(taxonomy_id=name).first()
    if concept is None:
        alias = ConceptAlias.objects.filter(alias=name).select_related("concept").first()
        concept = alias.concept if alias else None
    if concept is None:
        raise CorrectionRefused(f"concept: no concept {name!r}")
    if concept.status != Concept.Status.ACTIVE:
        raise CorrectionRefused(f"concept: {concept.taxonomy_id} is {concept.status}, not active")
    return concept
