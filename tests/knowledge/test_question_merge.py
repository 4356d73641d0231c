"""Merging a question's several searches into one answer (knowledge.query.search)."""

import datetime as dt

from knowledge.query.search import Search, merge_results
from knowledge.retrieval import SearchParams
from knowledge.retrieval.hits import ConceptHit
from knowledge.retrieval.search import SearchResult
from tests.factories import ConceptFactory


def _hit(concept, score):
    return ConceptHit(concept, score, score, score, 0.0, below_quality=False)


def _result(*hits):
    return SearchResult(
        outcome="ok",
        reasons=[],
        concepts=list(hits),
        sources=[],
        context="",
        context_tokens=0,
        timings_ms={},
        thresholds={},
        as_of=dt.date(2024, 10, 1),
        mode="both",
    )


def test_a_question_inside_a_life_situation_leads_with_what_it_asks_about(db):
    # "I'm starting a degree: can I get a Maintenance Loan?": the situation's searches find
    # other topics nearer their own words, but the caller asked about the loan.
    loan, fees, repaying = (ConceptFactory() for _ in range(3))
    results = [
        _result(_hit(loan, 0.75), _hit(fees, 0.55)),  # the caller's words
        _result(_hit(fees, 0.78)),  # life event: Tuition Fee Loan
        _result(_hit(repaying, 0.83)),  # life event: repaying a student loan
    ]
    searches = [
        Search("q", "your words"),
        Search("fees", "life event"),
        Search("pay", "life event"),
    ]
    merged, _ = merge_results(results, searches, params=SearchParams(query="q", k=5), broad=True)
    assert [hit.concept for hit in merged.concepts] == [loan, repaying, fees]


def test_the_callers_best_does_not_displace_the_situations_topics_from_the_answer(db):
    # Kept: each search's leader; the caller's best, held by another search's nearer hit, is
    # not a leader and stays where its score puts it.
    grant, care, hours = (ConceptFactory() for _ in range(3))
    results = [
        _result(_hit(grant, 0.68)),
        _result(_hit(care, 0.85), _hit(grant, 0.70)),
        _result(_hit(hours, 0.89)),
    ]
    searches = [Search("q", "your words"), Search("a", "life event"), Search("b", "life event")]
    merged, _ = merge_results(results, searches, params=SearchParams(query="q", k=2), broad=True)
    assert [hit.concept for hit in merged.concepts] == [hours, care]
