"""Claim-verification scoring as the eval README says: overlap of at least half the gold
claim, greedy by overlap, one-to-one; the case file read strictly; folds keep a page's
answers together; the latency of verifying each answer, timed after a warm-up."""

import datetime as dt
import json
import time
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from evaluation.verification import (
    CaseFileError,
    case_group,
    load_cases,
    score_case,
    summarise_verification,
)
from knowledge import embeddings
from knowledge.reading.claims import Claim
from knowledge.verification.verdicts import ClaimVerdict, Verification

ANSWER = "You get £25.60 a week for the eldest child. Each other child gets £16.95 a month."
URL = "https://www.gov.uk/child-benefit"


def case_file(tmp_path, *records):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    return path


def record(**fields):
    claims = [
        {
            "text": "You get £25.60 a week for the eldest child",
            "verdict": "supported",
            "gold": [{"url": URL, "span": "Eldest or only child £25.60"}],
        },
        {
            "text": "Each other child gets £16.95 a month",
            "verdict": "contradicted",
            "gold": [{"url": URL, "span": "Additional children £16.95"}],
        },
    ]
    return {"id": "v-1", "answer": ANSWER, "as_of": "2024-10-01", "claims": claims} | fields


def returned(text: str, verdict: str) -> ClaimVerdict:
    start = ANSWER.index(text)
    return ClaimVerdict(Claim(start, start + len(text), text), verdict, "value_matches")


def test_claims_match_by_half_the_gold_length_one_to_one(tmp_path):
    (case,) = load_cases(case_file(tmp_path, record()))
    found = Verification(
        [
            returned("You get £25.60 a week", "supported"),  # over half of the first claim
            returned("£16.95 a month", "supported"),  # under half of the second: no match
        ],
        dt.date(2024, 10, 1),
        3.0,
    )

    result = score_case(case, found)

    assert result.pairs == [
        ("supported", "supported", "value_matches"),
        ("contradicted", "no match", ""),
    ]
    report = summarise_verification([result])
    assert report["verdict_accuracy"] == 0.5 and report["missed_claims"] == 0.5
    assert report["contradicted_recall"] == 0.0 and report["supported_precision"] == 1.0
    assert report["latency_ms"] == {"p50": 3.0, "p95": 3.0, "n": 1}


def test_an_answer_is_grouped_by_its_first_gold_page(tmp_path):
    no_gold = record(id="v-2", claims=[{"text": "You get £25.60 a week", "verdict": "unsupported"}])
    first, second = load_cases(case_file(tmp_path, record(), no_gold))
    assert case_group(first) == URL
    assert case_group(second) == "case:v-2"


def test_a_bad_line_is_named(tmp_path):
    with pytest.raises(CaseFileError, match="line 2"):
        load_cases(case_file(tmp_path, record(), {"id": "v-3"}))


FIRST_CALL_SECONDS = 0.5


class SlowToStartEmbedder:
    """Its first call takes half a second, as a model loading would; the others none."""

    name = "slow-to-start"

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        if self.calls == 1:
            time.sleep(FIRST_CALL_SECONDS)
        return embeddings.unit_vectors(np.ones((len(texts), embeddings.DIMENSIONS)))


def eval_verify(*args) -> str:
    out = StringIO()
    call_command("eval_verify", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_the_report_gives_each_answers_latency_after_a_warm_up(tmp_path, monkeypatch):
    embedder = SlowToStartEmbedder()
    monkeypatch.setattr(embeddings, "get_embedder", lambda: embedder)
    path = case_file(tmp_path, record(), record(id="v-2", as_of="2025-10-01"))

    report = json.loads(eval_verify(str(path), "--json"))

    latency = report["latency_ms"]
    assert latency["n"] == 2 and latency["p50"] <= latency["p95"]
    assert latency["p95"] < FIRST_CALL_SECONDS * 1000  # the first call was the warm-up's
    text = eval_verify(str(path))
    assert "latency per answer (ms, 2 answers after a warm-up): p50 " in text
