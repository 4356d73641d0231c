"""The heuristic extractor's walk over a page: rules over the parsed page structure, section
by section, handing lists and tables to their readers (lists, tables).

Amounts become threshold units with a structured value, one a statement (a sentence or table
row stating several figures is one unit, its other figures kept with their roles: figures;
figures for different periods, one unit a clause or cell, each quoted by its own); other
sentences are typed by what they do (sentences); ordered steps become one procedure; examples (and a paragraph
opened by "Example", figures and all) are linked to the unit they illustrate. A sentence that
names its subject only by pointing back ("This means …") is stated after the sentence it
points to, whose text joins the quote; a short one is stated after its page and section.
Validity comes from tax-year phrases in the unit, its table header, its section, the page, and only then from
the page file's stated period or publication date (each unit records which).
"""

from __future__ import annotations

import re
from collections import defaultdict

from knowledge.domain.extraction import PageInput, UnitProposal
from knowledge.extraction.context import SENTENCE as _SENTENCE
from knowledge.extraction.figures import distinct, statements_in
from knowledge.extraction.lines import ORDERED, Line, column_heads, continues
from knowledge.extraction.lists import ListReading
from knowledge.extraction.navigation import is_navigation
from knowledge.extraction.page_dates import PageDates, rates_period
from knowledge.extraction.proposals import periods_shared
from knowledge.extraction.sentences import WORKED_EXAMPLE, is_fragment, leans_back, sentence_kind
from knowledge.extraction.subjects import page_subject, shortened_name, shortens_a_name
from knowledge.extraction.tables import TableReading
from knowledge.text.amounts import find_amounts

_HOWTO = re.compile(
    r"^(how (to|you)|step \d|make a claim|apply|claim|transfer|open|report|what you need to do|"
    r"how it('s| is) paid|appeal|pay)",
    re.I,
)
_EXAMPLE_HEADING = re.compile(r"^examples?\b", re.I)
# A line that only says a worked example follows ("Example", "Example 2"): on a plain-text
# page it stands where a heading would.
_EXAMPLE_LINE = re.compile(r"^examples?(?: \d+)?:?$", re.I)


def extract_proposals(page: PageInput) -> list[UnitProposal]:
    """Every unit the rules find on the page, unbound, in page order."""
    return _Extractor(page).run()


_FINISHED = re.compile(r"[.!?:;)\"”’]\s*$")


def finished_text(text: str) -> str:
    """A cut-off page's text up to the end of its last finished sentence: "… at 20% when som"
    loses "You automatically get tax relief at 20% when som". The quotes of what is kept are
    the page's own words at the same offsets."""
    text = text.rstrip()
    if _FINISHED.search(text):
        return text
    line_start = text.rfind("\n") + 1
    stop = max(text.rfind(mark, line_start) for mark in (". ", "! ", "? "))
    return text[: stop + 1] if stop >= 0 else text[:line_start].rstrip()


class _Extractor(ListReading, TableReading):
    def __init__(self, page: PageInput):
        self.page = page
        self.text = finished_text(page.text) if page.cut_off else page.text
        self.lines = self._lines()
        self.proposals: list[UnitProposal] = []
        self.dates = PageDates(page)
        self.academic = self.dates.academic
        self.subject = page_subject(page.title)
        self.rates_per = rates_period(page.text)
        self.seen: set[tuple] = set()
        self.quoted: set[str] = set()  # no two units of the page share one evidence quote
        self.starts = [line.start for line in self.lines]
        self.previous: list[int] = []  # where the last paragraph sentences read start
        self.consumed = 0  # where the last list's statement ends

    def _lines(self) -> list[Line]:
        lines = []
        sections = self.page.sections or [{"heading_path": [], "start": 0, "end": len(self.text)}]
        index = 0
        for match in re.finditer(r"[^\n]+", self.text):
            while index + 1 < len(sections) and sections[index + 1]["start"] <= match.start():
                index += 1
            line = Line(match.start(), match.end(), match.group(), sections[index])
            if lines and continues(lines[-1], line):
                # a line break inside a sentence ("lives with<br>someone else"): one line
                line = Line(
                    lines[-1].start, line.end, self.text[lines[-1].start : line.end], line.section
                )
                lines.pop()
            lines.append(line)
        for position, line in enumerate(lines):
            line.index = position  # where it stands on the page, read without a search
        return lines

    def run(self) -> list[UnitProposal]:
        by_section: dict[int, list[Line]] = defaultdict(list)
        for line in self.lines:
            by_section[id(line.section)].append(line)
        for lines in by_section.values():
            self._section(lines)
        periods_shared(self.proposals)
        return self.proposals

    # --- sections -------------------------------------------------------------------------

    def _section(self, lines: list[Line]) -> None:
        heading = lines[0].section["heading_path"][-1] if lines[0].section["heading_path"] else ""
        body = [line for line in lines if line.kind != "heading"]
        if not body:
            return
        if _EXAMPLE_HEADING.match(heading):
            self._add("example", self._span(body[0], body[-1]), body[0], example=True)
            return
        covered = self._procedure(heading, body)
        self.previous = []
        index = 0
        while index < len(body):
            line = body[index]
            if line.kind != "paragraph" or line.text.endswith(":"):
                self.previous = []
            if line.start in covered:
                index += 1
                continue
            if line.kind == "row":
                self._row(line, self._table_intro(body, index), self._table_of(body, index))
            elif line.kind == "bare_row":
                self._bare_row(line, self._table_intro(body, index))
            elif line.kind == "label_row":
                self._label_row(line, self._table_intro(body, index))
            elif line.kind == "paragraph" and line.text.endswith(":"):
                items = self._items_after(body, index)
                if items:
                    self._list(line, items)
                    index += len(items) + 1
                    continue
                self._paragraph(line)
            elif line.kind in ("paragraph", "item", "step"):
                self._paragraph(line)
            index += 1

    def _procedure(self, heading: str, body: list[Line]) -> set[int]:
        steps = [line for line in body if line.kind == "step"]
        if len(steps) < 2 and not (_HOWTO.match(heading) and len(steps) >= 1):
            return set()
        first = body.index(steps[0])
        if first > 0 and body[first - 1].text.endswith(":"):
            first -= 1  # the lead-in belongs to the steps
        last = body.index(steps[-1])
        quote_lines = body[first : last + 1]
        self._add(
            "procedure",
            self._span(quote_lines[0], quote_lines[-1]),
            quote_lines[0],
            text=f"{heading}: " + " ".join(line.text for line in quote_lines) if heading else None,
        )
        return {line.start for line in quote_lines}

    # --- paragraphs and sentences ---------------------------------------------------------

    def _heads_above(self, line: Line) -> str:
        """Where a figure's period may be named when its sentence does not: its heading, and
        the column heads of a plain-text table above it."""
        heading = " ".join(line.section["heading_path"][-1:])
        return f"{heading} {heads}" if (heads := column_heads(self.lines, line)) else heading

    def _paragraph(self, line: Line) -> None:
        body = line.text[2:] if line.kind == "item" else ORDERED.sub("", line.text)
        offset = line.start + (len(line.text) - len(body))
        prior = self.lines[line.index - 1] if line.index else None
        after_example_line = prior is not None and _EXAMPLE_LINE.match(prior.text.strip())
        if line.kind == "paragraph" and (
            after_example_line or (WORKED_EXAMPLE.match(body) and body[:1] in "Ee")
        ):
            # A paragraph opened by "Example" works through one case: its figures are the
            # example's, not the rule's.
            self._add("example", (line.start, line.end), line, example=True)
            return
        for match in _SENTENCE.finditer(body):
            sentence = match.group().strip()
            start = offset + match.start() + (len(match.group()) - len(match.group().lstrip()))
            if len(sentence) >= 12 and start >= self.consumed:  # not read into a list
                self._sentence(sentence, start, line)
            self.previous = [*self.previous, start][-3:] if line.kind == "paragraph" else []

    def _sentence(self, sentence: str, start: int, line: Line) -> None:
        if sentence.lower().startswith("for example") and not find_amounts(sentence):
            return  # illustrates the sentence before it, which is its own unit: alone, a fragment
        if WORKED_EXAMPLE.match(sentence):
            self._add("example", (start, start + len(sentence)), line, text=sentence, example=True)
            return
        amounts = distinct(find_amounts(sentence))
        if is_navigation(sentence, has_amount=bool(amounts)) or is_fragment(
            sentence, has_amount=bool(amounts)
        ):
            return
        quote_start, stated = self._stated(sentence, start, line)
        span = (quote_start, start + len(sentence))
        if amounts and sentence == line.text and (heads := column_heads(self.lines, line)):
            stated = f"{heads}: {stated}"  # a row says what its columns are ("Rate (weekly)")
        if amounts:
            # one statement, one unit; figures for different periods, one unit a clause
            for first, last, figures in statements_in(sentence):
                begin = quote_start if first == 0 else start + first
                self._threshold(
                    stated,
                    figures,
                    line,
                    quote=self.text[begin : start + last],
                    quote_start=begin,
                    period_text=self._heads_above(line),
                )
            return
        kind = sentence_kind(sentence)
        if kind:
            self._add(kind, span, line, text=stated)

    def _stated(self, sentence: str, start: int, line: Line) -> tuple[int, str]:
        """Where the quote starts and the unit's text, with its subject: a sentence that points
        back ("This means …", "pay this money back") is stated after the sentence it points
        to, which joins the quote; one that opens its section, or is too short to name what
        it is about ("You do not need to apply."), after the page and section it sits in."""
        before = self.text[self.previous[0] : start] if self.previous else ""
        if (leans_back(sentence) or shortens_a_name(sentence, before)) and self.previous:
            # back to the nearest sentence that names its own subject
            first, end = start, start
            for first in reversed(self.previous):
                if not leans_back(self.text[first:end]):
                    break
                end = first
            return first, self.text[first:start] + sentence
        if name := shortened_name(sentence, before):
            return start, f"{name}: {sentence}"
        if leans_back(sentence) or (len(sentence.split()) <= 6 and not find_amounts(sentence)):
            where = " > ".join([self.page.title, *line.section["heading_path"][-1:]])
            return start, f"{where}: {sentence}"
        return start, sentence
