"""The page as lines, each of a kind (heading, list item, step, table row, plain-text table row,
paragraph), in the section it sits in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from knowledge.text.amounts import find_amounts

ORDERED = re.compile(r"^\d+\. ")
_ROW_CELL = re.compile(r"(?:^|; )[^;:]{1,200}: ")
# A plain-text table row: a label, then amounts, no sentence punctuation ("Higher rate £50,271
# to £125,140 40%").
_BARE_ROW = re.compile(r"^[A-Z][^.;:!?]{0,80}?[£\d][^.!?;]*[\d%]$")


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
            return "row" if find_amounts(self.text) else "label_row"
        if _BARE_ROW.match(self.text) and len(self.text.split()) <= 12 and find_amounts(self.text):
            return "bare_row"
        return "paragraph"


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
