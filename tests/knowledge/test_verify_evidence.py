"""The evidence of one answer's claims gathered together: their texts embedded in one call
to the embedder and each sentence searched once as a question, the units stating their
figures found in one query and every candidate read in one, and each claim's evidence the
same as if it had been searched alone."""

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from knowledge import embeddings
from knowledge.reading.claims import answer_claims
from knowledge.verification import evidence
from knowledge.verification.check import answer_verify
from knowledge.verification.evidence import claim_evidence, claims_evidence
from tests.factories import ConceptFactory, UnitFactory, axis_vector

pytestmark = pytest.mark.django_db

DAY = dt.date(2024, 10, 1)
ANSWER = (
    "You get £25.60 a week for the eldest child and £16.95 for each other child. "
    "The Personal Allowance is £12,570 a year. "
    "The Marriage Allowance lets you transfer £1,260 of your Personal Allowance."
)


class RecordingEmbedder:
    """Every text along one axis; each call's texts recorded."""

    name = "recording-model"

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([axis_vector(0)] * len(texts), dtype=np.float32)


@pytest.fixture
def embedder(monkeypatch) -> RecordingEmbedder:
    recording = RecordingEmbedder()
    monkeypatch.setattr(embeddings, "get_embedder", lambda: recording)
    return recording


@pytest.fixture
def rates():
    """A unit for each figure of ANSWER, each in a concept of its own, near every claim."""
    texts = {
        "25.60": "Child Benefit for the eldest or only child is £25.60 a week.",
        "12570": "The standard Personal Allowance is £12,570.",
        "1260": "Marriage Allowance lets you transfer £1,260 of your Personal Allowance.",
    }
    for n, (amount, text) in enumerate(texts.items()):
        UnitFactory(
            concept=ConceptFactory(embedding=axis_vector(0, 0.1 * n)),
            unit_type="threshold",
            text=text,
            value_amount=Decimal(amount),
            value_unit="GBP",
            embedding=axis_vector(0, 0.1 * n),
        )
    # Far from every claim's words: found by its figure alone, and only for the claim of it.
    UnitFactory(
        concept=ConceptFactory(embedding=axis_vector(1)),
        text="Guardian's Allowance was once £25.60 a week.",
        embedding=axis_vector(1),
    )


def test_an_answers_claims_are_embedded_in_one_call(embedder, rates):
    verification = answer_verify(answer=ANSWER, as_of=DAY)

    contexts = [claim.claim.context for claim in verification.claims]
    assert len(contexts) == 4 and contexts[0] == contexts[1]  # one sentence's two clauses
    assert set(contexts) <= set(embedder.calls[0])  # every claim's words in the first call
    embedded = [text for call in embedder.calls for text in call]
    assert len(embedded) == len(set(embedded))  # and no text embedded twice


def test_the_clauses_of_one_sentence_are_searched_once(embedder, rates, monkeypatch):
    searched = []
    search = evidence.question_search

    def spy(*, params, **kwargs):
        searched.append(params.query)
        return search(params=params, **kwargs)

    monkeypatch.setattr(evidence, "question_search", spy)
    claims = answer_claims(ANSWER)
    claims_evidence(claims, DAY)

    # each sentence as the question it answers, its figures out
    assert len(claims) == 4 and searched == list(dict.fromkeys(c.searched for c in claims))
    assert "£" not in " ".join(searched)


def test_the_units_stating_an_answers_figures_are_found_in_one_query_and_read_in_one(
    embedder, rates
):
    claims = answer_claims(ANSWER)
    with CaptureQueriesContext(connection) as queries:
        claims_evidence(claims, DAY)

    by_value = [q for q in queries.captured_queries if "u.figures @>" in q["sql"]]
    assert len(by_value) == 1 and by_value[0]["sql"].count("UNION ALL") >= 1
    ids = by_value[0]["sql"]
    read = [
        q
        for q in queries.captured_queries[queries.captured_queries.index(by_value[0]) + 1 :]
        if '"knowledge_atomicunit"."id" IN' in q["sql"]
    ]
    assert len(read) == 1, ids  # every claim's candidates, searched or stating, read at once


def test_each_claims_evidence_is_what_its_own_search_finds(embedder, rates):
    def shown(evidence):
        return [(e.unit.pk, e.similarity, e.temporal_status) for e in evidence]

    claims = answer_claims(ANSWER)
    together = claims_evidence(claims, DAY)

    assert [shown(found) for found in together] == [
        shown(claim_evidence(claim, DAY)) for claim in claims
    ]
    guardians = [e.unit.text for e in together[0] if e.unit.text.startswith("Guardian")]
    assert guardians and not any("Guardian" in e.unit.text for e in together[2] + together[3])
