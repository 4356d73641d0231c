"""The page as lines, each of a kind (heading, list item, step, table row, plain-text table row,
paragraph), in the section it sits in."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property

from knowledge.text.amounts import find_amounts
from knowledge.text.normalise import normalise_inline

ORDERED = re.compile(r"^\d+\. ")
_ROW_CELL = re.compile(r"(?:^|; )[^;:]{1,200}: ")
# A plain-text table row: a label, then amounts, no sentence punctuation ("Higher rate £50,271
# to £125,140 40%").
_BARE_ROW = re.compile(r"^[A-Z][^.;:!?]{0,80}?[£\d][^.!?;]*[\d%]$")
# "If your other income is less than £17,570": a condition ending in a figure is a plain-text
# page's sub-heading, read as a sentence (and found to be a fragment), not a row.
_CONDITION_HEAD = re.compile(r"^(?:if|when|unless)\b", re.I)


@dataclass
class Line:
    start: int
    end: int
    text: str
    section: dict
    index: int = -1  # its place among the page's lines, set once they are all read

    @cached_property
    def kind(self) -> str:
        if self.text.startswith("- "):
            return "item"
        if ORDERED.match(self.text):
            return "step"
        if self.section["heading_path"] and self.start == self.section["start"]:
            return "heading"
        if "; " in self.text and _ROW_CELL.search(self.text):
            return "row" if find_amounts(self.text) and not _prose_row(self) else "label_row"
        if (
            _BARE_ROW.match(self.text)
            and not _CONDITION_HEAD.match(self.text)
            and len(self.text.split()) <= 12
            and find_amounts(self.text)
        ):
            return "bare_row"
        return "paragraph"


# A cell that reads as a sentence ("You can apply for New Style JSA – even if you have
# savings over £16,000."), not as a figure with its qualifiers ("£123 to £242 (£533 a month)").
_SENTENCE_CELL_WORDS = 6
_WORD = re.compile(r"\b[A-Za-z][a-z'’]+\b")


def _prose_row(line: Line) -> bool:
    """True when every cell of the row holding a figure is a sentence: a table of situations
    and what follows from them, whose figures are conditions inside its sentences, not the
    values of its columns. Such a row is stated whole, as what its sentences do."""
    valued = [value for _, value in cells(line) if find_amounts(value)]
    return bool(valued) and all(
        len(_WORD.findall(value)) >= _SENTENCE_CELL_WORDS for value in valued
    )


# A date with its year ("30 December 2024") and one without ("31 December"), in a row's cells.
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATED = re.compile(rf"\b(\d{{1,2}}) ({_MONTHS}) (\d{{4}})\b")
_UNDATED = re.compile(rf"\b(\d{{1,2}}) ({_MONTHS})\b(?! \d{{4}})")
_MONTH_NUMBER = {name: number for number, name in enumerate(_MONTHS.split("|"), 1)}


def with_row_years(text: str) -> str:
    """A table row's dates, each with its year: a date printed without one ("Payment date: 31
    December") is in the year that puts it nearest the row's dated cell ("Due date: 30
    December 2024"): a payment brought forward over new year stays in the old year."""
    dated = _DATED.search(text)
    if not dated:
        return text
    year, month = int(dated.group(3)), _MONTH_NUMBER[dated.group(2)]

    def complete(match: re.Match) -> str:
        other = _MONTH_NUMBER[match.group(2)]
        nearest = min(
            (year - 1, year, year + 1), key=lambda y: abs((y - year) * 12 + other - month)
        )
        return f"{match.group(0)} {nearest}"

    return _UNDATED.sub(complete, text)


def continues(previous: Line, line: Line) -> bool:
    """A line break inside a sentence: the line goes on from the paragraph above it."""
    return (
        previous.section is line.section
        and previous.kind == "paragraph"
        and line.text[:1].islower()
        and not previous.text.rstrip().endswith((".", ":", "!", "?"))
    )


def cells(line: Line) -> list[tuple[str, str]]:
    """A table row's cells as (column head, value); a cell without a head has ''."""
    return [
        tuple(cell.split(": ", 1)) if ": " in cell else ("", cell) for cell in line.text.split("; ")
    ]


# A column must hold the same figure in this many rows or more to be stated once for all.
_UNIFORM_ROWS = 3


def uniform_columns(rows: list[Line]) -> dict[str, bool]:
    """The columns of one table whose figure is the same in every row that has one ('0%' on
    £123 to £175 for every National Insurance category letter; 'N/A' rows aside): stated once,
    not once a row. Each maps to whether every row has that figure."""
    columns = [dict(cells(row)) for row in rows]
    uniform = {}
    for head in columns[0] if columns else {}:
        figures = [column[head] for column in columns if find_amounts(column.get(head, ""))]
        if head and len(figures) >= _UNIFORM_ROWS and len(set(figures)) == 1:
            uniform[head] = len(figures) == len(columns)
    return uniform


def column_heads(lines: list[Line], line: Line) -> str:
    """The column heads of the plain-text table a line is a row of ("Who the allowance is for
    Rate (weekly)" above "Eldest or only child £25.60"): the line without punctuation or
    figures that precedes its rows in its section; empty when the line is no such row."""
    index = line.index
    while index > 0 and lines[index - 1].section is line.section:
        above = lines[index - 1].text
        if lines[index - 1].kind == "heading" or above.rstrip().endswith((".", ":", "!", "?")):
            return ""  # a heading is the section's, not a table's column heads
        if not find_amounts(above):
            return above
        index -= 1
    return ""


def own_quote(
    text: str, starts: list[int], span: tuple[int, int], quoted: set[str]
) -> tuple[int, int]:
    """A span whose quote no earlier unit of the page has: a statement the page repeats (the
    same sentence under two headings) is quoted from the line above it, and further up until
    the quote is its own (`starts`: where each line starts, in order; `quoted`: the quotes
    taken, as `quote_key` gives them)."""
    start, end = span
    while quote_key(text[start:end]) in quoted:
        above = bisect_left(starts, start) - 1
        if above < 0:
            break
        start = starts[above]
    return start, end


def quote_key(quote: str) -> str:
    return normalise_inline(quote).lower()
