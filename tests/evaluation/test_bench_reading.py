"""The reading benchmark's answers: five labelled claims of one day a sentence each, so that
every answer it times has five claims to check."""

import datetime as dt

from evaluation.bench.reading import CLAIMS_AN_ANSWER, _percentile, five_claim_answers
from evaluation.verification import VerifyCase
from knowledge.reading.claims import answer_claims


def _case(day, *texts):
    return VerifyCase.model_validate(
        {
            "id": f"c-{day}-{len(texts)}",
            "answer": " ".join(f"{t}." for t in texts),
            "as_of": day,
            "claims": [{"text": t, "verdict": "supported", "gold": []} for t in texts],
        }
    )


def test_answers_hold_five_claims_of_one_day():
    day, other = dt.date(2024, 10, 1), dt.date(2023, 10, 1)
    cases = [
        _case(day, "The ISA allowance is £20,000", "Child Benefit is £25.60 a week"),
        _case(day, "The Personal Allowance is £12,570", "the basic rate is 20%"),
        _case(day, "The higher rate is 40%", "the additional rate is 45%"),
        _case(other, "Child Benefit was £24.00 a week"),
    ]

    answers = five_claim_answers(cases)

    assert [when for _, when in answers] == [day]  # the other day has too few claims
    ((answer, _),) = answers
    assert len(answer_claims(answer)) == CLAIMS_AN_ANSWER
    assert answer.startswith("The ISA allowance is £20,000. Child Benefit")


def test_percentiles_of_none_and_one():
    assert _percentile([], 50) is None
    assert _percentile([7.0], 95) == 7.0
    assert _percentile([1.0, 2.0, 3.0], 50) == 2.0
