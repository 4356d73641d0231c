"""The parser on real corpus pages: headers restated in table rows, heading paths, links."""

import json
import re

import pytest

from knowledge.documents import PageFormatError, document_from_json
from knowledge.parsing import linearise_row, parse_document
from knowledge.text.normalise import normalise_inline
from knowledge.text.sections import section_at


def parse_file(path):
    return parse_document(document_from_json(json.loads(path.read_text()), origin=path.name))


def test_normalise_inline_straightens_quotes_and_spaces():
    assert normalise_inline("you\u2019re \u201cfine\u201d\u00a0 now\u200b &amp; then") == (
        'you\'re "fine" now & then'
    )


def test_linearised_rows_restate_headers_and_skip_empty_cells():
    assert linearise_row(["Band", "Rate"], ["Basic", "20%"]) == "Band: Basic; Rate: 20%"
    assert linearise_row(["Band", "Rate", "Note"], ["Basic", "20%", ""]) == "Band: Basic; Rate: 20%"
    assert linearise_row([], ["a", "b"]) == "a; b"


def test_html_table_rows_carry_their_column_headers(corpus_pages):
    parsed = parse_file(corpus_pages / "national-insurance-rates-letters.json")
    rows = [line for line in parsed.text.splitlines() if line.startswith("Category letter: ")]
    assert parsed.table_rows >= 16
    assert len(rows) >= 16, "rows should restate the 'Category letter' header"
    assert (
        "Category letter: A; £123 to £242 (£533 to £1,048 a month): 0%; "
        "£242.01 to £967 (£1,048.01 to £4,189 a month): 8%; "
        "Over £967 a week (£4,189 a month): 2%"
    ) in rows


def test_markdown_pipe_table_rows_carry_headers(corpus_pages):
    parsed = parse_file(corpus_pages / "tax-on-dividends--overview--2024-25.json")
    assert "Tax year: 6 April 2024 to 5 April 2025; Dividend allowance: £500" in parsed.text
    assert "Tax band: Basic rate; Tax rate on dividends over the allowance: 8.75%" in parsed.text


def test_guide_parts_give_heading_paths(corpus_pages):
    parsed = parse_file(corpus_pages / "child-benefit.json")
    paths = [section["heading_path"] for section in parsed.sections]
    assert paths[0] == ["How it works"]
    assert ["What you'll get"] in paths
    nested = [path for path in paths if len(path) == 2 and path[0] == "How it works"]
    assert ["How it works", "If your circumstances change"] in nested
    claim = next(s for s in parsed.sections if s["heading_path"] == ["Make a claim"])
    assert claim["url"] == "https://www.gov.uk/child-benefit/how-to-claim"


def test_section_offsets_cover_their_text(corpus_pages):
    parsed = parse_file(corpus_pages / "child-benefit.json")
    for section in parsed.sections:
        heading = section["heading_path"][-1] if section["heading_path"] else ""
        assert parsed.text[section["start"] : section["end"]].startswith(heading)
    offset = parsed.text.index("Child Benefit can be backdated")
    assert section_at(parsed.sections, offset)["heading_path"][0] == "Make a claim"


def test_cross_references_between_pages_are_found(corpus_pages):
    parsed = parse_file(corpus_pages / "child-benefit.json")
    targets = {link.target_path for link in parsed.links}
    assert "/child-benefit-16-19" in targets
    assert "/child-benefit-tax-charge" in targets
    assert all(target.startswith("/") and "#" not in target for target in targets)
    assert "/child-benefit" not in targets  # links to itself are not cross-references


def test_markdown_links_are_cross_references(corpus_pages):
    parsed = parse_file(corpus_pages / "housing-benefit.json")
    assert parsed.links, "markdown [text](/path) links should be found"


def test_html_guide_text_contains_no_markup(corpus_pages):
    for name in ["child-benefit.json", "universal-credit.json", "student-finance.json"]:
        parsed = parse_file(corpus_pages / name)
        assert not re.search(r"</?[a-z][a-z0-9]*[\s>/]", parsed.text), name
        assert "&amp;" not in parsed.text and "&nbsp;" not in parsed.text
        assert "\u2019" not in parsed.text


def test_plain_text_excerpt_bullets_and_headings(corpus_pages):
    parsed = parse_file(
        corpus_pages / "individual-savings-accounts--how-isas-work--2024-25-or-later.json"
    )
    assert "- cash ISA" in parsed.text
    assert ["Putting money into an ISA"] in [s["heading_path"] for s in parsed.sections]
    assert "Every tax year you can save up to £20,000" in parsed.text


def test_every_corpus_page_parses_with_sections(corpus_pages):
    for path in sorted(corpus_pages.glob("*.json")):
        parsed = parse_file(path)
        assert parsed.text and parsed.sections, path.name
        assert len(parsed.content_hash) == 64


def test_parsing_is_deterministic(corpus_pages):
    path = corpus_pages / "student-finance.json"
    assert parse_file(path).text == parse_file(path).text


@pytest.mark.parametrize(
    "data,message",
    [
        ([], "must be an object"),
        ({"title": "x"}, "neither 'details'"),
        ({"details": {}, "title": "T"}, "base_path: missing"),
        ({"details": {}, "title": "T", "base_path": "x"}, "starting with '/'"),
        ({"details": {}, "title": "T", "base_path": "/x"}, "no 'parts', 'body'"),
        ({"url": "https://example.com/x", "title": "T"}, "must be a https://www.gov.uk/"),
        (
            {
                "details": {"body": "<p>x</p>"},
                "title": "T",
                "base_path": "/x",
                "public_updated_at": "May",
            },
            "not an ISO timestamp",
        ),
    ],
)
def test_malformed_pages_name_the_field(data, message):
    with pytest.raises(PageFormatError, match=message):
        document_from_json(data, origin="test")


@pytest.mark.parametrize(
    "data,message",
    [
        (
            {"base_path": "/x", "title": "T", "details": {"parts": [{"title": "A"}]}},
            "details.parts[0].body: missing",
        ),
        (
            {"base_path": "/x", "title": "T", "details": {"parts": "one"}},
            "details.parts: must be a list, got 'one'",
        ),
        (
            {"base_path": "/x", "title": " ", "details": {"body": "x"}},
            "title: must not be empty, got ' '",
        ),
        (
            {"base_path": "/x", "title": "T", "details": None},
            "details: must be an object, got None",
        ),
        (
            {"url": "https://www.gov.uk/x", "title": "T", "parts": [{"body_html": 3}]},
            "parts[0].body_html: must be a string, got 3",
        ),
        (
            {"url": "https://www.gov.uk/x", "title": "T", "parts": ["<p>x</p>"]},
            "parts[0]: must be an object, got '<p>x</p>'",
        ),
    ],
)
def test_malformed_parts_name_the_part_and_the_field(data, message):
    with pytest.raises(PageFormatError) as failed:
        document_from_json(data, origin="test")
    assert str(failed.value) == message


def test_step_by_step_page_becomes_one_ordered_procedure():
    nav = {
        "steps": [
            {
                "title": "Check",
                "contents": [
                    {"type": "paragraph", "text": "Read this."},
                    {"type": "list", "contents": [{"text": "A", "href": "/a"}, {"text": "B"}]},
                ],
            },
            {"title": "Apply", "contents": None},
        ]
    }
    page = {"base_path": "/steps/", "title": "Steps", "details": {"step_by_step_nav": nav}}
    document = document_from_json(page, origin="test")
    assert (document.url, document.base_path) == ("https://www.gov.uk/steps", "/steps")
    (part,) = document.parts
    assert part.title == "Steps" and part.body_format == "html"
    assert part.body == (
        "<h2>Step 1: Check</h2>\n<p>Read this.</p>\n"
        '<ul><li><a href="/a">A</a></li><li>B</li></ul>\n<h2>Step 2: Apply</h2>'
    )
