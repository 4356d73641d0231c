"""Page structure -> one normalised text with a section tree, linearised tables and links.

Every part of a page becomes a stream of blocks (headings, paragraphs, list items, table
rows); `render` joins them into the snapshot text, one block a line, and records where
each section starts and ends. The text is a pure function of the page, so the offsets that
extraction cites stay valid for the snapshot's lifetime.
"""

from __future__ import annotations

import hashlib

from knowledge.documents import PageDocument, PagePart
from knowledge.parsing.blocks import Block, Link, ParsedPage, linearise_row
from knowledge.parsing.html_blocks import html_blocks, links_deduped
from knowledge.parsing.markdown_blocks import markdown_to_html
from knowledge.parsing.text_blocks import text_blocks
from knowledge.text.normalise import normalise_inline

__all__ = ["Block", "Link", "ParsedPage", "linearise_row", "parse_document", "render"]


def parse_document(document: PageDocument) -> ParsedPage:
    blocks: list[Block] = []
    links: list[Link] = []
    for part in document.parts:
        part_blocks, part_links = _part_blocks(part, guide_part=len(document.parts) > 1)
        blocks.extend(part_blocks)
        links.extend(part_links)
    parsed = render(blocks)
    parsed.links = links_deduped(links, own_path=document.base_path)
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
        body_blocks, links = text_blocks(part.body, url=part.url), []
    else:
        source = part.body if part.body_format == "html" else markdown_to_html(part.body)
        body_blocks, links = html_blocks(source, url=part.url, top=[b.text for b in blocks])
    repeats_title = (
        blocks
        and body_blocks
        and body_blocks[0].kind == "heading"
        and body_blocks[0].text.lower() == blocks[0].text.lower()
    )
    if repeats_title:
        body_blocks = body_blocks[1:]
    return blocks + body_blocks, links


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
