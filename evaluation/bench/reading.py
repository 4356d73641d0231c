"""What the readings of knowledge.reading cost where they serve, on the knowledge base in use
(the eval gate's, built from the real corpus): a search with the ok/refuse decision's
`states_asked` signal read and without it, the two interleaved question by question in one
run so that the ratio holds whatever the machine is doing; and `/verify`'s checking of
answers of five claims each, made of our own labelled claims."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from evaluation.retrieval import DevQuestion
from evaluation.verification import VerifyCase
from knowledge.domain.questions import ConversationTurn
from knowledge.query.search import question_search
from knowledge.retrieval import SearchParams, confidence
from knowledge.verification.check import answer_verify

CLAIMS_AN_ANSWER = 5
WARM_UP = 3


@dataclass
class ReadingCost:
    searches: int
    with_reading_ms: list[float] = field(default_factory=list)
    without_reading_ms: list[float] = field(default_factory=list)
    answers: int = 0
    verify_ms: list[float] = field(default_factory=list)

    def figures(self) -> dict:
        with_p50 = _percentile(self.with_reading_ms, 50)
        without_p50 = _percentile(self.without_reading_ms, 50)
        return {
            "searches": self.searches,
            "search_p50_ms": {"with_states_asked": with_p50, "without": without_p50},
            "search_p95_ms": {
                "with_states_asked": _percentile(self.with_reading_ms, 95),
                "without": _percentile(self.without_reading_ms, 95),
            },
            "search_p50_ratio": round(with_p50 / without_p50, 3) if without_p50 else None,
            "answers_of_5_claims": self.answers,
            "verify_ms": {
                "p50": _percentile(self.verify_ms, 50),
                "p95": _percentile(self.verify_ms, 95),
            },
        }


def reading_cost(
    questions: list[DevQuestion],
    cases: list[VerifyCase],
    *,
    repeats: int = 1,
    progress: Callable[[str], None] = lambda line: None,
) -> ReadingCost:
    cost = ReadingCost(searches=len(questions) * repeats)
    for question in questions[:WARM_UP]:
        _searched(question)
    for turn in range(repeats):
        progress(f"searches, pass {turn + 1} of {repeats}")
        for index, question in enumerate(questions):
            # Which of the two goes first alternates, so that neither gains from the other's
            # cache.
            first_with = (index + turn) % 2 == 0
            for reading in (first_with, not first_with):
                with _states_asked(reading):
                    elapsed = _searched(question)
                (cost.with_reading_ms if reading else cost.without_reading_ms).append(elapsed)
    answers = five_claim_answers(cases)
    cost.answers = len(answers)
    for answer, as_of in answers[:WARM_UP]:
        answer_verify(answer=answer, as_of=as_of)
    progress(f"verifying {len(answers)} answers of {CLAIMS_AN_ANSWER} claims")
    for answer, as_of in answers:
        started = time.perf_counter()
        answer_verify(answer=answer, as_of=as_of)
        cost.verify_ms.append((time.perf_counter() - started) * 1000)
    return cost


def five_claim_answers(cases: list[VerifyCase]) -> list[tuple[str, object]]:
    """Answers of five claims each: five labelled claims of one day, a sentence each."""
    by_day: dict = {}
    for case in cases:
        by_day.setdefault(case.as_of, []).extend(c.text.rstrip(".") for c in case.claims)
    answers = []
    for day, texts in by_day.items():
        for start in range(0, len(texts) - CLAIMS_AN_ANSWER + 1, CLAIMS_AN_ANSWER):
            sentences = texts[start : start + CLAIMS_AN_ANSWER]
            answers.append((" ".join(f"{s[:1].upper()}{s[1:]}." for s in sentences), day))
    return answers


def _searched(question: DevQuestion) -> float:
    params = SearchParams(query=question.question, k=5, as_of=question.as_of)
    turns = [ConversationTurn(t.role, t.content) for t in question.conversation]
    started = time.perf_counter()
    question_search(params=params, conversation=turns)
    return (time.perf_counter() - started) * 1000


@contextmanager
def _states_asked(read: bool) -> Iterator[None]:
    """The signal read as it serves, or left unread (0.0) for the comparison."""
    served = confidence.asked_stated
    if not read:
        confidence.asked_stated = lambda question, shown, **_: 0.0
    try:
        yield
    finally:
        confidence.asked_stated = served


def _percentile(values: list[float], q: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 2)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 2)
