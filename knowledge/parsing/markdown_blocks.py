"""Markdown bodies (answers, detailed guides) as HTML, gov.uk's pipe tables included, for the
HTML reader."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from knowledge.text.normalise import normalise_inline

# A pipe table's line under its header ("| --- | :---: |").
PIPE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_markdown = MarkdownIt("commonmark", {"html": True}).enable("table")


def markdown_to_html(body: str) -> str:
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
        if "|" in line and PIPE_SEPARATOR.match(next_line.strip()):
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
