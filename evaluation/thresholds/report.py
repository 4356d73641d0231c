"""Threshold-extraction evaluation against the shared gold: the report.

Implements "How to score threshold extraction" in `../shared/eval/README.md`: value recall
overall and per category, the misses with their reason, dating errors (right amount and
category, wrong dates) and the superseding chains. Reads the gold file and the database;
writes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from evaluation.thresholds.chains import ChainCheck, chain_checks
from evaluation.thresholds.gold import gold_load
from evaluation.thresholds.scoring import (
    Outcome,
    UnitRecord,
    outcomes_score,
    targets_build,
    threshold_units,
)
from knowledge.domain.extraction import ValidityBasis

# Units dated by their page's capture (a yearly figure printed with no year: the page file's
# figures period, the collector's inference, or the capture day), not by gov.uk's words.
PAGE_FILE_PERIOD = ValidityBasis.CAPTURE


@dataclass(frozen=True)
class Recall:
    found: int
    total: int
    share: float


@dataclass(frozen=True)
class CategoryRecall:
    category: str
    recall: Recall


@dataclass(frozen=True)
class UnitDates:
    unit_id: int
    valid_from: dt.date | None
    valid_to: dt.date | None
    superseded_date: dt.date | None
    validity_basis: str


@dataclass(frozen=True)
class Miss:
    fact_id: str
    category: str
    value: Decimal
    valid_from: dt.date
    kind: str  # "no_amount" | "other_category" | "dating_error"
    reason: str


@dataclass(frozen=True)
class DatingError:
    fact_id: str
    value: Decimal
    valid_from: dt.date
    valid_to: dt.date | None
    units: tuple[UnitDates, ...]


@dataclass(frozen=True)
class ThresholdReport:
    gold_path: str
    facts: int
    units_considered: int
    recall: Recall
    categories: tuple[CategoryRecall, ...]
    misses: tuple[Miss, ...]
    dating_errors: tuple[DatingError, ...]
    chains: tuple[ChainCheck, ...]
    chains_checked: int
    chains_marked: int
    # The same recall without units dated only by the page file's period (the corpus
    # collector's inference, not gov.uk's words): how much that hint contributes.
    recall_without_page_file_periods: Recall


def threshold_recall(*, gold_path: Path) -> ThresholdReport:
    """Score the knowledge base's threshold units against the threshold gold."""
    facts = gold_load(path=gold_path)
    targets = targets_build(facts=facts)
    units = threshold_units()
    outcomes = outcomes_score(targets=targets, units=units)
    stated = [u for u in units if u.validity_basis != PAGE_FILE_PERIOD]
    chains = chain_checks(outcomes)
    misses = [o for o in outcomes if not o.hits]
    return ThresholdReport(
        gold_path=str(gold_path),
        facts=len(facts),
        units_considered=len(units),
        recall=_recall(outcomes),
        categories=_categories(outcomes),
        misses=tuple(_miss(o) for o in misses),
        dating_errors=tuple(_dating_error(o) for o in misses if o.candidates),
        chains=chains,
        chains_checked=len(chains),
        chains_marked=sum(1 for c in chains if c.marked),
        recall_without_page_file_periods=_recall(outcomes_score(targets=targets, units=stated)),
    )


def _recall(outcomes: Iterable[Outcome]) -> Recall:
    outcomes = list(outcomes)
    found = sum(1 for o in outcomes if o.hits)
    return Recall(
        found=found, total=len(outcomes), share=found / len(outcomes) if outcomes else 0.0
    )


def _categories(outcomes: list[Outcome]) -> tuple[CategoryRecall, ...]:
    grouped: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        grouped[outcome.target.fact.category].append(outcome)
    return tuple(CategoryRecall(name, _recall(items)) for name, items in grouped.items())


def _unit_dates(unit: UnitRecord) -> UnitDates:
    return UnitDates(
        unit.id, unit.valid_from, unit.valid_to, unit.superseded_date, unit.validity_basis
    )


def _dates_text(dates: UnitDates) -> str:
    text = f"unit {dates.unit_id} valid {dates.valid_from or 'open'}..{dates.valid_to or 'open'}"
    if dates.superseded_date:
        text += f", superseded {dates.superseded_date}"
    return text + (f" [{dates.validity_basis}]" if dates.validity_basis else "")


def _miss(outcome: Outcome) -> Miss:
    target = outcome.target
    if outcome.candidates:
        kind = "dating_error"
        dates = "; ".join(_dates_text(_unit_dates(u)) for u in outcome.candidates)
        reason = f"dating error: {dates}"
    elif outcome.elsewhere:
        kind, reason = "other_category", "amount found only under " + ", ".join(outcome.elsewhere)
    else:
        kind, reason = "no_amount", "no threshold unit with that amount"
    return Miss(
        target.fact.fact_id,
        target.fact.category,
        target.value.value,
        target.value.valid_from,
        kind,
        reason,
    )


def _dating_error(outcome: Outcome) -> DatingError:
    value = outcome.target.value
    return DatingError(
        fact_id=outcome.target.fact.fact_id,
        value=value.value,
        valid_from=value.valid_from,
        valid_to=value.valid_to,
        units=tuple(_unit_dates(u) for u in outcome.candidates),
    )
