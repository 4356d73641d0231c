"""How a question is understood before it is searched, and a claim's verdict: the turns of a
conversation, what the analysis knows of the knowledge base, and what it concludes. Plain
typed objects; nothing here is about one provider."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from knowledge.domain.extraction import CategoryInfo, Usage
from knowledge.text.glossary import GlossaryEntry

# A word as topic-name phrases are bounded (knowledge.text.glossary.phrase_pattern): a run of
# word characters and hyphens.
_WORD = re.compile(r"[\w-]+")  # as phrase matches bound words: "self-employed" is one

TurnType = Literal["new", "follow_up", "clarification"]


QueryScope = Literal["topic", "life_situation"]


Strategy = Literal["none", "specific", "broad"]


Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ConversationTurn:
    role: str  # "user" | "assistant"
    content: str


@dataclass(frozen=True)
class LifeEventInfo:
    slug: str
    name: str
    triggers: tuple[str, ...]
    searches: tuple[str, ...]
    suggest_for: tuple[tuple[tuple[str, object], ...], ...] = ()  # alternatives, as items


@dataclass(frozen=True)
class QueryVocabulary:
    """What an analysis knows of the knowledge base: its categories, its glossary, its
    life-event map, and the names its topics go by (concept and category names without
    their qualifiers), which tell a question that names its topic from one that does not."""

    categories: tuple[CategoryInfo, ...] = ()
    glossary: tuple[GlossaryEntry, ...] = ()
    life_events: tuple[LifeEventInfo, ...] = ()
    topic_names: tuple[str, ...] = ()
    # The topic names by their first two words, built once with the vocabulary: a question
    # is checked against the names that start with two of its adjacent words, not against
    # every name, nor every name sharing a first word with it (hundreds at ten times
    # today's taxonomy, since topics share their first words: "income tax …", "child …").
    _names_by_first_words: dict[tuple[str, ...], tuple[str, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        index: dict[tuple[str, ...], list[str]] = {}
        for name in self.topic_names:  # longest first, and so each list
            words = _WORD.findall(name)
            index.setdefault(tuple(words[:2]) if len(words) >= 2 else (), []).append(name)
        object.__setattr__(
            self, "_names_by_first_words", {key: tuple(names) for key, names in index.items()}
        )

    def topic_names_in(self, lowered: str) -> list[str]:
        """The topic names that may stand in `lowered` (a lower-cased text), longest first:
        those whose first two words stand together in it (the second may carry a plural
        "s", as a phrase match allows). The caller checks each as a phrase."""
        words = _WORD.findall(lowered)
        keys = {()}
        for first, second in zip(words, words[1:], strict=False):
            keys.add((first, second))
            if second.endswith("s"):
                keys.add((first, second[:-1]))
        found = [n for key in keys for n in self._names_by_first_words.get(key, ()) if n in lowered]
        return sorted(found, key=lambda name: (-len(name), name))


class QueryEntities(BaseModel):
    """Facts about the person asking, as the question or conversation states them."""

    model_config = ConfigDict(extra="forbid")

    age: int | None = None
    income: float | None = None
    nation: Literal["England", "Scotland", "Wales", "Northern Ireland"] | None = None
    relationship: str | None = None
    children: int | None = None
    employment: str | None = None
    date_asked: str | None = None  # YYYY-MM-DD: the day the question is about


# The most searches a broad situation expands into, whoever analyses it.
MAX_SUB_QUERIES = 5


@dataclass
class QueryAnalysis:
    """How a turn is understood before it is searched. `analysed_by` says who did it:
    "heuristic", or the model's name; a model that failed leaves "heuristic" and the reason
    in `fallback`."""

    turn_type: str
    scope: str
    topic_shift: bool
    entities: dict
    standalone_query: str
    strategy: str
    sub_queries: list[str] = field(default_factory=list)
    life_event: str | None = None
    # With strategy "none": why nothing needs looking up ("small_talk", "arithmetic", ...).
    no_lookup: str = ""
    analysed_by: str = "heuristic"
    fallback: str = ""
    usage: Usage = field(default_factory=Usage)

    def as_json(self) -> dict:
        return {
            "turn_type": self.turn_type,
            "scope": self.scope,
            "topic_shift": self.topic_shift,
            "entities": self.entities,
            "standalone_query": self.standalone_query,
            "strategy": self.strategy,
            "sub_queries": self.sub_queries,
            "life_event": self.life_event,
            "no_lookup": self.no_lookup,
            "analysed_by": self.analysed_by,
            "fallback": self.fallback,
        }


ClaimVerdictName = Literal["supported", "contradicted", "unsupported"]


@dataclass(frozen=True)
class ClaimJudgement:
    """A model's verdict on a claim: `facts` are indexes into the facts it was shown;
    `judged_by` is the model's name."""

    verdict: str
    facts: tuple[int, ...]
    explanation: str
    judged_by: str
    usage: Usage = field(default_factory=Usage)
