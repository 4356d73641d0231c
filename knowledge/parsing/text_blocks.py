"""Plain-text excerpts as blocks: a short capitalised line is a heading, bullets and numbers
are list items, a pipe table's lines are rows."""

from __future__ import annotations

import re

from knowledge.parsing.blocks import BOILERPLATE, Block, linearise_row
from knowledge.parsing.markdown_blocks import PIPE_SEPARATOR
from knowledge.text.normalise import normalise_inline

_BULLET = re.compile(r"^\s*(?:[\u2022\u25cf\u25e6*]|-(?=\s))\s*")
_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+")


def _looks_like_heading(line: str) -> bool:
    """A short capitalised line without closing punctuation or amounts. gov.uk headings
    rarely pass 10 words; longer lines are sentences whose full stop the excerpt lost."""
    if len(line) > 80 or len(line.split()) > 10 or line[-1] in ".:;,?!)":
        return False
    return line[0].isupper() and not re.search(r"[£%]", line)


def text_blocks(body: str, *, url: str) -> list[Block]:
    blocks: list[Block] = []
    headers: list[str] | None = None
    lines = body.splitlines()
    for index, raw_line in enumerate(lines):
        line = normalise_inline(raw_line)
        if not line or line.lower() in BOILERPLATE:
            headers = None
            continue
        if "|" in line and line.count("|") >= 1 and not _BULLET.match(raw_line):
            if PIPE_SEPARATOR.match(line):
                continue
            cells = [normalise_inline(cell) for cell in line.strip().strip("|").split("|")]
            next_line = lines[index + 1] if index + 1 < len(lines) else ""
            if headers is None and PIPE_SEPARATOR.match(normalise_inline(next_line)):
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
