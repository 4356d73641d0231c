"""Extraction proposals checked against their snapshot and stored: a valid proposal bound to
an active concept becomes a unit with verified evidence; anything else is kept as an
extraction item with its reason (rejected, or unassigned for triage).

Checks: the unit type is known, the evidence quote is found in the snapshot text (its offsets
kept), the dates are ISO and sane, an amount has its unit and fits the column, and the
concept (or an alias of it) exists and is active.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from decimal import Decimal
from typing import get_args

from django.db.models import Max

from knowledge.domain.extraction import ValidityBasis, ValuePeriod, ValueUnit
from knowledge.extraction.dating import is_yearly_figure, states_money, unit_dating
from knowledge.models import (
    AtomicUnit,
    Concept,
    ConceptAlias,
    ExtractionItem,
    ExtractionRun,
    PageSnapshot,
)
from knowledge.providers import UnitProposal
from knowledge.text.evidence import locate_quote

EARLIEST, LATEST = dt.date(1990, 1, 1), dt.date(2100, 12, 31)
MAX_AMOUNT = Decimal(10) ** 12  # AtomicUnit.value_amount holds 12 digits before the point
REJECTED = ExtractionItem.Kind.REJECTED


@dataclass
class Checked:
    kind: str  # "" when valid and bound
    reason_code: str = ""
    reason: str = ""
    concept: Concept | None = None
    start: int | None = None
    end: int | None = None
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    validity_basis: str = ValidityBasis.OPEN


def validate_proposal(proposal: UnitProposal, *, snapshot: PageSnapshot) -> Checked:
    """What becomes of a proposal: kind "" (a unit), rejected or unassigned, with the reason,
    and the quote's offsets in the snapshot text once it is found."""
    if proposal.unit_type not in AtomicUnit.Type.values:
        return Checked(REJECTED, "bad_type", f"unknown unit type {proposal.unit_type!r}")
    if not proposal.text.strip():
        return Checked(REJECTED, "empty_text", "the unit has no text")
    located = locate_quote(proposal.evidence_quote, snapshot.text)
    if located is None:
        return Checked(REJECTED, "quote_not_found", "the evidence quote is not in the page text")
    where = {"start": located.start, "end": located.end}
    try:
        valid_from, valid_to = _date(proposal.valid_from), _date(proposal.valid_to)
    except ValueError as exc:
        return Checked(REJECTED, "bad_date", str(exc), **where)
    if valid_from and valid_to and valid_from > valid_to:
        return Checked(
            REJECTED, "reversed_dates", f"valid_from {valid_from} is after valid_to {valid_to}"
        )
    amount_problem = _amount_problem(proposal)
    if amount_problem:
        return Checked(REJECTED, *amount_problem, **where)
    try:
        proposal.figures = figures_checked(proposal.figures)
    except ValueError as exc:
        return Checked(REJECTED, "bad_figures", str(exc), **where)
    checked = _concept_bound(
        Checked("", **where, valid_from=valid_from, valid_to=valid_to), proposal.concept_id
    )
    if checked.concept is not None and not checked.kind:
        _dated(checked, proposal, snapshot)
    return checked


def _dated(checked: Checked, proposal: UnitProposal, snapshot: PageSnapshot) -> None:
    """The unit's validity by the dating policy, which needs its concept: whether its figures
    are set each year."""
    dating = unit_dating(
        stated=(checked.valid_from, checked.valid_to),
        basis=proposal.validity_basis,
        yearly_figure=is_yearly_figure(
            checked.concept,
            proposal.value_amount,
            proposal.value_unit or "",
            proposal.figures,
            proposal.text,
        ),
        snapshot=snapshot,
        money_figure=states_money(
            proposal.value_amount, proposal.value_unit or "", proposal.figures
        ),
    )
    checked.valid_from, checked.valid_to = dating.valid_from, dating.valid_to
    checked.validity_basis = dating.basis


def _amount_problem(proposal: UnitProposal) -> tuple[str, str] | None:
    if proposal.value_amount is None:
        return None
    if not proposal.value_unit:
        return "amount_without_unit", "an amount needs its unit"
    if not abs(proposal.value_amount) < MAX_AMOUNT:
        return (
            "amount_out_of_range",
            f"amount {proposal.value_amount} is not below {MAX_AMOUNT:,}",
        )
    return None


MAX_ROLE_LENGTH = 40


def figures_checked(figures) -> list[dict]:
    """A statement's other figures as stored (AtomicUnit.figures), each checked: an amount
    that is a decimal within the column's range, a unit of ValueUnit, a period of ValuePeriod
    or none, a short role. Raises ValueError naming the first figure that is wrong."""
    if not isinstance(figures, list):
        raise ValueError(f"figures must be a list, not {type(figures).__name__}")
    return [_figure_checked(number, figure) for number, figure in enumerate(figures, 1)]


def _figure_checked(number: int, figure) -> dict:
    where = f"figure {number}"
    if not isinstance(figure, dict):
        raise ValueError(f"{where} is not an object")
    try:
        amount = Decimal(str(figure.get("amount")))
    except ArithmeticError:
        raise ValueError(f"{where}: amount {figure.get('amount')!r} is not a number") from None
    if not amount.is_finite() or not abs(amount) < MAX_AMOUNT:
        raise ValueError(f"{where}: amount {figure.get('amount')!r} is not a usable number")
    unit, period = figure.get("unit"), figure.get("period") or ""
    if unit not in get_args(ValueUnit):
        raise ValueError(f"{where}: unit {unit!r} is not one of {', '.join(get_args(ValueUnit))}")
    if period and period not in get_args(ValuePeriod):
        raise ValueError(
            f"{where}: period {period!r} is not one of {', '.join(get_args(ValuePeriod))}"
        )
    role = figure.get("role")
    if not isinstance(role, str) or not role.strip() or len(role.strip()) > MAX_ROLE_LENGTH:
        raise ValueError(
            f"{where}: role {role!r} must be a word or two (up to {MAX_ROLE_LENGTH} characters)"
        )
    printed = figure.get("printed") or ""
    return {
        "amount": f"{amount.normalize():f}",
        "unit": unit,
        "period": period,
        "role": role.strip(),
        "printed": str(printed)[:40],
    }


def _concept_bound(checked: Checked, concept_id: str | None) -> Checked:
    """A checked proposal bound to its active concept, sent to triage without one, or
    rejected for naming a concept that is unknown or not active."""
    if concept_id is None:
        checked.kind, checked.reason_code = ExtractionItem.Kind.UNASSIGNED, "no_confident_concept"
        checked.reason = "no concept beat the runner-up by the binding margin"
        return checked
    concept = resolve_active_concept(concept_id)
    if concept is None:
        return Checked(
            REJECTED,
            "unknown_concept",
            f"unknown concept {concept_id!r}",
            start=checked.start,
            end=checked.end,
        )
    checked.concept = concept
    return checked


def resolve_active_concept(taxonomy_id: str) -> Concept | None:
    concept = Concept.objects.filter(taxonomy_id=taxonomy_id).first()
    if concept is None:
        alias = ConceptAlias.objects.filter(alias=taxonomy_id).select_related("concept").first()
        concept = alias.concept if alias else None
    return concept if concept and concept.status == Concept.Status.ACTIVE else None


def _date(value: str | None) -> dt.date | None:
    if value in (None, ""):
        return None
    try:
        day = dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not an ISO date (YYYY-MM-DD)") from None
    if not EARLIEST <= day <= LATEST:
        raise ValueError(f"{day} is outside 1990-2100")
    return day


def fingerprint(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


def checked_proposals_store(
    *, run: ExtractionRun, snapshot: PageSnapshot, proposals: list[UnitProposal], checked
) -> dict[int, AtomicUnit]:
    """Each valid, bound proposal as a unit with verified evidence (numbered after its
    concept's last unit), the rest as review items; examples linked to the unit they
    illustrate. Returns the units by proposal index. Call inside a transaction: the
    concepts are locked while their ordinals are taken."""
    units: dict[int, AtomicUnit] = {}
    concepts = {c.concept.pk for c in checked if c.concept is not None}
    next_ordinal = _next_ordinals(concepts)
    # Units an earlier version of the page stated, confirmed on this one and moved onto it:
    # the same statement extracted again is not a second unit.
    held = set(
        AtomicUnit.objects.alive()
        .filter(snapshot=snapshot)
        .values_list("concept_id", "fingerprint")
    )
    # What an expert corrected stays as they left it: a finding on its quote is not a second
    # unit beside it.
    corrected = quote_spans(
        AtomicUnit.objects.alive().filter(source_id=snapshot.source_id, corrected_at__isnull=False),
        snapshot,
    )
    for index, (proposal, check) in enumerate(zip(proposals, checked, strict=True)):
        if check.kind:
            _item_store(run, snapshot, proposal, check)
            continue
        if (check.concept.pk, fingerprint(proposal.text)) in held:
            continue
        if overlapping(corrected, check.start, check.end) is not None:
            continue
        if check.validity_basis == ValidityBasis.CAPTURE and _capture_widened(
            snapshot, proposal, check
        ):
            continue
        ordinal = next_ordinal[check.concept.pk]
        next_ordinal[check.concept.pk] += 1
        units[index] = _unit_create(run, snapshot, proposal, check, ordinal)
    _examples_link(proposals, units)
    return units


def quote_spans(units, snapshot: PageSnapshot) -> list[tuple[AtomicUnit, int, int]]:
    """(unit, start, end) of where each unit stands in `snapshot`'s text: its quote at its
    own offsets on it, else where its quote is found in this version; and, for a unit an
    expert corrected, where the machine's own quote of it is (a finding there is the
    statement the expert corrected). Units whose quotes this version does not hold are left
    out."""
    spans = []
    for unit in units:
        quotes = [unit.evidence_quote, (unit.machine_version or {}).get("evidence_quote")]
        if unit.snapshot_id == snapshot.pk:
            spans.append((unit, unit.evidence_start, unit.evidence_end))
            quotes = quotes[1:]
        for quote in filter(None, quotes):
            found = locate_quote(quote, snapshot.text)
            if found is not None and found.exact:
                spans.append((unit, found.start, found.end))
    return spans


def overlapping(spans: list[tuple], start: int, end: int) -> AtomicUnit | None:
    """The first unit of `spans` whose span overlaps start–end, or None."""
    return next((unit for unit, first, last in spans if first < end and start < last), None)


def _capture_widened(snapshot: PageSnapshot, proposal: UnitProposal, check: Checked) -> bool:
    """A yearly figure another capture of the same page printed too is one unit valid over
    both captures' years, not one unit a year: the unit held already is widened (and moved
    onto this capture when it is the page's current one). False when none is held."""
    held = (
        AtomicUnit.objects.alive()
        .filter(
            source_id=snapshot.source_id,
            concept=check.concept,
            fingerprint=fingerprint(proposal.text),
            validity_basis=ValidityBasis.CAPTURE,
            corrected_at__isnull=True,  # an expert's quote and dates stay as they left them
        )
        .exclude(snapshot=snapshot)
        .select_for_update()
        .first()
    )
    if held is None:
        return False
    held.valid_from = min(held.valid_from or check.valid_from, check.valid_from)
    held.valid_to = max(held.valid_to or check.valid_to, check.valid_to)
    fields = ["valid_from", "valid_to", "updated_at"]
    if snapshot.source.current_snapshot_id == snapshot.pk:
        held.snapshot, held.evidence_start, held.evidence_end = snapshot, check.start, check.end
        held.evidence_quote = snapshot.text[check.start : check.end]
        fields += ["snapshot", "evidence_start", "evidence_end", "evidence_quote"]
    held.save(update_fields=fields)
    return True


def _unit_create(run, snapshot, proposal: UnitProposal, check: Checked, ordinal: int):
    return AtomicUnit.objects.create(
        concept=check.concept,
        ordinal=ordinal,
        unit_type=proposal.unit_type,
        text=proposal.text.strip(),
        value_amount=proposal.value_amount,
        value_unit=proposal.value_unit or "",
        value_period=proposal.value_period or "",
        figures=proposal.figures,
        valid_from=check.valid_from,
        valid_to=check.valid_to,
        source=snapshot.source,
        snapshot=snapshot,
        evidence_quote=snapshot.text[check.start : check.end],
        evidence_start=check.start,
        evidence_end=check.end,
        evidence_verified=True,
        provider=run.provider,
        provider_model=run.model,
        extraction_run=run,
        validity_basis=check.validity_basis,
        fingerprint=fingerprint(proposal.text),
        applicability=proposal.applicability or {},
    )


def _examples_link(proposals: list[UnitProposal], units: dict[int, AtomicUnit]) -> None:
    """An example points at the unit it illustrates, when that one was stored too."""
    for index, unit in units.items():
        target = proposals[index].example_of
        if proposals[index].unit_type == "example" and target in units and target != index:
            AtomicUnit.objects.filter(pk=unit.pk).update(example_of=units[target])


def _next_ordinals(concept_ids: set[int]) -> dict[int, int]:
    list(Concept.objects.select_for_update().filter(pk__in=concept_ids).order_by("pk"))  # lock
    highest = dict(
        AtomicUnit.objects.filter(concept_id__in=concept_ids)
        .values_list("concept_id")
        .annotate(top=Max("ordinal"))
    )
    return {concept_id: (highest.get(concept_id) or 0) + 1 for concept_id in concept_ids}


def _item_store(run, snapshot, proposal: UnitProposal, check: Checked) -> None:
    ExtractionItem.objects.create(
        run=run,
        snapshot=snapshot,
        kind=check.kind,
        reason_code=check.reason_code,
        reason=check.reason,
        proposal=proposal.as_json(),
        evidence_start=check.start,
        evidence_end=check.end,
        candidates=[[concept, round(score, 4)] for concept, score in proposal.candidates],
    )
