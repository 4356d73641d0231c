"""Our own labelled claims (evaluation/data/claims.jsonl) keep their promises: the verify-case
shape, claims that are single non-overlapping stretches of their answer, gold spans only where
the corpus speaks, a verdict mix no class dominates, and every span found verbatim in its page.

The span check reads the shared gov.uk corpus kept beside the project and builds each page's
text by the corpus's own rules (evaluation.corpus_text). It is skipped when the corpus is not
there. No database is needed.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

from evaluation.corpus_text import CORPUS, normalised, page, page_texts, part_url, span_part

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "evaluation" / "data" / "claims.jsonl"

VERDICTS = {"supported", "contradicted", "unsupported"}
RECORD_KEYS = {"id", "answer", "as_of", "profile", "claims", "topic"}
CLAIM_KEYS = {"text", "verdict", "gold", "note"}
GOLD_KEYS = {"slug", "url", "span", "part_url"}
NATIONS = {"england", "scotland", "wales", "northern_ireland"}
EMPLOYMENT = {"employed", "self_employed", "unemployed", "retired", "student"}
PLANS = {"plan_1", "plan_2", "plan_4", "plan_5", "postgraduate"}
SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
MIN_CLAIMS = 320
MIN_SHARE = 0.20


@cache
def records() -> list[dict]:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def all_claims() -> list[dict]:
    return [claim for record in records() for claim in record["claims"]]


def test_records_have_the_verify_case_shape():
    ids = [record["id"] for record in records()]
    assert len(ids) == len(set(ids))
    for record in records():
        assert {"id", "answer", "as_of", "claims", "topic"} <= set(record) <= RECORD_KEYS
        assert re.fullmatch(r"own-claim-\d{3}", record["id"])
        assert isinstance(record["answer"], str) and record["answer"].strip()
        assert SNAKE.fullmatch(record["topic"]), record["id"]
        if record["as_of"] is not None:
            dt.date.fromisoformat(record["as_of"])
        assert 1 <= len(record["claims"]) <= 4, record["id"]


def test_claims_occur_once_in_their_answer_and_do_not_overlap():
    for record in records():
        answer, spans = record["answer"], []
        for claim in record["claims"]:
            assert set(claim) == CLAIM_KEYS, record["id"]
            assert claim["verdict"] in VERDICTS, record["id"]
            assert claim["note"].strip(), record["id"]
            assert answer.count(claim["text"]) == 1, (record["id"], claim["text"])
            start = answer.index(claim["text"])
            spans.append((start, start + len(claim["text"])))
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(spans))


def test_gold_is_empty_exactly_for_unsupported_claims():
    for record in records():
        for claim in record["claims"]:
            gold = claim["gold"]
            assert (claim["verdict"] == "unsupported") == (gold == []), record["id"]
            slugs = [entry["slug"] for entry in gold]
            assert len(slugs) == len(set(slugs)), record["id"]
            for entry in gold:
                assert {"slug", "url", "span"} <= set(entry) <= GOLD_KEYS, record["id"]
                assert entry["url"].startswith("https://www.gov.uk/"), record["id"]
                assert entry["span"].strip(), record["id"]


def _valid_profile(profile: dict) -> bool:
    checks = {
        "age": lambda v: isinstance(v, int) and 0 < v < 120,
        "nation": lambda v: v in NATIONS,
        "annual_income": lambda v: isinstance(v, int | float) and v >= 0,
        "employment": lambda v: v in EMPLOYMENT,
        "partner": lambda v: isinstance(v, bool),
        "children_ages": lambda v: isinstance(v, list) and all(isinstance(a, int) for a in v),
        "benefits": lambda v: isinstance(v, list) and all(SNAKE.fullmatch(b) for b in v),
        "student_loan_plan": lambda v: v in PLANS,
    }
    return bool(profile) and all(key in checks and checks[key](v) for key, v in profile.items())


def test_profiles_use_known_keys_and_values():
    profiled = [record for record in records() if "profile" in record]
    assert profiled
    assert [r["id"] for r in profiled if not _valid_profile(r["profile"])] == []


def test_there_are_enough_claims_and_no_verdict_is_rare():
    verdicts = Counter(claim["verdict"] for claim in all_claims())
    total = sum(verdicts.values())
    assert total >= MIN_CLAIMS
    assert {v: verdicts[v] / total >= MIN_SHARE for v in VERDICTS} == dict.fromkeys(VERDICTS, True)


def _part_url(slug: str, span: str) -> str | None:
    """The address of the guide part holding the span, when that is not the first part."""
    index = span_part(slug, span)
    return part_url(slug, index) if index else None


def test_every_span_occurs_verbatim_in_its_page():
    if not (CORPUS / "pages").is_dir():
        pytest.skip(f"gov.uk corpus not found beside the project ({CORPUS})")
    missing = []
    for record in records():
        for claim in record["claims"]:
            for entry in claim["gold"]:
                slug, span = entry["slug"], entry["span"]
                if not (CORPUS / "pages" / f"{slug}.json").is_file():
                    missing.append((record["id"], slug, "no such page"))
                    continue
                if entry["url"] != page(slug)["url"] or normalised(span) != span:
                    missing.append((record["id"], slug, "url or unnormalised span"))
                elif not all(span in text for text in page_texts(slug)):
                    missing.append((record["id"], slug, span))
                elif entry.get("part_url") != _part_url(slug, span):
                    missing.append((record["id"], slug, f"part_url {entry.get('part_url')}"))
    assert missing == []
