"""Is a unit about the same quantity as a claim — the same subject, measure and person, not
the same value? Decided with the claim's figures out of the reckoning, so that a different
number can never make a unit look less (or more) about the claim: whether the figure agrees is
the comparator's question (knowledge.reading.compare), asked only of the units this
part keeps.

Each candidate is described by a few signals (`FEATURES`): its similarity to the claim's
words, to the claim as a question with its figures out and to the claim after the sentence
before it; its concept's rank in the question search; whether it prints a figure of the
claim's measure with the claim's words beside it, or words beside it the claim does not have
(a Lifetime ISA's £4,000 beside a claim about the ISA allowance); the claim's words it
holds; the words of its concept's name the answer uses; a numbered variant other than the
claim's (Class 2 for Class 3); a worked example; how far it is behind the claim's nearest
candidate in similarity and in distinctive words. Two readings of them: the rules the project
grew (`rules_about`), and a logistic model fitted on our own labelled claims
(`manage.py train_reader`, knowledge/reader/aboutness.json with its manifest); cross-
validation with folds grouped by page chooses which one serves (`ABOUTNESS_READER`).
"""

from __future__ import annotations

import json
import math
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from knowledge.models import AtomicUnit
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import Claim, masked
from knowledge.reading.compare import unit_clause
from knowledge.reading.unit_figures import (
    another_variant,
    figure_context,
    printed_figures,
    worked_example,
)
from knowledge.text.words import designators
from knowledge.text.words import word_stems as stems

MODEL_FILE = Path(__file__).resolve().parents[1] / "reader" / "aboutness.json"
FEATURES = (
    "similarity",
    "masked_similarity",
    "context_similarity",
    "concept_first",
    "concept_found",
    "figure_words",
    "same_measure",
    "foreign_words",
    "claim_words",
    "distinct_words",
    "clause_words",
    "clause_foreign",
    "names_other",
    "name_words",
    "another_variant",
    "worked_example",
    "similarity_behind",
    "masked_behind",
    "distinct_behind",
)
# Features read against the claim's other candidates: how far a unit is behind the nearest of
# them. Whether a unit is about the claim is partly whether another is more so.
_BEHIND = {
    "similarity_behind": "similarity",
    "masked_behind": "masked_similarity",
    "distinct_behind": "distinct_words",
}
# The rules' reading (the similarities `eval_verify --cv` chose before this part existed): a
# unit about the claim is near it, or nearly as near with the claim's words beside a figure.
RULES_NEAR = 0.55
RULES_BESIDE = 0.50


@dataclass(frozen=True)
class Topic:
    """The words an answer gives a claim to be about: its own, and those of the sentence
    before it and the question asked; and how distinctive each word is among the claim's
    candidates (a word most of them share, "child" among Child Benefit's units, tells them
    apart less than "eldest")."""

    claim: frozenset[str]
    around: frozenset[str]
    weight: dict[str, float]
    rarest: float = 1.0  # the weight of a word no candidate has

    def weighed(self, words: frozenset[str]) -> float:
        return sum(self.weight.get(word, self.rarest) for word in words)


def claim_topic(claim: Claim, candidates: list[Evidence], *, before: str = "") -> Topic:
    own = stems(masked(claim.context))
    counts: dict[str, int] = {}
    for evidence in candidates:
        for word in stems(evidence.unit.text):
            counts[word] = counts.get(word, 0) + 1
    n = len(candidates)
    weight = {word: math.log((n + 1) / (count + 0.5)) for word, count in counts.items()}
    return Topic(own, own | stems(before), weight, max(weight.values(), default=1.0))


def about_features(
    claim: Claim, evidence: Evidence, topic: Topic, *, concept_name: str | None = None
) -> dict[str, float]:
    """`concept_name`: the unit's concept's name, when the caller holds it (a search's hit
    does), so that it is not read again unit by unit."""
    unit = evidence.unit
    figure_words, foreign, same = _beside_figures(claim, unit)
    name = stems(unit.concept.name if concept_name is None else concept_name)
    words = stems(unit.text)
    clause_text = unit_clause(claim, unit)
    clause = stems(clause_text)
    return {
        "similarity": evidence.similarity,
        "masked_similarity": evidence.masked_similarity,
        "context_similarity": evidence.context_similarity,
        "concept_first": float(evidence.concept_rank == 1),
        "concept_found": 1.0 / evidence.concept_rank if evidence.concept_rank else 0.0,
        "figure_words": figure_words,
        "same_measure": float(same),
        "foreign_words": foreign,
        "claim_words": _share(topic.claim, words),
        "distinct_words": _weighed_share(topic, topic.claim, words),
        "clause_words": _share(topic.claim, clause),
        "clause_foreign": _weighed_share(topic, clause - topic.around, clause),
        "names_other": float(_names_other(clause_text, topic)),
        "name_words": _share(name, topic.around),
        "another_variant": float(another_variant(designators(claim.text), unit.text)),
        "worked_example": float(worked_example(unit)),
    }


def features_among(features: list[dict[str, float]]) -> list[dict[str, float]]:
    """Each candidate's features with how far it is behind the claim's best candidate on
    each of `_BEHIND`'s signals (0 for the best)."""
    best = {signal: max((f[signal] for f in features), default=0.0) for signal in _BEHIND.values()}
    return [
        f | {name: best[signal] - f[signal] for name, signal in _BEHIND.items()} for f in features
    ]


def _beside_figures(claim: Claim, unit: AtomicUnit) -> tuple[float, float, bool]:
    """For the claim's figures and the unit's figures of the same measure: the best share of
    the words beside a claim's figure that are beside one of the unit's, the share of the
    words beside that figure of the unit the claim does not have, and whether the unit prints
    a figure of a measure the claim states at all."""
    best, foreign, same = 0.0, 0.0, False
    for figure in claim.figures:
        near_claim = figure_context(claim.text, figure.start, figure.end)
        for start, end, _ in printed_figures(unit.text, figure.unit):
            same = True
            near_unit = figure_context(unit.text, start, end)
            share = _share(near_claim, near_unit)
            if share > best or (share == best and not foreign):
                best = share
                foreign = 1.0 - _share(near_unit, near_claim) if near_unit else 0.0
    return best, foreign, same


# A name gov.uk writes in capitals: "Lifetime ISA", "Junior ISA", "Class 2", "Pension Credit".
_NAMED = re.compile(r"\b[A-Z][a-z']+(?:\s+(?:[A-Z][A-Za-z']*|\d+))+|\b[A-Z]{2,6}s?\b")


def _names_other(clause: str, topic: Topic) -> bool:
    """The unit's clause names a scheme with a word the answer never uses (the Lifetime ISA's
    £4,000 beside a claim about the ISA allowance)."""
    return any(stems(name) - topic.around for name in _NAMED.findall(clause) if stems(name))


def _weighed_share(topic: Topic, part: frozenset[str], whole: frozenset[str]) -> float:
    """The weight of the words of `part` found in `whole`, as a share of `part`'s."""
    total = topic.weighed(part)
    return topic.weighed(part & whole) / total if total else 0.0


def rules_about(features: dict[str, float]) -> bool:
    """The reading the project grew: near the claim, or nearly as near with the claim's words
    beside one of its figures; never another variant's, never a worked example."""
    if features["another_variant"] or features["worked_example"]:
        return False
    return features["similarity"] >= RULES_NEAR or (
        features["similarity"] >= RULES_BESIDE and features["figure_words"] > 0
    )


@dataclass(frozen=True)
class AboutnessModel:
    """A logistic model over FEATURES (standardised), and the probability at or above which a
    unit is about the claim."""

    weights: tuple[float, ...]
    bias: float
    means: tuple[float, ...]
    scales: tuple[float, ...]
    threshold: float

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(
            w * (features[name] - m) / s
            for w, name, m, s in zip(self.weights, FEATURES, self.means, self.scales, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def as_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "weights": list(self.weights),
            "bias": self.bias,
            "means": list(self.means),
            "scales": list(self.scales),
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict) -> AboutnessModel:
        if tuple(data["features"]) != FEATURES:
            raise ValueError(
                f"{MODEL_FILE.name} was fitted on other features ({data['features']}): "
                "rebuild it with `manage.py train_reader`"
            )
        return cls(
            tuple(data["weights"]),
            data["bias"],
            tuple(data["means"]),
            tuple(data["scales"]),
            data["threshold"],
        )


@dataclass(frozen=True)
class Cuts:
    """How much about the claim a unit must be for its figure to be compared with the
    claim's (`about`); how close to the unit most about the claim another must come for its
    agreeing figure to outweigh that unit's other one (`margin`); and how much about it a
    unit must be to decide a claim without figures by its meaning. Chosen with the model by
    cross-validation."""

    about: float
    margin: float
    meaning: float
    # How far behind the compared unit most about the claim a unit in force may be and still
    # decide its figure: "SSP for 2022-23 is £99.35" is about the SSP rates of the years
    # held, not about the eligibility rule's £123 earnings, in force but far less about it.
    behind: float = 1.0


@dataclass(frozen=True)
class Reader:
    """One reading of the signals: how much a unit is about the claim (to rank candidates,
    0 to 1), and the cuts the verdicts take."""

    name: str  # "model" | "rules"
    model: AboutnessModel | None = None
    cuts: Cuts = Cuts(0.0, 0.0, 0.0)

    def score(self, features: dict[str, float]) -> float:
        if self.model is not None:
            return self.model.probability(features)
        return features["similarity"] if rules_about(features) else 0.0


# The rules as the project grew them: `rules_about` gates, and a claim without figures needs
# a unit this near to be decided by its meaning.
RULES = Reader("rules", cuts=Cuts(about=0.01, margin=1.0, meaning=0.60))


# A reading that stands in for the served one while the reader is retrained (`read_with`).
_standing_in: Reader | None = None


@contextmanager
def read_with(reader: Reader):
    """Within the block, `served_reader()` is `reader`: retraining after FEATURES change reads
    the searches' "does a shown unit state what was asked" with the rules, as the file on
    disk was fitted on other features and cannot be read."""
    global _standing_in
    before, _standing_in = _standing_in, reader
    try:
        yield reader
    finally:
        _standing_in = before


def served_reader(path: Path = MODEL_FILE) -> Reader:
    """The reading cross-validation chose when the model was last trained (the file says
    which, beside the model and its manifest); the rules when no model has been trained.
    ValueError for a file fitted on other features."""
    if _standing_in is not None:
        return _standing_in
    return _file_reader(path)


@lru_cache(maxsize=1)
def _file_reader(path: Path) -> Reader:
    if not path.is_file():
        return RULES
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("serves") != "model":
        return RULES
    return Reader("model", AboutnessModel.from_json(data["model"]), Cuts(**data["cuts"]))


def about_scored(
    evidence: list[Evidence], features: list[dict[str, float]], reader: Reader
) -> list[Evidence]:
    """The candidates at or above the lowest cut, most about first, each with its `about`
    score."""
    lowest = min(reader.cuts.about, reader.cuts.meaning)
    about = []
    for found, signals in zip(evidence, features, strict=True):
        found.about = round(reader.score(signals), 4)
        if found.about >= lowest and found.about > 0:
            about.append(found)
    return sorted(about, key=lambda e: (-e.about, -e.similarity))


def _share(wanted: frozenset[str], found: frozenset[str]) -> float:
    return len(wanted & found) / len(wanted) if wanted else 0.0


def asked_stated(
    question: str, shown: list[tuple[AtomicUnit, str, float, int]], *, reader: Reader | None = None
) -> float:
    """How surely one of a search's shown units states what the question asks: the question
    read as a claim without figures (what it asks about, not a value), each shown unit (with
    its concept's name, its similarity to the question and its concept's rank) scored by the
    served aboutness reading, the best of them. 0 when nothing is shown. The ok/refuse
    decision weighs it (knowledge.retrieval.confidence)."""
    if not shown:
        return 0.0
    reader = reader or served_reader()
    claim = Claim(0, len(question), question)
    candidates = [
        Evidence(
            unit,
            similarity,
            "",
            masked_similarity=similarity,
            context_similarity=similarity,
            concept_rank=rank,
        )
        for unit, _, similarity, rank in shown
    ]
    topic = claim_topic(claim, candidates)
    features = features_among(
        [
            about_features(claim, found, topic, concept_name=name)
            for found, (_, name, _, _) in zip(candidates, shown, strict=True)
        ]
    )
    return round(max(reader.score(f) for f in features), 4)
