"""Scoring the profile questions (the eval README's "Profile questions"): each record is
searched as the user's question with what the assistant knows about them, and again without
it. Per record: the rank of the first concept serving a gold page (and the strict rank, the
first quoting a gold span), whether a unit wrong for this user is served above every gold unit
in the top 5 (for an unanswerable record, any wrong unit in the top 5), and the outcome.
Suggestion records (no question) are scored by the aspects of the profile covered in the top
10 suggestions, when the suggestion service is given."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluation.retrieval import (
    REFUSALS,
    GoldPassage,
    jsonl_records,
    normal_url,
    span_overlaps,
)
from knowledge.domain.profile import Profile
from knowledge.domain.questions import ConversationTurn
from knowledge.query.search import question_search
from knowledge.retrieval import SearchParams, SearchResult

K = 5
SUGGEST_K = 10


class _Aspect(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    gold: tuple[GoldPassage, ...]


class ProfileQuestion(BaseModel):
    """One line of the profile file: the fields scoring reads."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str | None
    profile: dict
    answerable: bool
    kind: str
    category: str = ""
    as_of: date | None = None
    gold: tuple[GoldPassage, ...] = ()
    wrong: tuple[GoldPassage, ...] = ()
    aspects: tuple[_Aspect, ...] = ()
    conversation: tuple[dict, ...] = ()


def load_profile_questions(path: Path) -> list[ProfileQuestion]:
    # A profile the API would refuse is a file error.
    return jsonl_records(
        path,
        ProfileQuestion,
        what="profile question file",
        check=lambda record: Profile.model_validate(record.profile),
    )


@dataclass
class ProfileResult:
    id: str
    kind: str
    answerable: bool
    with_profile: bool
    outcome: str = ""
    reasons: list[str] = field(default_factory=list)
    rank: int | None = None
    strict_rank: int | None = None
    wrong_served: bool = False
    aspects_covered: list[bool] = field(default_factory=list)
    milliseconds: float = 0.0


Suggest = Callable[[Profile, date | None, int], list]  # (profile, as_of, k) -> concept hits


def evaluate_record(
    record: ProfileQuestion, *, with_profile: bool, suggest: Suggest | None = None
) -> ProfileResult:
    profile = Profile.model_validate(record.profile) if with_profile else None
    result = ProfileResult(record.id, record.kind, record.answerable, with_profile)
    if record.question is None:
        if suggest is not None and profile is not None:
            hits = suggest(profile, record.as_of, SUGGEST_K)
            result.aspects_covered = [_hits_cover(hits, a.gold) for a in record.aspects]
            result.wrong_served = any(
                _unit_matches(u, w) for hit in hits for u in hit.units for w in record.wrong
            )
        else:
            result.aspects_covered = [False for _ in record.aspects]
        return result
    params = SearchParams(query=record.question, k=K, as_of=record.as_of, profile=profile)
    turns = [ConversationTurn(t["role"], t["content"]) for t in record.conversation]
    searched = question_search(params=params, conversation=turns).result
    result.outcome, result.reasons = searched.outcome, searched.reasons
    result.milliseconds = searched.timings_ms.get("total", 0.0)
    result.rank, result.strict_rank = _ranks(searched, record.gold)
    result.wrong_served = _wrong_served(searched, record)
    return result


def _unit_matches(unit_hit, passage: GoldPassage) -> bool:
    """The unit is from the passage's page (or part) and quotes its span."""
    urls = {normal_url(unit_hit.unit.source.url), normal_url(unit_hit.part_url)}
    wanted = {
        normal_url(passage.url),
        *([normal_url(passage.part_url)] if passage.part_url else []),
    }
    return bool(urls & wanted) and (
        span_overlaps(passage.span, unit_hit.unit.evidence_quote)
        or span_overlaps(passage.span, unit_hit.unit.text)
    )


def _ranks(result: SearchResult, gold: tuple[GoldPassage, ...]) -> tuple[int | None, int | None]:
    rank = strict = None
    for position, hit in enumerate(result.concepts[:K], start=1):
        for unit_hit in hit.units:
            urls = {normal_url(unit_hit.unit.source.url), normal_url(unit_hit.part_url)}
            for passage in gold:
                wanted = {normal_url(passage.url)}
                if passage.part_url:
                    wanted.add(normal_url(passage.part_url))
                if urls & wanted:
                    rank = rank or position
                    if _unit_matches(unit_hit, passage):
                        strict = strict or position
    return rank, strict


def _wrong_served(result: SearchResult, record: ProfileQuestion) -> bool:
    """A unit matching a `wrong` passage ranks above every unit matching a gold one in the
    top 5 (also when no gold unit is there); for an unanswerable record, any wrong unit."""
    units = [u for hit in result.concepts[:K] for u in hit.units]
    first_wrong = next(
        (n for n, u in enumerate(units) if any(_unit_matches(u, w) for w in record.wrong)), None
    )
    if first_wrong is None:
        return False
    if not record.answerable:
        return True
    first_gold = next(
        (n for n, u in enumerate(units) if any(_unit_matches(u, g) for g in record.gold)), None
    )
    return first_gold is None or first_wrong < first_gold


def _hits_cover(hits: list, gold: tuple[GoldPassage, ...]) -> bool:
    wanted = {normal_url(p.url) for p in gold} | {
        normal_url(p.part_url) for p in gold if p.part_url
    }
    return any(
        {normal_url(u.unit.source.url), normal_url(u.part_url)} & wanted
        for hit in hits
        for u in hit.units
    )


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def summarise_profile(results: list[ProfileResult]) -> dict:
    """The README's figures over one pass (with or without the profile), overall and per
    kind: recall@5 by gold page and by span, wrong served, unanswerable refused, and the
    suggestions' aspect coverage@10."""
    asked = [r for r in results if r.kind != "suggest"]
    answerable = [r for r in asked if r.answerable]
    unanswerable = [r for r in asked if not r.answerable]
    suggested = [r for r in results if r.kind == "suggest"]

    def block(rows: list[ProfileResult]) -> dict:
        rows_answerable = [r for r in rows if r.answerable]
        return {
            "records": len(rows),
            "recall@5": _share([r.rank is not None for r in rows_answerable]),
            "strict_recall@5": _share([r.strict_rank is not None for r in rows_answerable]),
            "wrong_served": _share([r.wrong_served for r in rows]),
        }

    kinds = sorted({r.kind for r in asked})
    return {
        **block(asked),
        "answerable": len(answerable),
        "unanswerable_refused": _share([r.outcome in REFUSALS for r in unanswerable]),
        "answerable_refused": _share([r.outcome in REFUSALS for r in answerable]),
        "suggest_aspect_coverage@10": _share([f for r in suggested for f in r.aspects_covered]),
        # suggestions that show a unit wrong for this person anywhere in their top 10
        "suggest_wrong@10": _share([r.wrong_served for r in suggested if r.aspects_covered]),
        "by_kind": {kind: block([r for r in asked if r.kind == kind]) for kind in kinds},
        "misses": [
            {"id": r.id, "rank": r.rank, "outcome": r.outcome, "wrong_served": r.wrong_served}
            for r in asked
            if (r.answerable and r.rank is None)
            or r.wrong_served
            or (not r.answerable and r.outcome not in REFUSALS)
        ],
    }
