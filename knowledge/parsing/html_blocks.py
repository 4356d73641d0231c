"""HTML bodies (and markdown once turned into HTML) as blocks: headings, paragraphs, list
items and table rows, each row linearised with its headers restated; links to other gov.uk
pages kept with the heading they sit under."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from knowledge.documents import GOVUK_ORIGIN
from knowledge.parsing.blocks import BOILERPLATE, Block, Link, linearise_row
from knowledge.text.normalise import normalise_inline

_SPACES = re.compile(r"\s+")
_BLOCK_TAGS = {
    "p", "div", "section", "article", "main", "aside", "header", "footer", "blockquote",
    "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "nav", "pre",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_DROP = {"script", "style", "noscript", "template", "svg", "button", "form"}


class _HtmlWalker:
    def __init__(self, url: str, top: list[str]):
        self.url = url
        self.blocks: list[Block] = []
        self.links: list[Link] = []
        self.path: list[tuple[int, str]] = [(1, title) for title in top]

    def heading_path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.path)

    def walk(self, node: Tag) -> None:
        inline: list[str] = []
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, Comment):
                    inline.append(str(child))
                continue
            if not isinstance(child, Tag) or child.name in _DROP:
                continue
            if self._is_block(child):
                self._flush(inline)
                inline = []
                self._block(child)
            else:
                self._collect_links(child)
                inline.append(child.get_text(""))
        self._flush(inline)

    @staticmethod
    def _is_block(tag: Tag) -> bool:
        if tag.name in _BLOCK_TAGS or tag.name in _HEADINGS:
            return True
        return tag.name in {"ul", "ol", "li", "table", "br", "hr"}

    def _flush(self, inline: list[str]) -> None:
        text = normalise_inline("".join(inline))
        if text and text.lower() not in BOILERPLATE:
            self.blocks.append(Block("paragraph", text, url=self.url))

    def _block(self, tag: Tag) -> None:
        if tag.name in _HEADINGS:
            self._heading(tag)
        elif tag.name in {"ul", "ol"}:
            self._list(tag)
        elif tag.name == "table":
            self._table(tag)
        elif tag.name == "li":
            self._list_item(tag, marker="-")
        elif tag.name in {"br", "hr"}:
            return
        elif "example" in (tag.get("class") or []) and not tag.find(["ul", "ol", "table"]):
            # gov.uk's example box: its "Example" label and the case's paragraphs are one
            # worked example, read as one paragraph (not a bare "Example" and loose figures)
            self._collect_links(tag)
            self._flush(
                [" ".join(part.get_text(" ") for part in tag.find_all("p")) or tag.get_text(" ")]
            )
        else:
            self.walk(tag)

    def _heading(self, tag: Tag) -> None:
        text = normalise_inline(tag.get_text(""))
        if not text:
            return
        level = _HEADINGS[tag.name]
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))
        self.blocks.append(Block("heading", text, level=level, url=self.url))

    def _list(self, tag: Tag) -> None:
        ordered = tag.name == "ol"
        start = int(tag.get("start", 1)) if str(tag.get("start", "1")).isdigit() else 1
        number = start
        for child in tag.find_all("li", recursive=False):
            self._list_item(child, marker=f"{number}." if ordered else "-")
            number += 1

    def _list_item(self, tag: Tag, *, marker: str) -> None:
        nested = [
            child
            for child in tag.children
            if isinstance(child, Tag) and child.name in {"ul", "ol", "table"}
        ]
        text_parts = []
        for child in tag.children:
            if isinstance(child, Tag) and child in nested:
                continue
            if isinstance(child, Tag):
                self._collect_links(child)
                text_parts.append(child.get_text(""))
            elif isinstance(child, NavigableString):
                text_parts.append(str(child))
        text = normalise_inline("".join(text_parts))
        if text:
            self.blocks.append(Block("item", f"{marker} {text}", url=self.url))
        for child in nested:
            self._block(child)

    def _table(self, tag: Tag) -> None:
        self._collect_links(tag)
        rows = tag.find_all("tr")
        headers: list[str] = []
        for row in rows:
            cells = row.find_all(["th", "td"], recursive=False)
            values = [normalise_inline(cell.get_text(" ")) for cell in cells]
            if not any(values):
                continue
            in_head = row.parent is not None and row.parent.name == "thead"
            filled = [cell for cell, value in zip(cells, values, strict=True) if value]
            if not headers and (in_head or all(cell.name == "th" for cell in filled)):
                headers = values
                continue
            self.blocks.append(Block("row", linearise_row(headers, values), url=self.url))

    def _collect_links(self, tag: Tag) -> None:
        anchors = [tag] if tag.name == "a" else tag.find_all("a")
        for anchor in anchors:
            path = govuk_path(anchor.get("href", ""))
            if path:
                text = normalise_inline(anchor.get_text(""))
                self.links.append(Link(path, text, self.heading_path()))


def html_blocks(source: str, *, url: str, top: list[str]) -> tuple[list[Block], list[Link]]:
    soup = BeautifulSoup(source, "lxml")
    walker = _HtmlWalker(url, top)
    walker.walk(soup.body or soup)
    return walker.blocks, walker.links


def govuk_path(href: str) -> str:
    """The gov.uk path a link points at, or '' for anchors, mail, other sites."""
    href = (href or "").strip()
    relative = href.startswith("/") and not href.startswith("//")
    if not relative and not href.startswith((GOVUK_ORIGIN + "/", "http://www.gov.uk/")):
        return ""
    return urlsplit(href).path.rstrip("/")


def links_deduped(links: list[Link], *, own_path: str) -> list[Link]:
    seen: set[tuple[str, str]] = set()
    result = []
    for link in links:
        key = (link.target_path, link.anchor_text)
        if link.target_path == own_path or key in seen:
            continue
        seen.add(key)
        result.append(link)
    return result
