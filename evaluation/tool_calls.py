"""Scoring when an assistant calls the knowledge base (the eval README's "Tool-call
decisions"): each case is a user's message, with the conversation before it, labelled whether
the knowledge base should be called for it. A router decides each case (called or not) once
per run; the figures are precision, recall and accuracy of calling over the non-ambiguous
cases, agreement with the best label on the ambiguous ones, the misses by tag and, over
several runs, the share of cases decided the same way in every run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from evaluation.retrieval import QuestionFileError, jsonl_records
from knowledge.domain.questions import ConversationTurn
from knowledge.providers import HeuristicProvider
from knowledge.query.analysis import query_analyse


class _Turn(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: str = Field(pattern="^(user|assistant)$")
    content: str


class ToolCallCase(BaseModel):
    """One line of the tool-call file."""

    model_config = ConfigDict(frozen=True)

    id: str
    message: str = Field(min_length=1)
    should_call: bool
    ambiguous: bool = False
    conversation: tuple[_Turn, ...] = ()
    tags: tuple[str, ...] = ()
    why: str = ""

    def turns(self) -> list[ConversationTurn]:
        return [ConversationTurn(turn.role, turn.content) for turn in self.conversation]


def load_tool_call_cases(path: Path) -> list[ToolCallCase]:
    cases = jsonl_records(path, ToolCallCase, what="tool-call case file")
    if not cases:
        raise QuestionFileError(f"no cases in {path}")
    return cases


# A router: whether the knowledge base is called for the case, and why (for the report).
Router = Callable[[ToolCallCase], tuple[bool, str]]


def heuristic_router(*, today: date | None = None) -> Router:
    """Navigator's own analysis decides: a lookup strategy is a call, `none` is not."""

    def decide(case: ToolCallCase) -> tuple[bool, str]:
        analysis = query_analyse(
            query=case.message,
            conversation=case.turns(),
            today=today,
            provider=HeuristicProvider(),
        )
        return analysis.strategy != "none", analysis.no_lookup or analysis.strategy

    return decide


@dataclass
class CaseResult:
    id: str
    should_call: bool
    ambiguous: bool
    tags: tuple[str, ...]
    decisions: list[bool] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def called(self) -> bool:
        """The decision of most runs (the first run's on a tie)."""
        calls = sum(self.decisions)
        return calls * 2 > len(self.decisions) or (
            calls * 2 == len(self.decisions) and self.decisions[0]
        )


def tool_calls_run(
    cases: list[ToolCallCase], router: Router, *, runs: int = 1, progress=None
) -> list[CaseResult]:
    results = [CaseResult(c.id, c.should_call, c.ambiguous, c.tags) for c in cases]
    for _ in range(runs):
        for case, result in zip(cases, results, strict=True):
            called, reason = router(case)
            result.decisions.append(called)
            result.reasons.append(reason)
            if progress is not None:
                progress()
    return results


def summarise_tool_calls(results: list[CaseResult]) -> dict:
    clear = [r for r in results if not r.ambiguous]
    ambiguous = [r for r in results if r.ambiguous]
    true_pos = sum(r.called and r.should_call for r in clear)
    false_pos = sum(r.called and not r.should_call for r in clear)
    false_neg = sum(not r.called and r.should_call for r in clear)
    misses = [r for r in clear if r.called != r.should_call]
    by_tag = Counter(tag for r in misses for tag in r.tags)
    tagged = Counter(tag for r in clear for tag in r.tags)
    return {
        "cases": len(results),
        "non_ambiguous": len(clear),
        "precision": _ratio(true_pos, true_pos + false_pos),
        "recall": _ratio(true_pos, true_pos + false_neg),
        "accuracy": _ratio(len(clear) - len(misses), len(clear)),
        "ambiguous": len(ambiguous),
        "ambiguous_agreement": _ratio(
            sum(r.called == r.should_call for r in ambiguous), len(ambiguous)
        ),
        "runs": len(results[0].decisions) if results else 0,
        "consistency": _ratio(sum(len(set(r.decisions)) == 1 for r in results), len(results)),
        "misses_by_tag": {tag: f"{by_tag[tag]}/{tagged[tag]}" for tag in sorted(by_tag)},
        "misses": [
            {
                "id": r.id,
                "should_call": r.should_call,
                "called": r.called,
                "tags": list(r.tags),
                "why": r.reasons[0],
            }
            for r in misses
        ],
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
