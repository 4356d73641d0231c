"""Random draws for the synthetic knowledge base and its questions: vectors that gather
around each concept's topic as text embeddings do, and word-salad texts of realistic lengths.

Vectors are scaled to length 1 in the precision they were drawn in (`unit_vectors(...,
dtype=None)`: the calibrated topics are float64), so that a seed draws the base it always has.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from knowledge.embeddings import DIMENSIONS, unit_vectors

CATEGORY_COUNT = 23
FAR_QUERY_SHARE = 0.05

_VOCABULARY_TEXT = """allowance tax relief income pension state personal savings isa junior lifetime bonus
    rate threshold band basic higher additional earnings national insurance contributions class
    credit universal benefit child care free hours working family claim apply eligible you your
    partner spouse civil married couple blind person marriage transfer inheritance estate gift
    capital gains dividend interest property rental mortgage stamp duty land first time buyer
    student loan repayment plan postgraduate salary employer employee self employed trading
    profit loss carry forward year april january deadline return online paper penalty late
    payment account bank building society limit maximum minimum weekly monthly annual amount
    pounds percent over under age born before after live resident domicile scotland wales
    england northern ireland council band discount single occupant disabled carer attendance
    living independence payment housing support statutory sick maternity paternity adoption
    redundancy notice holiday minimum wage apprentice"""
VOCABULARY = tuple(_VOCABULARY_TEXT.split())
_WORD_COSTS = np.array([len(word) + 1 for word in VOCABULARY])  # the word and its space


@dataclass(frozen=True)
class VectorModel:
    """How the synthetic vectors spread around each concept's topic direction."""

    shaped: bool  # noise on a decaying spectrum (like text embeddings) rather than isotropic
    concept_cosine: tuple[float, float] | None  # concept to topic; None: the concept is the topic
    unit_cosine: tuple[float, float]  # unit to topic


VECTOR_MODELS = {
    # Random directions in all 384 dimensions, units at cosine 0.6–0.8 to their concept.
    "isotropic": VectorModel(shaped=False, concept_cosine=None, unit_cosine=(0.6, 0.8)),
    # Matches the real MiniLM vectors of the development database (1,408 units, 268
    # concepts): mean cosine unit–unit 0.24 (0.21 here), same concept 0.73 (0.74), same
    # category 0.43 (0.43), other category 0.21 (0.20), unit to own concept 0.73 (0.73), PCA
    # participation ratio 31 (29). A shared direction, a direction per category and a
    # 1/i variance spectrum give text embeddings' low intrinsic dimension.
    "calibrated": VectorModel(shaped=True, concept_cosine=(0.82, 0.89), unit_cosine=(0.82, 0.89)),
}
SHARED_WEIGHT, CATEGORY_WEIGHT = 0.29, 0.30  # shares of a calibrated topic's variance
SPECTRUM = 1 / np.arange(1, DIMENSIONS + 1)
SPECTRUM /= SPECTRUM.sum()
QUERY_COSINE = (0.8, 0.9)  # a question to its topic: ~0.6–0.75 to the topic's units


@dataclass
class BenchQueries:
    texts: list[str]
    vectors: np.ndarray
    near: np.ndarray  # False for the few drawn far from every concept


def _random_unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    return unit_vectors(rng.standard_normal((count, DIMENSIONS), dtype=np.float32), dtype=None)


def _noise(rng: np.random.Generator, count: int, *, shaped: bool) -> np.ndarray:
    """Random vectors of expected length 1, isotropic or on the decaying spectrum."""
    noise = rng.standard_normal((count, DIMENSIONS), dtype=np.float32)
    scale = np.sqrt(SPECTRUM) if shaped else np.sqrt(1 / DIMENSIONS)
    return noise * scale.astype(np.float32)


def topics_draw(
    rng: np.random.Generator, *, categories: np.ndarray, model: VectorModel
) -> np.ndarray:
    if not model.shaped:
        return _random_unit_vectors(rng, len(categories))
    shared = unit_vectors(_noise(rng, 1, shaped=True), dtype=None)
    by_category = unit_vectors(_noise(rng, CATEGORY_COUNT, shaped=True), dtype=None)
    own = unit_vectors(_noise(rng, len(categories), shaped=True), dtype=None)
    own_weight = 1 - SHARED_WEIGHT - CATEGORY_WEIGHT
    return unit_vectors(
        np.sqrt(SHARED_WEIGHT) * shared
        + np.sqrt(CATEGORY_WEIGHT) * by_category[categories]
        + np.sqrt(own_weight) * own,
        dtype=None,
    )


def vectors_near(
    rng: np.random.Generator, centres: np.ndarray, cosine: tuple[float, float], *, shaped: bool
) -> np.ndarray:
    """Vectors at cosine ~U(cosine) to their centres: noise of length `spread`, nearly
    orthogonal to the centre, gives cos = 1 / sqrt(1 + spread²) (shaped noise less exactly)."""
    target = rng.uniform(*cosine, len(centres)).astype(np.float32)
    spread = np.sqrt(1 / target**2 - 1)
    return unit_vectors(
        centres + _noise(rng, len(centres), shaped=shaped) * spread[:, None], dtype=None
    )


def texts_draw(rng: np.random.Generator, count: int, *, shortest: int, longest: int) -> list[str]:
    """Word salad from the vocabulary, skewed to short like real units, within the bounds."""
    longest_word = max(_WORD_COSTS)
    span = longest - shortest - longest_word - 1
    targets = shortest + longest_word + (span * rng.beta(1.5, 4, count)).astype(int)
    words = rng.integers(0, len(VOCABULARY), (count, longest // 3 + 1))
    ends = np.cumsum(_WORD_COSTS[words], axis=1)  # text length with its final "." is ends[n-1]
    taken = (ends <= targets[:, None]).sum(axis=1)
    return [
        " ".join([VOCABULARY[j] for j in row[:n]]).capitalize() + "."
        for row, n in zip(words, taken, strict=True)
    ]


def choices_draw(rng: np.random.Generator, table: tuple, count: int) -> list[str]:
    names, shares = zip(*table, strict=True)
    return rng.choice(names, size=count, p=shares).tolist()  # plain str for psycopg


def units_per_concept(rng: np.random.Generator, *, concepts: int, units: int) -> np.ndarray:
    """At least one unit each, the rest skewed: a few concepts hold many units."""
    weights = rng.lognormal(0, 0.8, concepts)
    return 1 + rng.multinomial(units - concepts, weights / weights.sum())


def queries_draw(
    *, topics: np.ndarray, count: int, shaped: bool, rng: np.random.Generator
) -> BenchQueries:
    """Questions near a random concept's topic (answerable: ~0.6–0.75 to its units), and a
    few random directions, which in 384 dimensions are near nothing (out of scope)."""
    far = max(1, round(count * FAR_QUERY_SHARE))
    picks = rng.integers(0, len(topics), count - far)
    vectors = np.concatenate(
        [
            vectors_near(rng, topics[picks], QUERY_COSINE, shaped=shaped),
            _random_unit_vectors(rng, far),
        ]
    )
    near = np.arange(count) < count - far
    order = rng.permutation(count)
    # Unique texts of realistic length: the lookup embedder finds each vector by its text.
    # Each asks about a tax rule, so that the analysis searches it (a turn naming no rule may
    # need no lookup at all, and would time nothing).
    texts = [
        f"benchmark question {n} on the tax rules: {words}"
        for n, words in enumerate(texts_draw(rng, count, shortest=30, longest=90))
    ]
    return BenchQueries(texts=texts, vectors=vectors[order], near=near[order])
