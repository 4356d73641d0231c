"""A question searched as it was understood: the turn is analysed, the date it asks about is
read from its words when the caller sent none, and it is expanded into searches: the caller's
own words always, with each glossary reading; the follow-up rewritten to stand alone; a life
situation's sub-queries. Each search runs through `concept_search`, all embedded in one call,
and the results are merged by concept, keeping the best score and the search that found it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from dataclasses import dataclass, field

from django.utils import timezone

from knowledge.domain.profile import Profile
from knowledge.domain.questions import ConversationTurn, QueryAnalysis
from knowledge.embeddings import get_embedder, query_vectors
from knowledge.query.analysis import query_analyse
from knowledge.query.vocabulary import query_vocabulary
from knowledge.retrieval import (
    ConceptHit,
    SearchParams,
    SearchResult,
    assemble_context,
    concept_search,
    source_urls,
    thresholds_for_model,
)
from knowledge.retrieval.applies import concepts_for_person
from knowledge.retrieval.search import for_this_person
from knowledge.text.glossary import readings
from knowledge.text.profile_facts import (
    children_left_education,
    dependent_children,
    profile_facts,
)
from knowledge.text.question_dates import DateMention, date_in_words

# A follow-up's own words ("how do I claim it?") say less than its rewrite: their results
# rank after the rewrite's unless clearly better.
OWN_WORDS_WEIGHT_IN_FOLLOW_UP = 0.9


@dataclass(frozen=True)
class Search:
    """One search of a question. `text` is embedded (glossary meanings written in); `words`
    are the same without them, which the outcome's reading of the question goes by."""

    text: str
    origin: str  # "your words", "standalone rewrite", "life event …", with any glossary reading
    weight: float = 1.0
    words: str = ""


@dataclass
class QuestionPlan:
    """How a turn will be searched: its analysis, the date it is asked about (and why), and
    the searches it expands into."""

    analysis: QueryAnalysis
    params: SearchParams
    searches: list[Search]
    as_of_source: dict
    milliseconds: float
    profile_source: dict[str, str] = field(default_factory=dict)  # field → where it came from

    def as_json(self) -> dict:
        return self.analysis.as_json() | {
            "searches": [{"text": s.text, "origin": s.origin} for s in self.searches],
            "as_of": self.as_of_source,
            "profile": self.profile_source,
        }


def question_plan(
    *,
    params: SearchParams,
    conversation: list[ConversationTurn] | None = None,
    provider=None,
) -> QuestionPlan:
    started = time.perf_counter()
    conversation = conversation or []
    today = timezone.localdate()
    analysis = query_analyse(
        query=params.query, conversation=conversation, today=today, provider=provider
    )
    params, as_of_source = _with_date(params, analysis, conversation, today=today)
    params, profile_source = with_stated_profile(params, conversation)
    searches = [] if analysis.strategy == "none" else question_searches(params.query, analysis)
    return QuestionPlan(analysis, params, searches, as_of_source, _ms(started), profile_source)


def with_stated_profile(
    params: SearchParams, conversation: list[ConversationTurn]
) -> tuple[SearchParams, dict[str, str]]:
    """The caller's profile, with what the user said of themselves in this conversation
    filling the fields the caller did not send; and where each field came from. A search
    for a person is the caller's choice: without a `profile` (an empty one will do) the
    conversation's facts are not applied, and the search is the same for everyone."""
    if params.profile is None:
        return params, {}
    sent = params.profile.model_dump(exclude_none=True)
    source = {name: "profile" for name in sent}
    said = [turn.content for turn in conversation if turn.role == "user"] + [params.query]
    for fact in profile_facts(said):
        if fact.field not in sent:
            sent[fact.field] = fact.value
            source[fact.field] = f"conversation: “{fact.words}”"
    changed = source != {name: "profile" for name in sent}
    if sent.get("children_ages"):
        # The user's own account of a child refines the caller's list: a child who has left
        # education for work is no longer one that family benefits count.
        kept, used = dependent_children(sent["children_ages"], children_left_education(said))
        if used:
            sent["children_ages"], changed = kept, True
            source["children_ages"] += "; not counted, as the user says: " + ", ".join(
                f"“{statement.words}”" for statement in used
            )
    if not changed:
        return params, source
    return params.model_copy(update={"profile": Profile.model_validate(sent)}), source


def question_search(
    *,
    params: SearchParams,
    conversation: list[ConversationTurn] | None = None,
    provider=None,
) -> QuestionResult:
    started = time.perf_counter()
    plan = question_plan(params=params, conversation=conversation, provider=provider)
    if not plan.searches:
        result = _nothing_to_look_up(plan.params)
        result.timings_ms = {"analysis": plan.milliseconds, "total": _ms(started)}
        return QuestionResult(result, plan)
    step = time.perf_counter()
    vectors = query_vectors([search.text for search in plan.searches])
    embedded_ms = _ms(step)
    results = [
        concept_search(
            params=plan.params.model_copy(update={"query": s.words or s.text}),
            query_vector=vector,
            with_context=False,  # assembled once, from the merged concepts
        )
        for s, vector in zip(plan.searches, vectors, strict=True)
    ]
    step = time.perf_counter()
    merged, found_by = merge_results(
        results, plan.searches, params=plan.params, broad=plan.analysis.strategy == "broad"
    )
    merged = for_this_person(merged, plan.params)
    merged.timings_ms = {
        "analysis": plan.milliseconds,
        "embed": embedded_ms,
        **_stage_sums(results),
        "merge": _ms(step),
        "searches": len(results),
        "total": _ms(started),
    }
    return QuestionResult(merged, plan, found_by)


def question_searches(query: str, analysis: QueryAnalysis) -> list[Search]:
    """The searches a turn is expanded into, the first leading; the caller's own words are
    always among them. Duplicates are dropped."""
    vocabulary = query_vocabulary()
    searches: list[Search] = []
    own_weight = 1.0
    if analysis.turn_type != "new" and analysis.standalone_query.strip() != query.strip():
        searches += _readings(analysis.standalone_query, "standalone rewrite", vocabulary)
        own_weight = OWN_WORDS_WEIGHT_IN_FOLLOW_UP
    searches += _readings(query, "your words", vocabulary, weight=own_weight)
    for sub_query in analysis.sub_queries if analysis.strategy == "broad" else []:
        source = f"life event {analysis.life_event}" if analysis.life_event else "sub-query"
        searches += _readings(sub_query, f"{source}: {sub_query}", vocabulary)[:1]
    unique: dict[str, Search] = {}
    for search in searches:
        unique.setdefault(search.text.strip().lower(), search)
    return list(unique.values())


def _readings(text: str, origin: str, vocabulary, *, weight: float = 1.0) -> list[Search]:
    return [
        Search(
            reading.text,
            origin + (f" ({'; '.join(reading.expansions)})" if reading.expansions else ""),
            weight,
            words=text,
        )
        for reading in readings(text, vocabulary.glossary)
    ]


_OUTCOME_ORDER = ("ok", "outdated", "low_confidence", "not_reviewed", "no_match", "invalid")


@dataclass
class QuestionResult:
    result: SearchResult
    plan: QuestionPlan
    found_by: dict[int, str] = field(default_factory=dict)  # concept pk → search origin

    @property
    def analysis(self) -> QueryAnalysis:
        return self.plan.analysis


def merge_results(
    results: list[SearchResult], searches: list[Search], *, params: SearchParams, broad: bool
) -> tuple[SearchResult, dict[int, str]]:
    """One result from several: each concept once, with the hit of the search that scored it
    best (weighted); ordered by that score, except that for a broad question the best concept
    of every search comes first, so that each topic of the situation is shown, the leading
    search's own best before the others. The outcome is the leading search's (the rewrite of
    a follow-up, else the caller's words); for a broad question the best of any search's,
    since each sub-query is a topic of its own."""
    best: dict[int, tuple[float, ConceptHit, int]] = {}
    for index, (result, search) in enumerate(zip(results, searches, strict=True)):
        for hit in result.concepts:
            weighted = hit.score * search.weight
            held = best.get(hit.concept.pk)
            if held is None or weighted > held[0]:
                best[hit.concept.pk] = (weighted, hit, index)
    ordered = sorted(best.values(), key=lambda item: -item[0])
    if broad:
        leaders = {id(results[i].concepts[0]) for i in range(len(results)) if results[i].concepts}
        ordered = [i for i in ordered if id(i[1]) in leaders] + [
            i for i in ordered if id(i[1]) not in leaders
        ]
    kept = ordered[: params.k]
    if broad and results[0].concepts:
        # Of those kept, the leading search's own best first: "I'm starting a degree: can I
        # get a Maintenance Loan?" asks about the loan; the situation's other topics follow.
        asked = results[0].concepts[0]
        kept.sort(key=lambda item: item[1] is not asked)
    if params.profile is not None:  # among those kept, a concept for other people goes last
        place = {id(hit): n for n, hit in enumerate(concepts_for_person([h for _, h, _ in kept]))}
        kept.sort(key=lambda item: place[id(item[1])])
    lead = min(results, key=lambda r: _OUTCOME_ORDER.index(r.outcome)) if broad else results[0]
    hits = [hit for _, hit, _ in kept]
    context, tokens = assemble_context(hits, budget=params.token_budget, day=lead.as_of)
    merged = dataclasses.replace(
        lead, concepts=hits, sources=source_urls(hits), context=context, context_tokens=tokens
    )
    return merged, {hit.concept.pk: searches[index].origin for _, hit, index in kept}


def _with_date(
    params: SearchParams, analysis: QueryAnalysis, conversation, *, today: dt.date
) -> tuple[SearchParams, dict]:
    """The params with `as_of` read from the words when the caller sent none, and why."""
    if params.as_of is not None:
        return params, {
            "date": params.as_of.isoformat(),
            "phrase": None,
            "reason": "sent by the caller",
        }
    mention = date_in_words(params.query, today=today)
    if mention is None and analysis.turn_type != "new":
        for turn in reversed(conversation):
            if turn.role == "user" and (mention := date_in_words(turn.content, today=today)):
                mention = DateMention(
                    mention.day, mention.phrase, f"{mention.reason}, from an earlier turn"
                )
                break
    if (
        mention is None
        and analysis.entities.get("date_asked")
        and analysis.analysed_by != "heuristic"
    ):
        day = dt.date.fromisoformat(analysis.entities["date_asked"])
        mention = DateMention(day, "", f"the date the {analysis.analysed_by} analysis read")
    if mention is None:
        return params, {
            "date": today.isoformat(),
            "phrase": None,
            "reason": "today: no date sent or asked",
        }
    return params.model_copy(update={"as_of": mention.day}), mention.as_json()


def _nothing_to_look_up(params: SearchParams) -> SearchResult:
    thresholds = thresholds_for_model(get_embedder().name)
    return SearchResult(
        outcome="no_match",
        reasons=["no_lookup_needed"],
        concepts=[],
        sources=[],
        context="",
        context_tokens=0,
        timings_ms={},
        as_of=params.day(),
        mode="none",
        thresholds={name: thresholds[name] for name in ("floor", "quality", "scope")},
    )


def _stage_sums(results: list[SearchResult]) -> dict[str, float]:
    """Each search stage's milliseconds, summed over the searches."""
    stages = ("validate", "sql", "rank", "units", "assemble")
    if any("unreviewed" in result.timings_ms for result in results):
        stages += ("unreviewed",)  # a reviewed search nothing answered, checked over all units
    return {
        stage: round(sum(result.timings_ms.get(stage, 0.0) for result in results), 2)
        for stage in stages
    }


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
