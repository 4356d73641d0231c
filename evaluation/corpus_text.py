"""A page of the shared gov.uk corpus as its evaluation README builds the text gold spans are
quoted from: a guide's parts each as its title then its body HTML as text; any other page its
stored body (markdown pages also with the markup removed); then entities unescaped, curly
quotes straight, Unicode spaces plain, invisible characters out, whitespace collapsed.

Standard library only, and independent of knowledge.parsing on purpose: the labelled data is
checked against the corpus's own rules, not against what the knowledge base made of a page.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "govuk"
BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "caption",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
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
    """Markdown's links reduced to their text and its `*`, `#`, `|` markup removed."""
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


@cache
def page(slug: str, corpus: Path = CORPUS) -> dict:
    return json.loads((corpus / "pages" / f"{slug}.json").read_text(encoding="utf-8"))


def part_text(part: dict) -> str:
    return normalised(
        f"{part.get('title') or ''}\n{html_text(part.get('body_html') or '')}", unescape=False
    )


@cache
def page_texts(slug: str, corpus: Path = CORPUS) -> tuple[str, ...]:
    """The texts a span of the page must occur in: the page text, and for markdown pages that
    text again with the markup removed."""
    data = page(slug, corpus)
    if data.get("parts"):
        pieces = [
            f"{p.get('title') or ''}\n{html_text(p.get('body_html') or '')}" for p in data["parts"]
        ]
        return (normalised("\n".join(pieces), unescape=False),)
    body = data.get("body_text") or ""
    if "markdown" in (data.get("body_text_format") or "").lower():
        return normalised(body), normalised(markup_removed(body))
    return (normalised(body),)


def span_part(slug: str, span: str, corpus: Path = CORPUS) -> int | None:
    """Which part of a guide holds the span (0 for the first); None for a page without
    parts or a span no part holds."""
    parts = page(slug, corpus).get("parts") or []
    return next((i for i, part in enumerate(parts) if normalised(span) in part_text(part)), None)


def part_url(slug: str, index: int, corpus: Path = CORPUS) -> str:
    """The gov.uk address of a guide's part: the guide's own for the first."""
    data = page(slug, corpus)
    url = data["url"].rstrip("/")
    return url if index == 0 else f"{url}/{data['parts'][index]['slug']}"
