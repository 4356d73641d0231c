"""Page structure -> one normalised text with a section tree, linearised tables and links.

Every part of a page becomes a stream of blocks (headings, paragraphs, list items, table
rows); `render` joins them into the snapshot text, one block a line, and records where
each section starts and ends. The text is a pure function of the page, so the offsets that
extraction cites stay valid for the snapshot's lifetime.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdown_it import MarkdownIt

from knowledge.documents import GOVUK_ORIGIN, PageDocument, PagePart
from knowledge.text.normalise import normalise_inline

_SPACES = re.compile(r"\s+")
_BLOCK_TAGS = {
    "p", "div", "section", "article", "main", "aside", "header", "footer", "blockquote",
    "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "nav", "pre",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_DROP = {"script", "style", "noscript", "template", "svg", "button", "form"}
_BOILERPLATE = {"skip contents", "contents", "print this guide", "print entire guide"}
_markdown = MarkdownIt("commonmark", {"html": True}).enable("table")


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | item | row
    text: str
    level: int = 0  # heading level
    url: str = ""  # the part this block belongs to


@dataclass(frozen=True)
class Link:
    target_path: str
    anchor_text: str
    heading_path: tuple[str, ...]


@dataclass
class ParsedPage:
    text: str
    sections: list[dict]
    links: list[Link]
    table_rows: int = 0
    list_items: int = 0
    content_hash: str = ""
    stats: dict = field(default_factory=dict)


def parse_document(document: PageDocument) -> ParsedPage:
    blocks: list[Block] = []
    links: list[Link] = []
    for part in document.parts:
        part_blocks, part_links = _part_blocks(part, guide_part=len(document.parts) > 1)
        blocks.extend(part_blocks)
        links.extend(part_links)
    parsed = render(blocks)
    parsed.links = _dedupe_links(links, own_path=document.base_path)
    digest = hashlib.sha256()
    digest.update(document.title.encode())
    digest.update(b"\n")
    digest.update(parsed.text.encode())
    parsed.content_hash = digest.hexdigest()
    return parsed


def _part_blocks(part: PagePart, *, guide_part: bool) -> tuple[list[Block], list[Link]]:
    blocks: list[Block] = []
    if part.title and (guide_part or part.body_format != "text"):
        blocks.append(Block("heading", normalise_inline(part.title), level=1, url=part.url))
    if part.body_format == "text":
        body_blocks, links = _text_blocks(part.body, url=part.url), []
    else:
        source = part.body if part.body_format == "html" else _markdown_to_html(part.body)
        body_blocks, links = _html_blocks(source, url=part.url, top=[b.text for b in blocks])
    repeats_title = (
        blocks
        and body_blocks
        and body_blocks[0].kind == "heading"
        and body_blocks[0].text.lower() == blocks[0].text.lower()
    )
    if repeats_title:
        body_blocks = body_blocks[1:]
    return blocks + body_blocks, links


# --- HTML -------------------------------------------------------------------------------


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
        if text and text.lower() not in _BOILERPLATE:
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


def _html_blocks(source: str, *, url: str, top: list[str]) -> tuple[list[Block], list[Link]]:
    soup = BeautifulSoup(source, "lxml")
    walker = _HtmlWalker(url, top)
    walker.walk(soup.body or soup)
    return walker.blocks, walker.links


def linearise_row(headers: list[str], values: list[str]) -> str:
    """'Band: Basic rate; Taxable income: £12,571 to £50,270; Tax rate: 20%'."""
    if not headers:
        return "; ".join(value for value in values if value)
    pairs = []
    for index, value in enumerate(values):
        header = headers[index] if index < len(headers) else ""
        if not value:
            continue
        pairs.append(f"{header}: {value}" if header else value)
    return "; ".join(pairs)


def govuk_path(href: str) -> str:
    """The gov.uk path a link points at, or '' for anchors, mail, other sites."""
    href = (href or "").strip()
    relative = href.startswith("/") and not href.startswith("//")
    if not relative and not href.startswith((GOVUK_ORIGIN + "/", "http://www.gov.uk/")):
        return ""
    return urlsplit(href).path.rstrip("/")


def _dedupe_links(links: list[Link], *, own_path: str) -> list[Link]:
    seen: set[tuple[str, str]] = set()
    result = []
    for link in links:
        key = (link.target_path, link.anchor_text)
        if link.target_path == own_path or key in seen:
            continue
        seen.add(key)
        result.append(link)
    return result


# --- markdown ------------------------------------------------------------------------------


def _markdown_to_html(body: str) -> str:
    """Markdown to HTML, with html2text's loose pipe tables (whose delimiter row rarely
    matches the header) turned into real tables first."""
    return _markdown.render(_pipe_tables_to_html(_ABBREVIATIONS.sub("", body)))


# html2text's abbreviation list at the end of a body ("*[JSA]: Jobseeker's Allowance"): the
# page's <abbr> titles, not its text.
_ABBREVIATIONS = re.compile(r"^\s*\*\[[^\]\n]+\]: [^\n]*$", re.M)
# A markdown link or escaped dash inside a pipe cell: the table's HTML is not read as markdown.
_CELL_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]+\)")


def _split_cells(line: str) -> list[str]:
    line = _CELL_LINK.sub(r"\1", line).replace("\\-", "-")
    cells = [html.escape(normalise_inline(cell)) for cell in line.strip().split("|")]
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _pipe_tables_to_html(body: str) -> str:
    lines = body.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        next_line = lines[index + 1] if index + 1 < len(lines) else ""
        if "|" in line and _PIPE_SEPARATOR.match(next_line.strip()):
            header = _split_cells(line)  # a leading '|' keeps an empty first header cell
            index += 2
            rows = []
            for row, after in _pipe_rows(lines, index, len(header)):
                rows.append(_split_cells(row.lstrip("|") if not header[0] else row))
                index = after
            head = "".join(f"<th>{cell}</th>" for cell in header)
            body_rows = "".join(
                "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
            )
            out.extend(
                ["", f"<table><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>", ""]
            )
            continue
        out.append(line)
        index += 1
    return "\n".join(out)


def _pipe_rows(lines: list[str], index: int, width: int):
    """The rows of an html2text pipe table from `index`, each with the index after it. A cell
    holding several paragraphs goes on over a line of spaces ("  "): its row continues while
    it has fewer cells than the header, or while a later line of the table still holds a
    cell boundary; a line of spaces with no row after it, a heading or a blank line ends it.
    A cell's single line break leaves its row short of cells: the next line completes it."""
    while (
        index < len(lines)
        and lines[index].strip()
        and ("|" in lines[index] or _row_goes_on(lines, index))
    ):
        row = lines[index].strip()
        index += 1
        while index < len(lines):
            line, after = lines[index], lines[index + 1] if index + 1 < len(lines) else ""
            if line.strip() and "|" in line and row.count("|") + line.count("|") < width:
                row, index = f"{row} {line.strip()}", index + 1  # a cell's line break
            elif (
                line
                and not line.strip()
                and after.strip()
                and not after.startswith("#")
                and (row.count("|") + 1 < width or _row_goes_on(lines, index + 1))
            ):
                row, index = f"{row} {after.strip()}", index + 2  # a cell's next paragraph
            else:
                break
        yield row, index


def _row_goes_on(lines: list[str], index: int) -> bool:
    """True when a cell boundary ('|') comes before the table's end (a blank line or a
    heading): the lines up to it are paragraphs of the row's cells, not text after the table."""
    for line in lines[index:]:
        if not line or line.startswith("#"):
            return False
        if "|" in line:
            return True
    return False


# --- plain text excerpts ------------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[\u2022\u25cf\u25e6*]|-(?=\s))\s*")
_PIPE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+")


def _looks_like_heading(line: str) -> bool:
    """A short capitalised line without closing punctuation or amounts. gov.uk headings
    rarely pass 10 words; longer lines are sentences whose full stop the excerpt lost."""
    if len(line) > 80 or len(line.split()) > 10 or line[-1] in ".:;,?!)":
        return False
    return line[0].isupper() and not re.search(r"[£%]", line)


def _text_blocks(body: str, *, url: str) -> list[Block]:
    blocks: list[Block] = []
    headers: list[str] | None = None
    lines = body.splitlines()
    for index, raw_line in enumerate(lines):
        line = normalise_inline(raw_line)
        if not line or line.lower() in _BOILERPLATE:
            headers = None
            continue
        if "|" in line and line.count("|") >= 1 and not _BULLET.match(raw_line):
            if _PIPE_SEPARATOR.match(line):
                continue
            cells = [normalise_inline(cell) for cell in line.strip().strip("|").split("|")]
            next_line = lines[index + 1] if index + 1 < len(lines) else ""
            if headers is None and _PIPE_SEPARATOR.match(normalise_inline(next_line)):
                headers = cells
                continue
            blocks.append(Block("row", linearise_row(headers or [], cells), url=url))
            continue
        headers = None
        if _BULLET.match(raw_line):
            blocks.append(Block("item", "- " + _BULLET.sub("", line, count=1), url=url))
        elif _NUMBERED.match(line):
            blocks.append(Block("item", _NUMBERED.sub(lambda m: f"{m.group(1)}. ", line), url=url))
        elif _looks_like_heading(line):
            blocks.append(Block("heading", line, level=2, url=url))
        else:
            blocks.append(Block("paragraph", line, url=url))
    return blocks


# --- rendering ----------------------------------------------------------------------------


def render(blocks: list[Block]) -> ParsedPage:
    lines: list[str] = []
    sections: list[dict] = []
    path: list[tuple[int, str]] = []
    offset = 0
    current: dict | None = None
    rows = items = 0
    for block in blocks:
        if block.kind == "heading":
            while path and path[-1][0] >= block.level:
                path.pop()
            path.append((block.level, block.text))
            if current is not None:
                current["end"] = max(offset - 1, current["start"])
            current = {
                "heading_path": [title for _, title in path],
                "level": block.level,
                "start": offset,
                "end": offset,
                "url": block.url,
            }
            sections.append(current)
        elif current is None:
            current = {
                "heading_path": [],
                "level": 0,
                "start": offset,
                "end": offset,
                "url": block.url,
            }
            sections.append(current)
        rows += block.kind == "row"
        items += block.kind == "item"
        lines.append(block.text)
        offset += len(block.text) + 1
    text = "\n".join(lines)
    if current is not None:
        current["end"] = len(text)
    return ParsedPage(text=text, sections=sections, links=[], table_rows=rows, list_items=items)
