"""Superseding chains of the threshold gold: consecutive printed values of one fact.

Units are paired by amount and category only (any dates), since superseding is what should
correct an older unit's open end. `chain_steps` feeds curation's superseding report;
`chain_checks` says, in the threshold report, whether each step is marked in the database.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from itertools import pairwise
from pathlib import Path

from evaluation.thresholds.gold import gold_load
from evaluation.thresholds.scoring import Outcome, outcomes_score, targets_build, threshold_units


def consecutive_outcomes(outcomes: list[Outcome]) -> list[tuple[Outcome, Outcome]]:
    """(older, newer) outcomes of consecutive printed values of each fact."""
    by_fact: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_fact[outcome.target.fact.fact_id].append(outcome)
    steps = []
    for items in by_fact.values():
        items.sort(key=lambda o: o.target.value.valid_from)
        steps.extend(pairwise(items))
    return steps


@dataclass(frozen=True)
class ChainCheck:
    fact_id: str
    older_value: Decimal
    older_valid_from: dt.date
    newer_value: Decimal
    newer_valid_from: dt.date
    older_units: int
    newer_units: int
    marked: bool


def chain_checks(outcomes: list[Outcome]) -> tuple[ChainCheck, ...]:
    """For each chain step: is an older unit superseded by a newer one in the newer value's
    year?"""
    return tuple(_chain_check(older, newer) for older, newer in consecutive_outcomes(outcomes))


def _chain_check(older: Outcome, newer: Outcome) -> ChainCheck:
    newer_ids = {u.id for u in newer.candidates}
    year = newer.target.year_of(newer.target.value.valid_from)
    marked = any(
        u.superseded_by in newer_ids
        and u.superseded_date is not None
        and newer.target.year_of(u.superseded_date) == year
        for u in older.candidates
    )
    return ChainCheck(
        fact_id=older.target.fact.fact_id,
        older_value=older.target.value.value,
        older_valid_from=older.target.value.valid_from,
        newer_value=newer.target.value.value,
        newer_valid_from=newer.target.value.valid_from,
        older_units=len(older.candidates),
        newer_units=len(newer.candidates),
        marked=marked,
    )


@dataclass(frozen=True)
class ChainStep:
    """One step of a gold superseding chain, with the units holding each end's amount
    (by amount and category only, any dates)."""

    fact_id: str
    older_value: Decimal
    older_valid_from: dt.date
    newer_value: Decimal
    newer_valid_from: dt.date
    older_unit_ids: frozenset[int]
    newer_unit_ids: frozenset[int]


def chain_steps(*, gold_path: Path) -> list[ChainStep]:
    """Every step (consecutive printed values of one fact) of the gold's chains, with the
    alive threshold units that hold each value: what a superseding proposal should pair."""
    targets = targets_build(facts=gold_load(path=gold_path))
    outcomes = outcomes_score(targets=targets, units=threshold_units())
    return [
        ChainStep(
            fact_id=older.target.fact.fact_id,
            older_value=older.target.value.value,
            older_valid_from=older.target.value.valid_from,
            newer_value=newer.target.value.value,
            newer_valid_from=newer.target.value.valid_from,
            older_unit_ids=frozenset(u.id for u in older.candidates),
            newer_unit_ids=frozenset(u.id for u in newer.candidates),
        )
        for older, newer in consecutive_outcomes(outcomes)
    ]
