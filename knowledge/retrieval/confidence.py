"""How sure a search is that the knowledge base holds the answer: a handful of explained
signals about what the question asks for and what the units found carry, weighed by a
logistic model fitted by cross-validation (`manage.py fit_outcome`) and stored as data
beside this module. The model file names its signals; a missing file leaves the typed rules
of `outcome` to decide alone.

Signals (each in 0..1):
- `topic_similarity`: the question to the nearest concept's own text (is the topic known?);
- `top_score`, `unit_similarity`: the best concept's score and its best unit's similarity;
- `topic_has_facts`: the nearest concept holds units at all;
- `kind_found`: the best concepts hold a unit of the kind the question asks for (an amount
  asks for a threshold, eligibility for eligibility, steps for a procedure);
- `in_force`: share of the best concept's shown units served on the day asked about: in
  force, or the newest held past their period (outdated; the outcome then says so);
- `terms_covered`: share of the question's own content words found in the best units;
- `asks_amount`, `date_named`: what the question asks (the model weighs the others by them);
- `amount_dated_on_day`: for an amount question, a figure shown that is in force (or the
  newest held, outdated) on the day and dated to start by then (1 for other questions);
- `topic_has_amount`: the nearest concept holds a threshold unit at all;
- `other_country`: the question names another country's system or currency;
- `amount_of_the_year`: for an amount question about a given day, a figure stated for that
  day's year (1 for other questions);
- `rules_refuse`: the typed rules of `outcome` give a reason to refuse;
- `answer_terms`: the share of the question's content words one unit of the kind asked for
  holds (the best such unit);
- `designators_held`: a numbered variant the question names (Plan 2, Class 1A) is named by a
  unit found (1 when it names none);
- `states_asked`: how surely a shown unit of the best concept states what the question asks,
  by the aboutness reading claim checking uses (knowledge.reading.aboutness: the question
  read as a claim without figures).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from knowledge.domain.temporal import SERVED
from knowledge.reading.aboutness import asked_stated
from knowledge.text.dates import tax_year_start_year
from knowledge.text.words import STOPWORDS, acronyms, designators, spelled_out

MODEL_FILE = Path(__file__).resolve().parent / "outcome_model.json"
SIGNALS = (
    "topic_similarity",
    "top_score",
    "unit_similarity",
    "topic_has_facts",
    "kind_found",
    "in_force",
    "terms_covered",
    "asks_amount",
    "date_named",
    "amount_dated_on_day",
    "topic_has_amount",
    "other_country",
    "amount_of_the_year",
    "rules_refuse",
    "answer_terms",
    "designators_held",
    "states_asked",
)
# The knowledge base holds UK rules only: a question about another country's system (its
# name, its citizens or its currency) is about something it does not hold.
_OTHER_COUNTRY = re.compile(
    r"\$|€|\b(?:US|USA|U\.S\.|America[n]?|(?<!Northern )Ireland|Irish|France|French|Germany|"
    r"German|Spain|Spanish|Australia[n]?|Canada|Canadian|India[n]?)\b"
)

# What a question asks for, read from its interrogative form (general English, not any
# question set's wording): the first kind whose pattern matches.
_ASKS = (
    (
        "amount",
        re.compile(
            r"\bhow (?:much|many pounds|high|low)\b|£|\b(?:rate|limit|threshold|allowance|amount|cap|"
            r"bonus|charge|penalty|fee|wage|maximum|minimum|percent(?:age)?)s?\b|%|"
            r"\b(?:per|a|each) (?:week|month|year)\b|\b(?:weekly|monthly|yearly)\b",
            re.I,
        ),
    ),
    ("date", re.compile(r"\b(?:when|deadline|how long|how soon|by what date|what date)\b", re.I)),
    (
        "procedure",
        re.compile(r"\bhow (?:do|can|should|would) (?:i|we|you)\b|\bhow to\b|\bwhere do i\b", re.I),
    ),
    (
        "eligibility",
        re.compile(
            r"^\W*(?:can|could|am|are|is|do|does|will|would|should)\b|\b(?:eligible|qualify|entitled|who can)\b",
            re.I,
        ),
    ),
    ("definition", re.compile(r"^\W*what(?:'s| is| are| does)\b", re.I)),
)
_KIND_UNITS = {
    "amount": ("threshold",),
    "date": ("rule", "procedure", "threshold"),
    "procedure": ("procedure", "rule"),
    "eligibility": ("eligibility", "rule"),
    "definition": ("definition", "rule"),
}
# The words with which a question names the kind of fact it wants rather than its topic: a
# unit of that kind answers them whatever its own wording ("HICBC threshold" is answered by
# "… an adjusted net income over £60,000", which never says "threshold").
_KIND_WORDS = {
    "amount": frozenset({"threshold", "limit", "amount", "rate", "level", "figure"}),
    "eligibility": frozenset({"eligible", "eligibility", "qualify", "entitled"}),
    "procedure": frozenset({"steps", "procedure", "process"}),
}
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")

_WORD = re.compile(r"[a-z0-9]+")
TOP_CONCEPTS = 3


def asks_for(question: str) -> str:
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return "other"


def outcome_signals(
    *, question: str, hits, topic, concept_rows, day, dated: bool, rule_reasons: list[str]
) -> dict[str, float]:
    """The signals of one search (see the module's docstring). `dated`: the question is
    about a given day (sent, or read from its words)."""
    kind = asks_for(question)
    best = hits[:TOP_CONCEPTS]
    units = [u for hit in best for u in hit.units]
    top_units = best[0].units if best else []
    wanted = _KIND_UNITS.get(kind, ())
    return {
        "topic_similarity": round(concept_rows[0][1], 4) if concept_rows else 0.0,
        "top_score": best[0].score if best else 0.0,
        "unit_similarity": max((u.similarity for u in top_units), default=0.0),
        "topic_has_facts": float(bool(topic and topic.unit_count)),
        "kind_found": float(any(_carries(u.unit, kind, wanted) for u in units)) if wanted else 1.0,
        "in_force": _share(u.temporal_status in SERVED for u in top_units),
        "terms_covered": _terms_covered(question, best, kind, wanted),
        "asks_amount": float(kind == "amount"),
        "date_named": float(bool(_YEAR.search(question))),
        "amount_dated_on_day": _amount_dated(units, day) if kind == "amount" else 1.0,
        "topic_has_amount": float(bool(topic and topic.thresholds)),
        "other_country": float(bool(_OTHER_COUNTRY.search(question))),
        "amount_of_the_year": _of_the_year(units, day) if kind == "amount" and dated else 1.0,
        "rules_refuse": float(bool(rule_reasons)),
        "answer_terms": _answer_terms(question, best, kind, wanted),
        "designators_held": _designators_held(question, units),
        "states_asked": asked_stated(
            question,
            [(u.unit, best[0].concept.name, u.similarity, 1) for u in top_units],
        ),
    }


def _designators_held(question: str, units) -> float:
    """1 when the question names no numbered variant (Plan 2, Class 1A), or a unit found
    names every one it names (a worked example counts: it states the variant's figure); 0
    when the units found are all another variant's."""
    named = designators(question)
    if not named:
        return 1.0
    return float(any(named <= designators(u.unit.text) for u in units))


def _answer_terms(question: str, hits, kind: str, wanted: tuple[str, ...]) -> float:
    """The share of the question's content words held by one unit of the kind asked for
    (with its concept's name): the best such unit. A page that names the topic but not the
    detail asked about leaves words uncovered in every single unit."""
    words = _content_words(question)
    if not words:
        return 1.0
    best = 0.0
    for hit in hits:
        for u in hit.units:
            if wanted and not _carries(u.unit, kind, wanted):
                continue
            held = f"{hit.concept.name} {u.unit.text}"
            answered = _KIND_WORDS.get(kind, frozenset()) if wanted else frozenset()
            best = max(best, _share_held(question, words, held, answered))
    return round(best, 4)


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def _of_the_year(units, day) -> float:
    """A figure shown that is stated for the year of the day asked about: it starts in that
    tax year, or its validity has an end and covers the day. A figure carried forward from
    an earlier year with no end may have changed since (yearly rates do, every April)."""
    year = tax_year_start_year(day)
    return float(
        any(
            u.unit.value_amount is not None
            and u.unit.valid_from is not None
            and (
                tax_year_start_year(u.unit.valid_from) == year
                or (u.unit.valid_to is not None and u.unit.valid_from <= day <= u.unit.valid_to)
            )
            for u in units
        )
    )


def _amount_dated(units, day) -> float:
    """An amount shown that is in force on the day and whose validity starts by then: an
    undated figure or one that starts later does not answer for that day."""
    return float(
        any(
            u.unit.value_amount is not None
            and u.temporal_status in SERVED
            and u.unit.valid_from is not None
            and u.unit.valid_from <= day
            for u in units
        )
    )


def answers_kind_asked(unit, question: str) -> bool:
    """The unit is of the kind the question asks for (a figure, for an amount question);
    every unit answers a question of no particular kind."""
    kind = asks_for(question)
    wanted = _KIND_UNITS.get(kind, ())
    return _carries(unit, kind, wanted) if wanted else True


def _carries(unit, kind: str, wanted: tuple[str, ...]) -> bool:
    if unit.unit_type not in wanted:
        return False
    return kind != "amount" or unit.value_amount is not None


def _share(flags) -> float:
    flags = list(flags)
    return round(sum(flags) / len(flags), 4) if flags else 0.0


def _terms_covered(question: str, hits, kind: str, wanted: tuple[str, ...]) -> float:
    words = _content_words(question)
    if not words:
        return 1.0
    units = [u for hit in hits for u in hit.units]
    held = " ".join([hit.concept.name for hit in hits] + [u.unit.text for u in units])
    carried = wanted and any(_carries(u.unit, kind, wanted) for u in units)
    answered = _KIND_WORDS.get(kind, frozenset()) if carried else frozenset()
    return round(_share_held(question, words, held, answered), 4)


def _share_held(question: str, words: set[str], held: str, answered=frozenset()) -> float:
    """The share of the question's content words that `held` has (by their first five
    letters), an abbreviation the question writes in capitals counting when `held` spells
    it out, and a word naming the kind of fact asked for (`answered`) when a unit of that
    kind is among `held`."""
    held_words = {w[:5] for w in _WORD.findall(held.lower())}
    short = acronyms(question)
    found = sum(
        w[:5] in held_words or w in answered or (w in short and spelled_out(w, held)) for w in words
    )
    return found / len(words)


@dataclass(frozen=True)
class OutcomeModel:
    """A logistic model over named signals and the confidence at or above which a search
    answers `ok`, with how it was fitted."""

    weights: dict[str, float]
    bias: float
    threshold: float
    fitted: dict

    def confidence(self, signals: dict[str, float]) -> float:
        z = self.bias + sum(w * signals.get(name, 0.0) for name, w in self.weights.items())
        return round(1 / (1 + math.exp(-z)), 4)

    def as_json(self) -> dict:
        return {
            "weights": self.weights,
            "bias": self.bias,
            "threshold": self.threshold,
            "fitted": self.fitted,
        }


@functools.cache
def outcome_model(path: Path = MODEL_FILE) -> OutcomeModel | None:
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    unknown = set(data["weights"]) - set(SIGNALS)
    if unknown:
        raise ValueError(f"{path.name}: unknown signals {sorted(unknown)}")
    return OutcomeModel(data["weights"], data["bias"], data["threshold"], data.get("fitted", {}))
