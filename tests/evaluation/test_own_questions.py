"""Our own labelled questions (evaluation/data/questions.jsonl), written by hand against the
GOV.UK test corpus to fit and validate the answer/refuse decision: the records keep the shape of
the shared evaluation README's question format, there are enough of them (and enough refusals),
and, when the corpus sits beside the project, every gold span is found in its page's text built
as that README says."""

import datetime as dt
import html
import json
import re
import unicodedata
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "evaluation" / "data" / "questions.jsonl"
CORPUS = ROOT.parent / "shared" / "corpus" / "govuk"

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


# ------------------------------------------------------------------------------ page text
# The shared evaluation README's page text: guide parts as title then HTML body as text (block
# elements a break, inline elements gone without a gap), other pages' body_text as stored
# (spans on markdown pages also found once the markup is removed); then entities unescaped,
# curly quotes straight, Unicode spaces plain, invisible characters out, whitespace collapsed.

_BLOCK_TAGS_TEXT = (
    "address article aside blockquote br caption dd details div dl dt figcaption figure footer "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th "
    "thead tr ul"
)
BLOCK_TAGS = frozenset(_BLOCK_TAGS_TEXT.split())
SKIPPED_TAGS = frozenset({"script", "style", "template"})
STRAIGHT = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u02bc", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff\u00ad"),
    }
)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED_TAGS:
            self.skipping += 1
        elif tag in BLOCK_TAGS:
            self.chunks.append("\n")

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK_TAGS:
            self.chunks.append("\n")

    def handle_endtag(self, tag):
        if tag in SKIPPED_TAGS:
            self.skipping = max(0, self.skipping - 1)
        elif tag in BLOCK_TAGS:
            self.chunks.append("\n")

    def handle_data(self, data):
        if not self.skipping:
            self.chunks.append(data)


def html_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return "".join(parser.chunks)


def normalised(text: str, *, unescape: bool = True) -> str:
    if unescape:
        text = html.unescape(text)
    text = text.translate(STRAIGHT)
    text = "".join(" " if unicodedata.category(c) == "Zs" else c for c in text)
    return re.sub(r"\s+", " ", text).strip()


def markup_removed(markdown: str) -> str:
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    for _ in range(2):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    lines = []
    for line in text.splitlines():
        if re.fullmatch(r"[-|: ]*-{3,}[-|: ]*", line.strip()):
            continue
        line = re.sub(r"^\s*#{1,6}\s+", "", line)
        line = re.sub(r"^\s*(?:[*+-]|\d+\.)\s+", "", line)
        lines.append(line.replace("|", " "))
    text = "\n".join(lines)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return re.sub(r"(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)", r"\1", text)


def part_text(part: dict) -> str:
    return normalised(
        f"{part.get('title') or ''}\n{html_text(part.get('body_html') or '')}", unescape=False
    )


def page_texts(page: dict) -> list[str]:
    """The texts a span must occur in: the page text, and for markdown pages that text again
    with the markup removed."""
    if page.get("parts"):
        pieces = [
            f"{p.get('title') or ''}\n{html_text(p.get('body_html') or '')}" for p in page["parts"]
        ]
        return [normalised("\n".join(pieces), unescape=False)]
    body = page.get("body_text") or ""
    if "markdown" in (page.get("body_text_format") or "").lower():
        return [normalised(body), normalised(markup_removed(body))]
    return [normalised(body)]


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
    texts = {slug: page_texts(page) for slug, page in pages.items()}
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
            holder = next(p for p in parts if normalised(entry["span"]) in part_text(p))
            expected = page["url"] if holder is parts[0] else f"{page['url']}/{holder['slug']}"
            assert entry.get("part_url") == expected, _where(record)
