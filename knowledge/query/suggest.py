"""What a person should know before they ask: the concepts their situation calls for, each
with the reason it was suggested and its units, from data editors keep, not from wording:

- life stages: the life events whose `suggest_for` the profile meets (a new baby, starting
  university, approaching State Pension age), each searched as a broad question about it is;
- the units narrowed to this person: units whose applicability names them (an income bound
  they are inside, a benefit they get, their work, their number of children, their loan plan,
  their nation alone), each concept searched by its name.

The sources take turns, the units narrowed to this person first, so that every situation is
represented near the top; a concept whose units are mostly for other people is never
suggested."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection

from knowledge.band_table import person_on
from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person, Profile
from knowledge.domain.questions import LifeEventInfo
from knowledge.domain.temporal import as_of_or_today
from knowledge.embeddings import query_vectors
from knowledge.models import Concept
from knowledge.query.vocabulary import query_vocabulary
from knowledge.retrieval import UNITS_PER_CONCEPT, ConceptHit, SearchParams, concept_search
from knowledge.retrieval.applies import concept_place
from knowledge.retrieval.sql import VISIBLE_ON_DAY
from knowledge.text.applicability import PERSONAL_KEYS, Applicability

MAX_SUGGESTIONS = 20
PER_SEARCH = 2  # concepts asked of each search; the first new one is taken
NARROWED_CONCEPTS = 8  # concepts searched for the units narrowed to this person


@dataclass
class Suggestion:
    hit: ConceptHit
    reasons: list[str]
    found_by: str


@dataclass
class SuggestResult:
    suggestions: list[Suggestion]
    life_events: list[str]
    as_of: dt.date
    timings_ms: dict[str, float] = field(default_factory=dict)


def who_holds(who: dict, person: Person) -> bool:
    """Every condition of one `suggest_for` alternative holds for the person; a condition on
    something the profile does not say does not hold."""
    checks = {
        "age_min": lambda v: person.age is not None and person.age >= v,
        "age_max": lambda v: person.age is not None and person.age <= v,
        "employment": lambda v: person.employment in v,
        "benefits": lambda v: bool(person.benefits and set(v) & person.benefits),
        "youngest_child_age_max": lambda v: (
            bool(person.children_ages) and min(person.children_ages) <= v
        ),
        "income_min": lambda v: person.annual_income is not None and person.annual_income >= v,
        "income_max": lambda v: person.annual_income is not None and person.annual_income <= v,
        "student_loan": lambda v: (person.student_loan_plan is not None) == bool(v),
    }
    return all(checks[name](value) for name, value in who.items() if name in checks)


def life_events_for(person: Person, events: tuple[LifeEventInfo, ...]) -> list[LifeEventInfo]:
    return [e for e in events if any(who_holds(dict(who), person) for who in e.suggest_for)]


def profile_suggest(
    *, profile: Profile, as_of: dt.date | None = None, k: int = 10
) -> SuggestResult:
    started = time.perf_counter()
    day = as_of_or_today(as_of)
    person = person_on(profile, day)
    events = life_events_for(person, query_vocabulary().life_events)
    narrowed = narrowed_concepts(person, day=day)
    sources: list[list[tuple[str, str]]] = [narrowed] + [
        [(text, f"life stage: {event.name}") for text in event.searches] for event in events
    ]
    searches = _taking_turns(sources)
    vectors = query_vectors([text for text, _ in searches]) if searches else []
    found: dict[int, Suggestion] = {}
    for (text, reason), vector in zip(searches, vectors, strict=True):
        params = SearchParams(query=text, k=PER_SEARCH, as_of=day, profile=profile)
        # Off the question's path: twice the units read, for the ones naming this person.
        result = concept_search(
            params=params, query_vector=vector, with_context=False, units_read=2 * UNITS_PER_CONCEPT
        )
        for hit in result.concepts:
            if hit.below_quality or concept_place(hit) == 2:
                continue  # not about this, or mostly for other people
            if hit.concept.pk in found:
                found[hit.concept.pk].reasons.append(reason)
                continue
            # What this person should know: the concept's facts for them or for everyone,
            # not those for other people (a search shows those too, labelled).
            hit.units = [u for u in hit.units if u.fit is None or u.fit.applies is not False]
            found[hit.concept.pk] = Suggestion(hit, [reason], found_by=text)
            break
    for suggestion in found.values():
        suggestion.reasons = list(dict.fromkeys(suggestion.reasons))
    ranked = _new_pages_first(list(found.values()))
    return SuggestResult(
        suggestions=ranked[:k],
        life_events=[event.slug for event in events],
        as_of=day,
        timings_ms={"total": round((time.perf_counter() - started) * 1000, 2)},
    )


def _new_pages_first(suggestions: list[Suggestion]) -> list[Suggestion]:
    """In the turns taken, a suggestion whose units come from a page no earlier one showed
    before one that shows the same pages again: ten suggestions cover ten things to know,
    not one guide's parts four times."""
    seen: set[str] = set()
    fresh, again = [], []
    for suggestion in suggestions:
        pages = {u.unit.source.url for u in suggestion.hit.units}
        (fresh if pages - seen else again).append(suggestion)
        seen |= pages
    return fresh + again


def _taking_turns(sources: list[list]) -> list:
    """The first of each source, then the second of each, and so on."""
    longest = max((len(source) for source in sources), default=0)
    return [source[n] for n in range(longest) for source in sources if n < len(source)]


# Units narrowed to someone: any condition beyond "everywhere but one nation".
_NARROWED_SQL = f"""
    SELECT u.concept_id, u.applicability FROM knowledge_atomicunit u
    JOIN knowledge_concept c ON c.id = u.concept_id
    WHERE u.deleted_at IS NULL AND c.status = 'active' AND u.applicability <> '{{}}'::jsonb
      {VISIBLE_ON_DAY}
      AND (u.applicability ?| %(keys)s OR jsonb_array_length(u.applicability->'nations') < 3)
"""


def narrowed_concepts(person: Person, *, day: dt.date) -> list[tuple[str, str]]:
    """(concept name, reason) of the concepts with units narrowed to this person, those naming
    the most of what singles them out first, then those whose units match the most of what
    the profile says ("if you're employed, you stop paying Class 1 National Insurance when you
    reach State Pension age" is more about an employed 66-year-old than a rule for anyone
    over State Pension age)."""
    with connection.cursor() as cursor:
        cursor.execute(_NARROWED_SQL, {"keys": sorted(PERSONAL_KEYS), "day": day})
        rows = cursor.fetchall()
    matched: dict[int, set[str]] = defaultdict(set)
    grounds: dict[int, int] = defaultdict(int)
    for concept_id, stored in rows:
        stored = json.loads(stored) if isinstance(stored, str) else stored  # a raw cursor's JSON
        fit = profile_fit(Applicability.from_json(stored), person)
        if fit.applies and fit.singling_out:
            matched[concept_id].update(fit.singling_out)
            grounds[concept_id] = max(grounds[concept_id], len(fit.matched_on))
    ranked = sorted(matched, key=lambda cid: (-len(matched[cid]), -grounds[cid], cid))
    ranked = ranked[:NARROWED_CONCEPTS]
    names = dict(Concept.objects.filter(pk__in=ranked).values_list("pk", "name"))
    return [(names[cid], "; ".join(sorted(matched[cid]))) for cid in ranked if cid in names]
