"""The page as lines, each of a kind (heading, list item, step, table row, plain-text table row,
paragraph), in the section it sits in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from knowledge.textfacts import find_amounts

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
