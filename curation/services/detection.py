"""The superseding detector: inside each concept, which newer unit replaces which older one?

Each unit not yet compared (alive, with a vector, no `UnitDetectorCheck` row) is paired with
every other alive unit of its concept. A pair goes through a funnel, and the run counts what
each stage lets through:

1. already a candidate in any status (a rejected pair is never proposed again) → `pairs_known`;
2. texts alike above SUPERSEDING_DUPLICATE_SIMILARITY *and* stating the same figures and
   dates → a duplicate (`dropped_duplicates`), left to the dedup job;
3. embedding cosine below SUPERSEDING_MIN_COSINE → `below_cosine`;
4. which unit is newer is decided from validity and page versions (`unit_order`), never by a model;
   when nothing tells them apart (e.g. two values on one page at one time are two rules)
   → `order_undecidable`;
5. the provider adjudicates "same rule at different times?" → `adjudicated_not_same`,
   `adjudication_errors` (the pair is retried next run), or a pending candidate (`proposed`).
   A newer unit replaces at most one older unit, so its partners are asked nearest in time
   first and the first "same rule" is proposed; the farther ones are older versions of that
   one and are not asked. Nor is anything asked for a unit whose text an older unit states
   already (a duplicate dated earlier): that copy is its predecessor. DetectionRun has no
   column for these pairs: they are what is left of `pairs_considered` after every other
   stage (`farther_pairs`).

Candidates and check rows of a concept are written in one transaction. Running twice proposes
nothing new; concurrent runs cannot store a pair twice (the unordered-pair constraint; a
conflict counts as known). A run that crashes is marked failed, never left running.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from curation.models import DetectionRun, SupersedingCandidate, UnitDetectorCheck
from curation.services.detector_units import (
    DetectorUnit,
    Order,
    concept_detector_units,
    detection_concept_ids,
    known_pairs,
    unit_order,
    unit_recency,
)
from knowledge.providers import (
    Provider,
    ProviderError,
    ProviderTransientError,
    get_provider,
)
from knowledge.text.compare import near_identical, text_similarity

FUNNEL = (
    "concepts_checked",
    "new_units",
    "pairs_considered",
    "pairs_known",
    "dropped_duplicates",
    "below_cosine",
    "order_undecidable",
    "adjudicated_not_same",
    "adjudication_errors",
    "proposed",
)
# An endpoint that keeps failing (after the client's own retries) fails the run instead of
# being asked about every remaining pair.
MAX_CONSECUTIVE_TRANSIENT_ERRORS = 10
_PAIR_CONSTRAINT = "candidate_pair_once"


class DetectionFailed(Exception):
    def __init__(self, run: DetectionRun):
        super().__init__(run.error)
        self.run = run


@dataclass(frozen=True)
class Pair:
    """A pair that passed the cheap stages, ordered, waiting for adjudication."""

    order: Order
    similarity: float
    cosine: float


@dataclass(frozen=True)
class Screened:
    """Where a pair stopped among the cheap stages ('ordered' when it passed them all)."""

    stage: str  # duplicate | below_cosine | undecidable | ordered
    order: Order | None = None
    pair: Pair | None = None


_STAGE_COUNTERS = {
    "duplicate": "dropped_duplicates",
    "below_cosine": "below_cosine",
    "undecidable": "order_undecidable",
}


@dataclass
class _Pass:
    run: DetectionRun
    adjudicator: Provider
    duplicate_similarity: float
    min_cosine: float
    consecutive_errors: int = 0


# --- the service ------------------------------------------------------------------------------


def superseding_detect(
    *,
    concept_id: int | None = None,
    provider: str | Provider | None = None,
    recheck: bool = False,
    progress: Callable[[int], None] | None = None,
) -> DetectionRun:
    """One detector run over every concept with new units (or one concept). `recheck`
    compares every unit again (known pairs are still skipped). Raises ProviderError for an
    unknown provider (before any run exists) and DetectionFailed when the run failed."""
    adjudicator = (
        provider if hasattr(provider, "adjudicate_superseding") else get_provider(provider)
    )
    run = DetectionRun.objects.create(
        provider=adjudicator.name,
        provider_model=getattr(adjudicator, "adjudicate_model", ""),
        concept_id=concept_id,
    )
    work = _Pass(
        run=run,
        adjudicator=adjudicator,
        duplicate_similarity=settings.SUPERSEDING_DUPLICATE_SIMILARITY,
        min_cosine=settings.SUPERSEDING_MIN_COSINE,
    )
    try:
        for concept in detection_concept_ids(concept_id=concept_id, recheck=recheck):
            _concept_detect(work=work, concept_id=concept, recheck=recheck)
            if progress:
                progress(1)
    except BaseException as exc:  # an interrupted run must not stay "running" either
        _run_finish(run, status=DetectionRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        if isinstance(exc, Exception):
            raise DetectionFailed(run) from exc
        raise
    _run_finish(run, status=DetectionRun.Status.DONE)
    return run


def _run_finish(run: DetectionRun, *, status: str, error: str = "") -> None:
    run.status, run.error, run.finished_at = status, error[:4000], timezone.now()
    run.save(
        update_fields=[
            *FUNNEL,
            "prompt_tokens",
            "completion_tokens",
            "status",
            "error",
            "finished_at",
        ]
    )


def _concept_detect(*, work: _Pass, concept_id: int, recheck: bool) -> None:
    units = concept_detector_units(concept_id=concept_id)
    new = [unit for unit in units if recheck or not unit.checked]
    if not new:
        return
    run = work.run
    run.concepts_checked += 1
    run.new_units += len(new)
    known = known_pairs(unit_ids=[unit.id for unit in units])
    this_run: dict[frozenset[int], Screened] = {}
    for a, b in _pairs(new, units):
        run.pairs_considered += 1
        key = frozenset((a.id, b.id))
        if key in known:
            run.pairs_known += 1
            continue
        this_run[key] = screened = _screen(work=work, a=a, b=b)
        if screened.stage in _STAGE_COUNTERS:
            field = _STAGE_COUNTERS[screened.stage]
            setattr(run, field, getattr(run, field) + 1)
    newers = {s.pair.order.newer for s in this_run.values() if s.pair is not None}
    proposals, failed = [], set()
    for newer in sorted(newers, key=lambda unit: unit.id):
        candidate, errors = _predecessor(
            work=work, newer=newer, units=units, this_run=this_run, known=known
        )
        proposals.extend([candidate] if candidate else [])
        failed.update(errors)
    with transaction.atomic():
        for candidate in proposals:
            if _candidate_store(candidate):
                run.proposed += 1
            else:
                run.pairs_known += 1  # another run stored it meanwhile
        checked = [unit.id for unit in new if unit.id not in failed]
        _checks_store(run=run, unit_ids=checked)
        run.save(update_fields=[*FUNNEL, "prompt_tokens", "completion_tokens"])


def _pairs(new: list[DetectorUnit], units: list[DetectorUnit]):
    """Every unordered pair with at least one new unit, once."""
    new_ids = {unit.id for unit in new}
    for a in new:
        for b in units:
            if b.id != a.id and not (b.id in new_ids and b.id < a.id):
                yield a, b


def _screen(*, work: _Pass, a: DetectorUnit, b: DetectorUnit) -> Screened:
    """The cheap stages (duplicate, cosine, order) for one pair; counts nothing."""
    if near_identical(a.text.text, b.text.text, threshold=work.duplicate_similarity):
        return Screened("duplicate", order=unit_order(a, b))
    similarity = text_similarity(a.text.text, b.text.text)
    cosine = float(np.dot(a.vector, b.vector))
    if cosine < work.min_cosine:
        return Screened("below_cosine")
    order = unit_order(a, b)
    if order is None:
        return Screened("undecidable")
    return Screened("ordered", order=order, pair=Pair(order, similarity, cosine))


def _predecessor(
    *,
    work: _Pass,
    newer: DetectorUnit,
    units: list[DetectorUnit],
    this_run: dict[frozenset[int], Screened],
    known: dict[frozenset[int], str],
) -> tuple[SupersedingCandidate | None, set[int]]:
    """One newer unit replaces at most one older: walk its older partners nearest in time
    first (the most alike first among equals) and propose the first one the adjudicator
    calls the same rule. The walk stops early at a pair proposed or approved before, and
    does not start for a unit whose text an older unit states already (that copy is its
    predecessor). Pairs judged in an earlier run are passed over, not asked again. Returns
    the proposal and the ids of units whose adjudication failed (retried next run)."""
    partners = []
    for other in units:
        key = frozenset((other.id, newer.id))
        if other is newer:
            continue
        screened = this_run.get(key) or _screen(work=work, a=other, b=newer)
        if screened.order is not None and screened.order.newer is newer:
            if screened.stage == "duplicate":
                return None, set()
            partners.append((screened.pair, key))
    partners.sort(
        key=lambda item: (unit_recency(item[0].order.older), item[0].similarity, item[0].cosine),
        reverse=True,
    )
    failed: set[int] = set()
    for pair, key in partners:
        if key in known:
            if known[key] == SupersedingCandidate.Status.REJECTED:
                continue
            break  # this older version is proposed or approved already
        if key not in this_run:
            continue  # judged in an earlier run: not the same rule
        try:
            candidate = _adjudicate(work=work, pair=pair)
        except ProviderError as exc:
            _adjudication_error(work, exc)
            failed.update({pair.order.older.id, pair.order.newer.id})
            continue
        if candidate is not None:
            return candidate, failed
    return None, failed


def _adjudicate(*, work: _Pass, pair: Pair) -> SupersedingCandidate | None:
    run, order = work.run, pair.order
    verdict = work.adjudicator.adjudicate_superseding(
        older=order.older.text, newer=order.newer.text
    )
    work.consecutive_errors = 0
    run.prompt_tokens += verdict.usage.prompt_tokens
    run.completion_tokens += verdict.usage.completion_tokens
    if not verdict.same_rule:
        run.adjudicated_not_same += 1
        return None
    return SupersedingCandidate(
        older_id=order.older.id,
        newer_id=order.newer.id,
        concept_id=order.older.concept_id,
        text_similarity=round(pair.similarity, 4),
        cosine=round(pair.cosine, 4),
        same_rule=True,
        confidence=min(max(float(verdict.confidence), 0.0), 1.0),
        rationale=verdict.rationale,
        adjudicator=work.adjudicator.name,
        adjudicator_model=verdict.usage.model,
        newer_basis=order.basis,
        run=run,
    )


def _adjudication_error(work: _Pass, exc: ProviderError) -> None:
    work.run.adjudication_errors += 1
    if not isinstance(exc, ProviderTransientError):
        work.consecutive_errors = 0
        return
    work.consecutive_errors += 1
    if work.consecutive_errors >= MAX_CONSECUTIVE_TRANSIENT_ERRORS:
        raise RuntimeError(
            f"the adjudicator failed {work.consecutive_errors} times in a row; last: {exc.reason}"
        ) from exc


def _candidate_store(candidate: SupersedingCandidate) -> bool:
    """Insert one candidate in a savepoint; False when the pair exists already."""
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError as exc:
        if _PAIR_CONSTRAINT not in str(exc):
            raise
        return False
    return True


def _checks_store(*, run: DetectionRun, unit_ids: list[int]) -> None:
    UnitDetectorCheck.objects.bulk_create(
        [UnitDetectorCheck(unit_id=unit_id, run=run) for unit_id in unit_ids],
        update_conflicts=True,
        unique_fields=["unit"],
        update_fields=["run"],
    )


def detector_checks_clear(*, unit_ids: list[int]) -> int:
    """Make the detector compare these units again on its next run (e.g. after they moved to
    another concept). Pairs already proposed or decided stay known."""
    deleted, _ = UnitDetectorCheck.objects.filter(unit_id__in=unit_ids).delete()
    return deleted


def farther_pairs(run: DetectionRun) -> int:
    """Pairs not adjudicated because the newer unit has a nearer predecessor already (a
    same-rule pair proposed in this run, or an older copy of its text)."""
    stopped = sum(getattr(run, name) for name in FUNNEL[3:])
    return run.pairs_considered - stopped


def run_funnel(run: DetectionRun) -> list[tuple[str, int]]:
    """(stage, count) rows in funnel order, for the CLI and the admin."""
    rows = [(name.replace("_", " "), getattr(run, name)) for name in FUNNEL]
    return [*rows[:8], ("farther pairs", farther_pairs(run)), *rows[8:]]
