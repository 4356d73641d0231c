"""What a block of the page needs from the lines around it to be read alone: the lead-in
that introduces a table, the sentence a list's lead-in points back to ("You may be
considered for this if you:"), and the sentence after a list that narrows it ("This is only
allowed in exceptional circumstances.")."""

from __future__ import annotations

import re

from knowledge.extraction.lines import Line
from knowledge.extraction.sentences import leans_back, qualifies_before

# A sentence ends at . ! or ? followed by a space: '£27.50' and 'e.g.' stay whole.
SENTENCE = re.compile(r".+?(?:[.!?]['\")]?(?=\s+[A-Z£(\"'0-9])|$)", re.S)
# A sentence introducing a table ("The table shows …", "The rates are:").
_TABLE_INTRO = re.compile(r"\b(table|following|below)\b|:$", re.I)
_TABLE_ROWS = ("row", "bare_row", "label_row")
# How far back a lead-in's pointing may be followed: a sentence, and the one before it.
_ANTECEDENT_SENTENCES = 2


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Each sentence's start and end in the text, surrounding spaces left out."""
    spans = []
    for match in SENTENCE.finditer(text):
        start = match.start() + len(match.group()) - len(match.group().lstrip())
        end = match.start() + len(match.group().rstrip())
        if end > start:
            spans.append((start, end))
    return spans


def table_intro(lines: list[Line], row: Line) -> str:
    """What introduces the table a row belongs to: for a row without figures of its own, the
    paragraph right above it (its last sentence: "Your payment is usually paid on a
    different date if it's due on a bank holiday."); a paragraph that says it introduces a
    table; and, when the table opens
    its own section (a plain-text table whose heading line holds the column heads), the
    heading above that section as its caption."""
    first = row.index
    while first > 0 and lines[first - 1].kind in _TABLE_ROWS:
        first -= 1
    found: list[str] = []
    for line in reversed(lines[max(0, first - 4) : first]):
        if line.kind == "heading":
            if line.section is row.section:
                if line.index == first - 1:
                    continue  # the table's own heading: its column heads
                break  # a section with more than the table: an earlier one's is no caption
            found.insert(0, line.text)
            break
        if line.kind != "paragraph" or found:
            continue
        if line.index == first - 1 and line.section is row.section and row.kind == "label_row":
            # a table of dates or sentences is read after the sentence that leads into it;
            # a table of figures has its period in its heads, not in the text above
            start, end = sentence_spans(line.text)[-1]
            found.append(line.text[start:end])
        elif _TABLE_INTRO.search(line.text):
            found.append(line.text)
    return " - ".join(found)


def list_bounds(text: str, lines: list[Line], lead_in: Line, last: Line) -> tuple[int, int]:
    """Where a list's statement starts and ends in the page text. A lead-in that names its
    subject only by pointing back starts at the sentence it points to, in the paragraph
    above; a short sentence right after the list that narrows it ("This is only allowed in
    exceptional circumstances.") ends it."""
    start, end = lead_in.start, last.end
    above = lines[lead_in.index - 1] if lead_in.index > 0 else None
    if (
        leans_back(lead_in.text)
        and above is not None
        and above.section is lead_in.section
        and above.kind == "paragraph"
        and not above.text.endswith(":")
    ):
        for first, _ in reversed(sentence_spans(above.text)[-_ANTECEDENT_SENTENCES:]):
            start = above.start + first
            if not leans_back(above.text[first:]):
                break
    after = lines[last.index + 1] if last.index + 1 < len(lines) else None
    if after is not None and after.section is last.section and after.kind == "paragraph":
        spans = sentence_spans(after.text)
        if spans and qualifies_before(after.text[spans[0][0] : spans[0][1]]):
            end = after.start + spans[0][1]
    return start, end
