"""Retrieval evaluation over questions in the format of ../shared/eval/dev_questions.jsonl,
scored as that folder's README says: recall@1/3/5 and MRR@5 by gold page, strict recall by
span, outcome accuracy, aspect coverage@10 of broad questions, by kind and category, with
latency and a score-distribution plot. Questions go through the question search (analysis,
conversation, expansion), or, with `analysed=False`, the caller's words alone, as before
the analysis step existed."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluation.outcome_fit import Labelled
from knowledge.domain.questions import ConversationTurn
from knowledge.models import AtomicUnit
from knowledge.query.search import question_search
from knowledge.retrieval import SearchParams, SearchResult, concept_search
from knowledge.retrieval.outcome import nothing_near, past_newest_period
from knowledge.text.normalise import normalise_inline
from knowledge.validation import first_error

REFUSALS = ("no_match", "low_confidence")


class QuestionFileError(ValueError):
    """The question file is missing or a line does not have the README's shape; names the
    line and the field."""


class _QuestionFileModel(BaseModel):
    # Strict: a string for `answerable` or a number for `id` is a mistake in the file to
    # report, not a value to guess at.
    model_config = ConfigDict(strict=True, frozen=True)


class GoldPassage(_QuestionFileModel):
    """A page passage that answers a question (README: `gold[]`)."""

    url: str
    span: str
    part_url: str | None = None


class Turn(_QuestionFileModel):
    role: str
    content: str


class Aspect(_QuestionFileModel):
    """One topic a good answer to a broad question covers (README: `aspects`)."""

    name: str
    gold: tuple[GoldPassage, ...]


class DevQuestion(_QuestionFileModel):
    """One line of the question file: the fields retrieval scoring reads (README: Questions)."""

    id: str
    question: str
    answerable: bool
    gold: tuple[GoldPassage, ...]
    kind: str = ""
    category: str = ""
    as_of: date | None = None
    conversation: tuple[Turn, ...] = ()
    aspects: tuple[Aspect, ...] = ()


@dataclass
class QuestionResult:
    id: str
    kind: str
    category: str
    answerable: bool
    outcome: str
    reasons: list[str]
    rank: int | None
    strict_rank: int | None
    milliseconds: float
    scores: list[tuple[float, bool]] = field(default_factory=list)  # (score, relevant)
    aspects_covered: list[bool] = field(default_factory=list)
    turn_type: str = ""
    signals: dict[str, float] = field(default_factory=dict)
    group: str = ""  # cross-validation folds keep a group together: the gold page, or topic
    dated: bool = False  # the question names its day (`as_of`)
    past_newest_period: bool = False  # leading units past the newest period: `outdated`
    refusal_decisive: bool = False  # refused whatever the model says (outcome.Decision)


def load_questions(path: Path) -> list[DevQuestion]:
    return jsonl_records(path, DevQuestion, what="question file")


def jsonl_records(path: Path, model, *, what: str, check=None) -> list:
    """One `model` a line of a JSON Lines file (blank lines skipped), each passed to `check`
    when given; QuestionFileError naming the line and the field for one that is not."""
    if not path.is_file():
        raise QuestionFileError(f"{what} not found: {path}")
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = model.model_validate_json(line)
            if check is not None:
                check(record)
        except ValidationError as error:
            raise QuestionFileError(f"line {number}: {first_error(error)}") from None
        records.append(record)
    return records


def normal_url(url: str) -> str:
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


_TOKEN = re.compile(r"£?\d[\d,]*(?:\.\d+)?%?p?|\w+")
_AMOUNT = re.compile(r"^£|\d%$|\dp$|^\d")


def span_overlaps(span: str, text: str) -> bool:
    a, b = normalise_inline(span).lower(), normalise_inline(text).lower()
    if a in b or b in a:
        return True
    span_tokens = _TOKEN.findall(a)
    text_tokens = set(_TOKEN.findall(b))
    amounts = [token for token in span_tokens if _AMOUNT.search(token)]
    if any(token not in text_tokens for token in amounts):
        return False
    return bool(span_tokens) and sum(t in text_tokens for t in span_tokens) * 2 >= len(span_tokens)


def evaluate_question(
    question: DevQuestion, *, analysed: bool = True, **overrides
) -> QuestionResult:
    result, turn_type = _searched(question, k=5, analysed=analysed, **overrides)
    rank, strict_rank, scores = _ranks(result, question.gold)
    covered = []
    if question.aspects:
        wide, _ = _searched(question, k=10, analysed=analysed, **overrides)
        covered = [_covers(wide, aspect.gold) for aspect in question.aspects]
    return QuestionResult(
        id=question.id,
        kind=question.kind,
        category=question.category,
        answerable=question.answerable,
        outcome=result.outcome,
        reasons=result.reasons,
        rank=rank,
        strict_rank=strict_rank,
        milliseconds=result.timings_ms.get("total", 0.0),
        scores=scores,
        aspects_covered=covered,
        turn_type=turn_type,
        signals=result.signals,
        group=_fold_group(question),
        dated=question.as_of is not None,
        past_newest_period=past_newest_period(result.concepts, question.question),
        refusal_decisive=result.refusal_decisive,
    )


def _fold_group(question: DevQuestion) -> str:
    """A page's questions stay on one side of a split; unanswerable ones by their topic."""
    if question.gold:
        return normal_url(question.gold[0].url)
    return f"unanswerable:{question.category}"


def labelled(results: list[QuestionResult]) -> list[Labelled]:
    return [
        Labelled(
            id=r.id,
            kind=r.kind,
            group=r.group,
            answerable=r.answerable,
            signals=r.signals,
            below_quality_only=r.reasons == ["below_quality"],
            no_topic=nothing_near(r.reasons, r.signals) or r.refusal_decisive,
            outdated=r.past_newest_period,
            outdated_right=_outdated_right(r),
        )
        for r in results
    ]


def _searched(
    question: DevQuestion, *, k: int, analysed: bool, **overrides
) -> tuple[SearchResult, str]:
    params = SearchParams(query=question.question, k=k, as_of=question.as_of, **overrides)
    if not analysed:
        return concept_search(params=params), ""
    turns = [ConversationTurn(turn.role, turn.content) for turn in question.conversation]
    found = question_search(params=params, conversation=turns)
    return found.result, found.analysis.turn_type


def _covers(result: SearchResult, gold: tuple[GoldPassage, ...]) -> bool:
    wanted = set().union(*(_passage_urls(passage) for passage in gold))
    return any(
        {normal_url(u.unit.source.url), normal_url(u.part_url)} & wanted
        for hit in result.concepts
        for u in hit.units
    )


def _ranks(result: SearchResult, gold: tuple[GoldPassage, ...]):
    gold_urls = [_passage_urls(passage) for passage in gold]
    rank = strict_rank = None
    scores = []
    for position, hit in enumerate(result.concepts, start=1):
        relevant = strict = False
        for unit_hit in hit.units:
            urls = {normal_url(unit_hit.unit.source.url), normal_url(unit_hit.part_url)}
            for passage, passage_urls in zip(gold, gold_urls, strict=True):
                if urls & passage_urls:
                    relevant = True
                    strict = strict or _unit_quotes(unit_hit.unit, passage.span)
        if relevant and rank is None:
            rank = position
        if strict and strict_rank is None:
            strict_rank = position
        scores.append((hit.score, relevant))
    return rank, strict_rank, scores


def _passage_urls(passage: GoldPassage) -> set[str]:
    return {normal_url(passage.url), *([normal_url(passage.part_url)] if passage.part_url else [])}


def _unit_quotes(unit: AtomicUnit, span: str) -> bool:
    return span_overlaps(span, unit.evidence_quote) or span_overlaps(span, unit.text)


def summarise(results: list[QuestionResult]) -> dict:
    answerable = [r for r in results if r.answerable]
    unanswerable = [r for r in results if not r.answerable]
    report = {
        "questions": len(results),
        "answerable": _recall_block(answerable),
        "outcome_accuracy": _share([_outcome_right(r) for r in results]),
        "unanswerable_refused": _share([r.outcome in REFUSALS for r in unanswerable]),
        "answerable_ok": _share([r.outcome == "ok" for r in answerable]),
        "outdated": sum(r.outcome == "outdated" for r in results),
        "false_refusals": sum(r.outcome == "no_match" for r in answerable),
        "false_low_confidence": sum(r.outcome == "low_confidence" for r in answerable),
        # As served: the decision fitted on our own questions, never on this file.
        "false_refusal_share": _share([r.outcome in REFUSALS for r in answerable]),
        "latency_ms": latency_summary([r.milliseconds for r in results]),
        "by_kind": {k: _recall_block(v) for k, v in _group(answerable, "kind").items()},
        "outcome_by_kind": {
            k: _share([_outcome_right(r) for r in v]) for k, v in _group(results, "kind").items()
        },
        "refusals_by_kind": {
            k: {
                "false_refusals": _share([not _outcome_right(r) for r in v if r.answerable]),
                "wrong_answers": _share([r.outcome == "ok" for r in v if not r.answerable]),
            }
            for k, v in _group(results, "kind").items()
        },
        "aspect_coverage@10": _aspect_block(results),
        "by_category": {k: _recall_block(v) for k, v in _group(answerable, "category").items()},
        "misses": [
            {"id": r.id, "rank": r.rank, "outcome": r.outcome, "reasons": r.reasons}
            for r in results
            if (r.answerable and (r.rank is None or not _outcome_right(r)))
            or (not r.answerable and not _outcome_right(r))
        ],
    }
    return report


def _aspect_block(results: list[QuestionResult]) -> dict:
    broad = [r for r in results if r.aspects_covered]
    flags = [flag for r in broad for flag in r.aspects_covered]
    return {
        "questions": len(broad),
        "aspects": len(flags),
        "covered": _share(flags),
        "per_question": {r.id: f"{sum(r.aspects_covered)}/{len(r.aspects_covered)}" for r in broad},
    }


def _outcome_right(result: QuestionResult) -> bool:
    """The eval README's rule: an unanswerable question is right refused or answered
    `outdated` (the newest figure held, said to be out of date); an answerable one is right
    `ok`, or `outdated` when it names no day and a gold unit is served (a figure the
    knowledge base can vouch for only up to its newest capture)."""
    if result.outcome == "outdated":
        return not result.answerable or _outdated_right(result)
    return result.outcome == "ok" if result.answerable else result.outcome in REFUSALS


def _outdated_right(result: QuestionResult) -> bool:
    """For an answerable question: an `outdated` answer is right."""
    return result.answerable and not result.dated and result.rank is not None


def _share(flags: list[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 0.0


def _recall_block(results: list[QuestionResult]) -> dict:
    def at(k, attr="rank"):
        return _share([getattr(r, attr) is not None and getattr(r, attr) <= k for r in results])

    mrr = (
        statistics.mean([(1 / r.rank) if r.rank and r.rank <= 5 else 0.0 for r in results])
        if results
        else 0.0
    )
    return {
        "n": len(results),
        "recall@1": at(1),
        "recall@3": at(3),
        "recall@5": at(5),
        "mrr@5": round(mrr, 4),
        "strict@1": at(1, "strict_rank"),
        "strict@5": at(5, "strict_rank"),
    }


def latency_summary(values: list[float]) -> dict:
    """p50 and p95 in milliseconds ({} with no values)."""
    ordered = sorted(values)
    if not ordered:
        return {}
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }


def _group(results, attribute: str) -> dict[str, list[QuestionResult]]:
    groups: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        groups[getattr(result, attribute)].append(result)
    return dict(sorted(groups.items()))


def plot_scores(results: list[QuestionResult], *, path: Path, floor: float, quality: float) -> Path:
    """Histogram of returned concepts' scores: relevant (hold a gold page's unit) vs not, and
    the best score of answerable vs unanswerable questions, with the thresholds drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    relevant = [s for r in results for s, rel in r.scores if rel]
    irrelevant = [s for r in results for s, rel in r.scores if not rel]
    best_answerable = [max((s for s, _ in r.scores), default=0.0) for r in results if r.answerable]
    best_unanswerable = [
        max((s for s, _ in r.scores), default=0.0) for r in results if not r.answerable
    ]
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    _histogram(axes[0], "Scores of returned concepts", relevant=relevant, irrelevant=irrelevant)
    _histogram(
        axes[1],
        "Best score per question",
        answerable=best_answerable,
        unanswerable=best_unanswerable,
    )
    for axis in axes:
        axis.axvline(floor, color="grey", linestyle="--", label=f"floor {floor}")
        axis.axvline(quality, color="black", linestyle=":", label=f"quality {quality}")
        axis.set_xlabel("similarity score")
        axis.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


_HISTOGRAM_COLOURS = {
    "relevant": "#00703c",
    "irrelevant": "#d4351c",
    "answerable": "#1d70b8",
    "unanswerable": "#f47738",
}


def _histogram(axis, title: str, **series: list[float]) -> None:
    axis.hist(
        list(series.values()),
        bins=[i / 40 for i in range(41)],
        label=list(series),
        color=[_HISTOGRAM_COLOURS[name] for name in series],
        alpha=0.8,
    )
    axis.set_title(title)
