"""How well the heuristic provider binds units to concepts, measured on the experts' audit
judgements, and whether other binding weights would do better, by cross-validation grouped
by page (a page's units never sit on both sides of a fold).

A judged unit is labelled with its concept when the expert said the concept was right, and
with the concept it was moved to from the audit (or the one the expert's note names) when
not; units judged wrong with no better concept named are left out. Each labelled unit is bound
again from its text, heading and page, among the categories its extraction run allowed. The
judgements come from the audits held here, or from an audit file of judged units.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np

from curation.models import AuditEvent, AuditJudgement
from knowledge.domain.extraction import PageInput, UnitProposal
from knowledge.extraction.binding import BindingWeights, binding_scores
from knowledge.models import AtomicUnit, PageSnapshot
from knowledge.services.extract import taxonomy_for_extraction
from knowledge.text.sections import section_at

_CONCEPT_ID = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)+")


@dataclass(frozen=True)
class LabelledUnit:
    page: PageInput
    proposal: UnitProposal
    allowed: frozenset[str]
    main: str
    label: str


@dataclass(frozen=True)
class MarginRow:
    margin: float
    kept: int
    right: int


@dataclass
class MarginReport:
    """How the binding margin trades bound units for precision: per margin, the labelled
    units still bound (the rest would go to triage) and how many of them are right; and the
    margin chosen on the other folds' pages (the smallest whose precision reaches the target)
    with what it kept and got right on each fold's held-out pages."""

    target: float
    rows: list[MarginRow]
    folds: list[tuple[float, int, int, int]] = field(default_factory=list)

    @property
    def cross_validated(self) -> tuple[int, int, int]:
        """(labelled, kept, right) summed over the held-out folds."""
        return (
            sum(size for *_, size in self.folds),
            sum(kept for _, kept, _, _ in self.folds),
            sum(right for _, _, right, _ in self.folds),
        )


@dataclass
class BindingReport:
    labelled: int
    pages: int
    current_hits: int
    cross_validated_hits: int
    folds: list[tuple[BindingWeights, int, int]] = field(default_factory=list)
    best_in_sample: list[tuple[BindingWeights, int]] = field(default_factory=list)


def binding_labels(*, sample_id: int | None = None) -> list[LabelledUnit]:
    """The judged units with the concept an expert says they belong to."""
    judgements = AuditJudgement.objects.select_related(
        "unit__concept", "unit__source", "unit__snapshot", "unit__extraction_run"
    )
    if sample_id is not None:
        judgements = judgements.filter(sample_id=sample_id)
    known = {concept.taxonomy_id for concept in taxonomy_for_extraction()[1]}
    moves = list(
        AuditEvent.objects.filter(action="unit.move").only("before", "after", "created_at")
    )
    labelled, seen = [], set()
    for judgement in judgements.order_by("unit_id", "-judged_at"):
        unit = judgement.unit
        run = unit.extraction_run
        if unit.pk in seen or run is None or not run.context:
            continue
        seen.add(unit.pk)
        label = _label(judgement, known, moves)
        if label is not None:
            labelled.append(_labelled(unit, run.context, label))
    return labelled


def audit_file_labels(path: Path) -> list[LabelledUnit]:
    """The units of an audit file (one judged unit a line: its concept, text, evidence, page
    and judgement, as `../eval/audits` holds them) with the concept an expert says they
    belong to, placed on the page this knowledge base holds: the newest capture of the unit's
    page that states its evidence, with the categories that capture's extraction allowed.
    Units whose page or evidence this knowledge base does not hold are left out."""
    known = {concept.taxonomy_id for concept in taxonomy_for_extraction()[1]}
    labelled = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            judgement, concept = record["judgement"], record["concept"]
            answer, note = judgement["concept_ok"], judgement.get("note", "")
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{path.name} line {number}: not an audited unit ({error})") from None
        named = [m for m in _CONCEPT_ID.findall(note) if m in known and m != concept]
        label = concept if answer == "yes" else named[0] if answer == "no" and named else None
        found = _captured(record) if label else None
        if found is not None:
            labelled.append(_labelled_record(record, *found, label))
    return labelled


def _captured(record: dict):
    """(snapshot, extraction context) of the newest capture of the record's page that states
    its evidence, or None."""
    snapshots = PageSnapshot.objects.filter(source__url=record["source"]).select_related("source")
    for snapshot in snapshots.order_by("-fetched_at", "-pk"):
        start = snapshot.text.find(record["evidence"])
        run = snapshot.runs.exclude(context={}).order_by("-pk").first()
        if start >= 0 and run is not None:
            return snapshot, start, run.context
    return None


def _labelled_record(record: dict, snapshot, start: int, context: dict, label: str):
    section = section_at(snapshot.sections, start) or {"heading_path": []}
    value = (record.get("value") or "").split()
    proposal = UnitProposal(
        unit_type=record["type"],
        text=record["text"],
        concept_id=None,
        evidence_quote=record["evidence"],
        value_amount=Decimal(value[0]) if value else None,
        value_unit=value[1] if len(value) > 1 else None,
        section=" > ".join(section["heading_path"][-2:]),
    )
    page = PageInput(snapshot.source.title, snapshot.source.url, "", "", [], None, None)
    allowed = frozenset({context["category"], *context.get("related_categories", [])})
    return LabelledUnit(page, proposal, allowed, context["category"], label)


def _label(judgement: AuditJudgement, known: set[str], moves: list[AuditEvent]) -> str | None:
    unit = judgement.unit
    if judgement.concept_right == AuditJudgement.Answer.YES:
        return unit.concept.taxonomy_id
    if judgement.concept_right != AuditJudgement.Answer.NO:
        return None
    later = (event for event in moves if event.created_at >= judgement.judged_at)
    if any(_moved(event, unit.pk) for event in later):
        return unit.concept.taxonomy_id  # moved after the judgement: where it sits now
    named = [m for m in _CONCEPT_ID.findall(judgement.note) if m in known]
    named = [m for m in named if m != unit.concept.taxonomy_id]
    return named[0] if named else None


def _moved(event: AuditEvent, unit_id: int) -> bool:
    """The move changed this unit's concept (renumbered neighbours are in the event too)."""
    before = event.before.get("unit", {}).get(str(unit_id)) or {}
    after = event.after.get("unit", {}).get(str(unit_id)) or {}
    return bool(after) and before.get("concept") != after.get("concept")


def _labelled(unit: AtomicUnit, context: dict, label: str) -> LabelledUnit:
    section = section_at(unit.snapshot.sections, unit.evidence_start) or {"heading_path": []}
    proposal = UnitProposal(
        unit_type=unit.unit_type,
        text=unit.text,
        concept_id=None,
        evidence_quote=unit.evidence_quote,
        value_amount=Decimal(unit.value_amount) if unit.value_amount is not None else None,
        value_unit=unit.value_unit or None,
        section=" > ".join(section["heading_path"][-2:]),
    )
    page = PageInput(unit.source.title, unit.source.url, "", "", [], None, None)
    allowed = frozenset({context["category"], *context.get("related_categories", [])})
    return LabelledUnit(page, proposal, allowed, context["category"], label)


def binding_cross_validation(
    labelled: list[LabelledUnit],
    grid: list[BindingWeights],
    *,
    embedder,
    folds: int = 5,
    seed: int = 7,
) -> BindingReport:
    """Accuracy (best concept = the label) of the current weights, and of the weights chosen
    on the other folds' pages for each fold of pages."""
    embedder = remembering(embedder)  # each text is embedded once, whatever the weights
    current = grid.index(BindingWeights())
    hits = np.zeros((len(labelled), len(grid)), dtype=bool)
    for row, (item, usable) in enumerate(_with_concepts(labelled)):
        for column, weights in enumerate(grid):
            scores = binding_scores(
                embedder, item.page, [item.proposal], usable, item.main, weights
            )[0]
            hits[row, column] = usable[int(np.argmax(scores))].taxonomy_id == item.label
    held_out = _held_out_pages(labelled, folds, seed)
    pages = len({item.page.url for item in labelled})
    report = BindingReport(len(labelled), pages, int(hits[:, current].sum()), 0)
    for test in held_out:
        train_hits = hits[~test].sum(axis=0)
        # ties go to the current weights, then to the nearest in the grid
        chosen = max(range(len(grid)), key=lambda k: (train_hits[k], -abs(k - current)))
        fold_hits = int(hits[test, chosen].sum())
        report.cross_validated_hits += fold_hits
        report.folds.append((grid[chosen], fold_hits, int(test.sum())))
    totals = hits.sum(axis=0)
    report.best_in_sample = [(grid[k], int(totals[k])) for k in np.argsort(-totals)[:5]]
    return report


class _Remembering:
    def __init__(self, embedder):
        self.embedder, self.vectors = embedder, {}

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
        return np.asarray([self.vectors[text] for text in texts])


def remembering(embedder):
    """The embedder, remembering each text's vector: the weights grid and the margin table
    score the same texts again and again."""
    return embedder if isinstance(embedder, _Remembering) else _Remembering(embedder)


def _with_concepts(labelled: list[LabelledUnit]):
    """Each labelled unit with the concepts its extraction run could bind it to."""
    concepts = [c for c in taxonomy_for_extraction()[1] if c.vector is not None]
    for item in labelled:
        yield item, [c for c in concepts if c.category in item.allowed]


def _held_out_pages(labelled: list[LabelledUnit], folds: int, seed: int) -> list[np.ndarray]:
    """Per fold, which labelled units it holds out: every unit of a page sits in one fold."""
    pages = sorted({item.page.url for item in labelled})
    random.Random(seed).shuffle(pages)
    held = [set(pages[fold::folds]) for fold in range(folds)]
    return [np.array([item.page.url in urls for item in labelled]) for urls in held]


def margin_cross_validation(
    labelled: list[LabelledUnit],
    margins: list[float],
    *,
    embedder,
    target: float,
    weights: BindingWeights | None = None,
    folds: int = 5,
    seed: int = 7,
) -> MarginReport:
    """The margin by which the best concept must lead for a unit to be bound, chosen per
    fold as the smallest that reaches `target` precision on the other folds' pages."""
    embedder = remembering(embedder)
    gaps, hits = np.zeros(len(labelled)), np.zeros(len(labelled), dtype=bool)
    for row, (item, usable) in enumerate(_with_concepts(labelled)):
        scores = binding_scores(
            embedder, item.page, [item.proposal], usable, item.main, weights or BindingWeights()
        )[0]
        order = np.argsort(-scores)
        gaps[row] = scores[order[0]] - (scores[order[1]] if len(order) > 1 else -1.0)
        hits[row] = usable[int(order[0])].taxonomy_id == item.label
    report = MarginReport(
        target,
        [MarginRow(m, int((gaps >= m).sum()), int((hits & (gaps >= m)).sum())) for m in margins],
    )
    for test in _held_out_pages(labelled, folds, seed):
        chosen = next(
            (m for m in margins if _precision(hits[~test], gaps[~test], m) >= target),
            margins[-1],
        )
        kept = test & (gaps >= chosen)
        report.folds.append((chosen, int(kept.sum()), int((kept & hits).sum()), int(test.sum())))
    return report


def _precision(hits: np.ndarray, gaps: np.ndarray, margin: float) -> float:
    kept = gaps >= margin
    return float(hits[kept].mean()) if kept.any() else 1.0


def weights_grid() -> list[BindingWeights]:
    """Around the current weights: the name-word bonus, the page's-own-category bonus and
    the weight of the heading path's own cosine."""
    return [
        BindingWeights(lexical=lexical, main=main, heading=heading, distinctive=distinctive)
        for lexical in (0.15, 0.25, 0.35)
        for main in (0.0, 0.02, 0.05)
        for heading in (0.0, 0.25, 0.5)
        for distinctive in (False, True)
    ]
