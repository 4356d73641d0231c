"""Replaying a directory of page captures as successive refreshes: the oldest capture of
every page first, then each page's next capture, and so on. Each step stores its captures
(a newer version re-verifies the page's units), extracts and embeds what is new, and counts
what freshness did; the end checks that nothing served by default quotes text its page's
current version no longer holds."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from knowledge import govuk
from knowledge.models import AtomicUnit, Source
from knowledge.services.embed import units_embed
from knowledge.services.extract import ExtractionFailed, snapshot_extract
from knowledge.services.ingest import Outcome, page_file_order, page_store
from knowledge.text.evidence import locate_quote


@dataclass
class ReplayStep:
    number: int
    pages: int = 0
    changed: int = 0
    confirmed: int = 0
    moved: int = 0
    unconfirmed: int = 0
    new_units: int = 0
    concepts_to_review: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)


def capture_steps(root: Path) -> list[list[str]]:
    """The page files of `root` as refresh steps: step k holds the k-th oldest capture of
    every page that has at least k."""
    source = govuk.LocalDirectorySource(root)
    by_page: dict[str, list[tuple[tuple, str]]] = defaultdict(list)
    for name in source.names():
        try:
            url = source.fetch(name).url
        except govuk.FetchError:
            continue  # reported when the step stores it
        by_page[url].append((page_file_order(source, name), name))
    ordered = [[name for _, name in sorted(captures)] for captures in by_page.values()]
    depth = max((len(captures) for captures in ordered), default=0)
    return [[c[k] for c in ordered if len(c) > k] for k in range(depth)]


def replay_step(*, root: Path, names: list[str], number: int) -> ReplayStep:
    source = govuk.LocalDirectorySource(root)
    step = ReplayStep(number=number, pages=len(names))
    stored_snapshots = []
    for name in names:
        try:
            stored = page_store(document=source.fetch(name))
        except govuk.FetchError as exc:
            step.failures.append(str(exc))
            continue
        if stored.outcome in (Outcome.NEW, Outcome.CHANGED):
            stored_snapshots.append(stored.snapshot.pk)
        if stored.outcome == Outcome.CHANGED:
            step.changed += 1
        if stored.reverified is not None:
            step.confirmed += stored.reverified.confirmed
            step.moved += stored.reverified.moved
            step.unconfirmed += len(stored.reverified.unconfirmed)
            step.concepts_to_review |= stored.reverified.concepts_touched
    before = AtomicUnit.objects.count()
    for snapshot_id in stored_snapshots:
        try:
            snapshot_extract(snapshot_id=snapshot_id)
        except ExtractionFailed as exc:
            step.failures.append(f"snapshot {snapshot_id}: {exc}")
    step.new_units = AtomicUnit.objects.count() - before
    units_embed()
    return step


def served_without_quote() -> list[int]:
    """Units served by default (live, not unconfirmed) whose quote the current version of
    their page does not hold: what freshness exists to prevent."""
    current = dict(Source.objects.values_list("pk", "current_snapshot__text"))
    missing = []
    units = AtomicUnit.objects.alive().filter(unconfirmed_at__isnull=True)
    for unit_id, source_id, snapshot_id, quote, current_id in units.values_list(
        "pk", "source_id", "snapshot_id", "evidence_quote", "source__current_snapshot_id"
    ):
        if snapshot_id == current_id:
            continue
        if locate_quote(quote, current.get(source_id) or "") is None:
            missing.append(unit_id)
    return missing


def unconfirmed_with_changed_figure() -> tuple[int, int]:
    """(unconfirmed units with an amount, those whose concept holds a confirmed unit of the
    same page with another amount): figures that really changed rather than reworded."""
    unconfirmed = AtomicUnit.objects.alive().filter(
        unconfirmed_at__isnull=False, value_amount__isnull=False
    )
    confirmed = defaultdict(set)
    for concept_id, source_id, amount in (
        AtomicUnit.objects.alive()
        .filter(unconfirmed_at__isnull=True, value_amount__isnull=False)
        .values_list("concept_id", "source_id", "value_amount")
    ):
        confirmed[(concept_id, source_id)].add(amount)
    changed = sum(
        1
        for concept_id, source_id, amount in unconfirmed.values_list(
            "concept_id", "source_id", "value_amount"
        )
        if confirmed[(concept_id, source_id)] - {amount}
    )
    return unconfirmed.count(), changed
