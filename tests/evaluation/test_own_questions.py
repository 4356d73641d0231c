"""Our own labelled questions (evaluation/data/questions.jsonl), written by hand against the
GOV.UK test corpus to fit and validate the answer/refuse decision: the records keep the shape of
the shared evaluation README's question format, there are enough of them (and enough refusals),
and, when the corpus sits beside the project, every gold span is found in its page's text built
as that README says."""

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from evaluation.corpus_text import CORPUS, normalised, page_texts, part_url, span_part

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "evaluation" / "data" / "questions.jsonl"

FIELDS = {
    "id",
    "question",
    "answerable",
    "category",
    "kind",
    "as_of",
    "gold",
    "answer_key",
    "notes",
}
OPTIONAL = {"conversation", "aspects"}
KINDS = {
    "specific",
    "broad",
    "temporal",
    "paraphrase",
    "abbreviation",
    "colloquial",
    "follow_up",
    "topic_shift",
}
IN_CONVERSATION = {"follow_up", "topic_shift"}
CATEGORIES = {
    "Benefits",
    "Child Benefit & HICBC",
    "Student finance",
    "Pensions",
    "ISAs & Junior ISAs",
    "Income Tax",
    "Inheritance Tax",
    "National Insurance",
    "Childcare",
    "Capital Gains Tax",
    "Savings & dividends",
    "Self Assessment",
    "Minimum wage",
    "Debt",
    "Out of scope",
}
AT_LEAST_QUESTIONS = 220
AT_LEAST_UNANSWERABLE = 60
AT_LEAST_OUT_OF_SCOPE = 10
# Kinds where retrieval usually fails: each needs enough answerable questions to measure it.
AT_LEAST_PER_HARD_KIND = 15
HARD_KINDS = ("paraphrase", "colloquial", "abbreviation", "temporal", "follow_up")


def _records() -> list[dict]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


RECORDS = _records()


def _where(record: dict) -> str:
    return record.get("id", "?")


# ------------------------------------------------------------------------------ shape


def test_ids_are_unique_and_numbered():
    ids = [record["id"] for record in RECORDS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"own-q-\d{3}", i) for i in ids)


def test_every_record_has_the_fields_of_the_question_format():
    wrong = [_where(r) for r in RECORDS if not set(r) >= FIELDS or set(r) - FIELDS - OPTIONAL]
    assert wrong == []


def test_fields_hold_valid_values():
    for record in RECORDS:
        where = _where(record)
        assert isinstance(record["question"], str) and record["question"].strip(), where
        assert isinstance(record["answerable"], bool), where
        assert record["category"] in CATEGORIES, where
        assert record["kind"] in KINDS, where
        assert isinstance(record["notes"], str) and record["notes"].strip(), where
        if record["as_of"] is not None:
            assert dt.date.fromisoformat(record["as_of"]).isoformat() == record["as_of"], where


def test_gold_is_empty_exactly_when_the_question_is_unanswerable():
    for record in RECORDS:
        where = _where(record)
        assert isinstance(record["gold"], list), where
        if record["answerable"]:
            assert record["gold"], where
            assert record["category"] != "Out of scope", where
            # Broad questions have no short answer; every other answerable one has one.
            assert (record["answer_key"] is None) == (record["kind"] == "broad"), where
        else:
            assert record["gold"] == [] and record["answer_key"] is None, where
            assert "aspects" not in record, where


def test_gold_entries_name_a_page_once_with_its_url_and_a_span():
    for record in RECORDS:
        slugs = [entry["slug"] for entry in record["gold"]]
        assert len(slugs) == len(set(slugs)), _where(record)
        for entry in record["gold"]:
            assert set(entry) in ({"slug", "url", "span"}, {"slug", "url", "span", "part_url"})
            assert entry["url"].startswith("https://www.gov.uk/"), _where(record)
            assert entry["span"].strip() == entry["span"] and entry["span"], _where(record)


def test_conversations_come_before_follow_ups_and_topic_shifts_only():
    for record in RECORDS:
        where = _where(record)
        turns = record.get("conversation")
        assert (turns is not None) == (record["kind"] in IN_CONVERSATION), where
        if turns is None:
            continue
        assert isinstance(turns, list) and turns, where
        roles = [turn["role"] for turn in turns]
        # Oldest first, taking turns, and ending with the assistant: the question comes next.
        assert roles == ["user", "assistant"] * (len(turns) // 2), where
        assert all(set(turn) == {"role", "content"} for turn in turns), where
        assert all(isinstance(t["content"], str) and t["content"].strip() for t in turns), where


def test_aspects_are_on_broad_questions_and_drawn_from_their_gold():
    with_aspects = [record for record in RECORDS if "aspects" in record]
    assert with_aspects
    for record in with_aspects:
        where = _where(record)
        assert record["kind"] == "broad" and 2 <= len(record["aspects"]) <= 5, where
        gold = {(entry["slug"], entry["span"]) for entry in record["gold"]}
        for aspect in record["aspects"]:
            assert isinstance(aspect["name"], str) and aspect["name"].strip(), where
            assert aspect["gold"], where
            assert {(e["slug"], e["span"]) for e in aspect["gold"]} <= gold, where


def test_questions_are_not_repeated():
    # A follow-up may repeat another's words ("how long can i get it for"), never its context.
    keys = [(r["question"], json.dumps(r.get("conversation"))) for r in RECORDS]
    assert len(keys) == len(set(keys))


# ------------------------------------------------------------------------------ counts


def test_there_are_enough_questions_and_refusals():
    unanswerable = [record for record in RECORDS if not record["answerable"]]
    assert len(RECORDS) >= AT_LEAST_QUESTIONS
    assert len(unanswerable) >= AT_LEAST_UNANSWERABLE
    out_of_scope = [r for r in unanswerable if r["category"] == "Out of scope"]
    assert len(out_of_scope) >= AT_LEAST_OUT_OF_SCOPE
    # Most refusals sit next to what the corpus holds: that is what makes refusing hard.
    assert len(unanswerable) - len(out_of_scope) > len(out_of_scope)


def test_answerable_questions_cover_every_kind_and_topic():
    answerable = [record for record in RECORDS if record["answerable"]]
    kinds = Counter(record["kind"] for record in answerable)
    assert set(kinds) == KINDS
    assert all(kinds[kind] >= AT_LEAST_PER_HARD_KIND for kind in HARD_KINDS), kinds
    assert {record["category"] for record in answerable} == CATEGORIES - {"Out of scope"}


@pytest.fixture(scope="module")
def pages() -> dict[str, dict]:
    if not (CORPUS / "pages").is_dir():
        pytest.skip("the GOV.UK test corpus is not beside the project")
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((CORPUS / "pages").glob("*.json"))
    }


def test_gold_urls_are_their_pages_urls(pages):
    for record in RECORDS:
        for entry in record["gold"]:
            assert entry["slug"] in pages, (_where(record), entry["slug"])
            assert entry["url"] == pages[entry["slug"]]["url"], _where(record)


def test_every_span_occurs_in_its_page_text(pages):
    texts = {slug: page_texts(slug) for slug in pages}
    missing = [
        (_where(record), entry["slug"], entry["span"])
        for record in RECORDS
        for entry in record["gold"]
        if not all(normalised(entry["span"]) in text for text in texts[entry["slug"]])
    ]
    assert missing == []


def test_part_urls_name_the_part_that_holds_the_span(pages):
    for record in RECORDS:
        for entry in record["gold"]:
            page = pages[entry["slug"]]
            parts = page.get("parts") or []
            if not parts:
                assert "part_url" not in entry, _where(record)
                continue
            index = span_part(entry["slug"], entry["span"])
            assert entry.get("part_url") == part_url(entry["slug"], index), _where(record)
