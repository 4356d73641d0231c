"""The heuristic provider's extraction: rules over the parsed page structure.

Amounts become threshold units with a structured value, one a statement (a sentence or table
row stating several figures is one unit, its other figures kept with their roles:
heuristic_figures; figures for different periods, one unit a clause or cell, each quoted by
its own); other sentences are typed by what
they do (heuristic_sentences); ordered steps become one procedure; examples (and a paragraph
opened by "Example", figures and all) are linked to the unit they illustrate. A sentence that
names its subject only by pointing back ("This means …") is stated after the sentence it
points to, whose text joins the quote; a short one is stated after its page and section. Validity comes
from tax-year phrases in the unit, its table header, its section, the page, and only then from
the page file's stated period or publication date (each unit records which).
"""

from __future__ import annotations

import re
from collections import defaultdict

from knowledge.domain.extraction import PageInput, UnitProposal
from knowledge.providers.heuristic_context import SENTENCE as _SENTENCE
from knowledge.providers.heuristic_context import list_bounds, table_intro
from knowledge.providers.heuristic_dates import (
    PageDates,
    rates_period,
    row_label_validity,
)
from knowledge.providers.heuristic_figures import (
    distinct,
    figures_in,
    other_figures,
    row_figures,
    row_statements,
    statements_in,
)
from knowledge.providers.heuristic_lines import (
    ORDERED,
    Line,
    column_heads,
    continues,
    uniform_columns,
    with_row_years,
)
from knowledge.providers.heuristic_lines import cells as row_cells
from knowledge.providers.heuristic_navigation import is_navigation
from knowledge.providers.heuristic_proposals import ProposalMaker, periods_shared
from knowledge.providers.heuristic_sentences import (
    WORKED_EXAMPLE,
    is_eligibility,
    is_fragment,
    is_rule,
    leans_back,
    sentence_kind,
    states_conditions,
)
from knowledge.providers.heuristic_subjects import page_subject, shortened_name, shortens_a_name
from knowledge.text.amounts import find_amounts
from knowledge.text.dates import find_validities, header_validity

_HOWTO = re.compile(
    r"^(how (to|you)|step \d|make a claim|apply|claim|transfer|open|report|what you need to do|"
    r"how it('s| is) paid|appeal|pay)",
    re.I,
)
_EXAMPLE_HEADING = re.compile(r"^examples?\b", re.I)
_OPENING_HOURS = re.compile(r"\bopening (?:times|hours)\b", re.I)
# A list lead-in whose items are conditions that hold together: a unit taken from one item
# alone would drop the others. "Either", "any of", "one of" lists are alternatives instead.
_CONDITIONS = re.compile(r"\b(if|as long as|provided|unless|only when|both|all of|all the)\b", re.I)
_ALTERNATIVES = re.compile(r"\b(either|any of|one of|one or more)\b", re.I)
# A lead-in that picks one of its items ("increases by whichever is the highest:"): an item
# alone would read as the rule ("increases by 2.5%").
_SELECTS = re.compile(
    r"\b(whichever|the (?:higher|highest|lower|lowest|greater|lesser) of)\b", re.I
)
_MAX_JOINED_ITEMS = 8
_WHO_QUALIFIES = re.compile(r"\b(?:eligib\w*|who can (?:get|claim|apply)|who qualifies)\b", re.I)
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


class _Extractor(ProposalMaker):
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

    def _items_after(self, body: list[Line], index: int) -> list[Line]:
        items = []
        for line in body[index + 1 :]:
            if line.kind != "item":
                break
            items.append(line)
        return items

    # --- blocks ---------------------------------------------------------------------------

    def _list(self, lead_in: Line, items: list[Line]) -> None:
        if is_navigation(lead_in.text) or all(is_navigation(item.text[2:]) for item in items):
            return
        self._sentences_before_lead_in(lead_in)
        # from the sentence a lead-in points back to, to the sentence narrowing the list
        span = list_bounds(self.text, self.lines, lead_in, items[-1])
        self.consumed = span[1]
        text = _list_text(self.text, span, lead_in, items)
        subject = self._subject(lead_in)
        with_figures = [item for item in items if distinct(find_amounts(item.text))]
        # "over £60,000 for the tax year 2024 to 2025; over £50,000 for tax years up to 2023
        # to 2024": items that each name their own period are one fact per period, not
        # conditions that hold together, so each item is a unit with its own dates.
        by_period = self._each_names_its_period(with_figures)
        joined = (
            (
                _SELECTS.search(lead_in.text)
                or (_CONDITIONS.search(lead_in.text) and not _ALTERNATIVES.search(lead_in.text))
            )
            and len(items) <= _MAX_JOINED_ITEMS
            and not by_period
        )
        figures = [f for item in with_figures for f in figures_in(item.text)]
        every = len(with_figures) == len(items)
        # conditions with figures of their own: eligibility, no one figure its value
        conditions = states_conditions(lead_in.text) and len(with_figures) > 1 and not by_period
        # conditions that hold together, in a part about who qualifies ("Eligibility > Your
        # nationality or residency status: all of the following must apply. You must: …")
        qualifying = joined and any(
            _WHO_QUALIFIES.search(h) for h in lead_in.section["heading_path"]
        )
        who = (
            is_eligibility(lead_in.text)
            or (conditions and not is_rule(lead_in.text))
            or (qualifying and not figures)
        )
        kind = "eligibility" if who else "rule"
        typed = kind == "eligibility" or is_rule(lead_in.text)
        # one statement quoted whole: its figure's (a list with one), or a list of figures
        single = joined and len(figures) == 1
        if figures and joined and (every or not typed or single) and not conditions:
            quote = self.text[span[0] : span[1]]
            self._threshold(
                f"{subject}{text}", figures, with_figures[0], quote=quote, quote_start=span[0]
            )
        for item in with_figures if not joined else ():
            for first, last, item_figures in statements_in(item.text):
                self._threshold(
                    f"{subject}{lead_in.text} {item.text[2:]}",
                    item_figures,
                    item,
                    quote=item.text[first:last],
                    quote_start=item.start + first,
                )
        if (all(find_amounts(item.text) for item in items) or single) and not conditions:
            return  # every item is a figure's unit already: the list adds nothing to them
        if typed:  # conditions that hold together keep their figures as conditions, no value
            held = other_figures(text, figures, -1) if joined else []
            self._add(kind, span, lead_in, text=text, figures=held)

    def _each_names_its_period(self, items: list[Line]) -> bool:
        periods = [find_validities(item.text, academic=self.academic) for item in items]
        named = {(found[0].valid_from, found[0].valid_to) for found in periods if found}
        return len(items) > 1 and all(periods) and len(named) == len(items)

    def _heads_above(self, line: Line) -> str:
        """Where a figure's period may be named when its sentence does not: its heading, and
        the column heads of a plain-text table above it."""
        heading = " ".join(line.section["heading_path"][-1:])
        return f"{heading} {heads}" if (heads := column_heads(self.lines, line)) else heading

    def _sentences_before_lead_in(self, lead_in: Line) -> None:
        """A lead-in paragraph may state a fact before it leads in ("The full rate of new
        State Pension is £221.20 a week. Your amount could be different depending on:")."""
        for match in _SENTENCE.finditer(lead_in.text):
            sentence = match.group().strip()
            if sentence and not sentence.endswith(":") and find_amounts(sentence):
                start = (
                    lead_in.start
                    + match.start()
                    + (len(match.group()) - len(match.group().lstrip()))
                )
                self._sentence(sentence, start, lead_in)

    def _subject(self, lead_in: Line) -> str:
        """The section's heading, for a lead-in too short to say what its list is about
        ("You'll pay:")."""
        heading = " > ".join(lead_in.section["heading_path"][-2:])
        return f"{heading}: " if heading and len(lead_in.text.split()) <= 6 else ""

    def _table_intro(self, body: list[Line], index: int) -> str:
        return table_intro(self.lines, body[index])

    def _bare_row(self, line: Line, intro: str) -> None:
        """A row of a table the page gives as plain lines: the section heading holds its
        column heads, so the unit states the caption or intro, the heads and the row."""
        heads = " > ".join(line.section["heading_path"][-2:])
        described = (
            f"{intro.rstrip('.: ')}. {heads}: {line.text}" if intro else f"{heads}: {line.text}"
        )
        if figures := figures_in(line.text):
            self._threshold(described, figures, line, quote=line.text, period_text=line.text)

    def _label_row(self, line: Line, intro: str = "") -> None:
        """A table row without figures of its own ("Category letter: H; Employee group:
        Apprentices under 25", or sentences whose figures are conditions): stated whole with
        its section, its table's lead-in and each date's year, typed by what its text does.
        A helpline's opening hours are how to reach it, not a rule."""
        heading = " > ".join(line.section["heading_path"][-2:])
        if _OPENING_HOURS.search(f"{heading} {line.text}"):
            return
        text = f"{heading}: {with_row_years(line.text)}" if heading else with_row_years(line.text)
        text = f"{text} ({intro})" if intro else text
        validity = next(
            (v for _, value in row_cells(line) if (v := row_label_validity(value))), None
        )
        self._add(
            sentence_kind(line.text) or "rule",
            (line.start, line.end),
            line,
            text=text,
            validity=validity,
        )

    def _table_of(self, body: list[Line], index: int) -> tuple[dict[str, bool], bool]:
        """The columns of the row's table that are the same in every row, and whether the
        row is the table's first (where those columns are stated, once)."""
        first = index
        while first > 0 and body[first - 1].kind == "row":
            first -= 1
        last = index
        while last + 1 < len(body) and body[last + 1].kind == "row":
            last += 1
        return uniform_columns(body[first : last + 1]), index == first

    def _row(self, line: Line, intro: str, table: tuple[dict[str, bool], bool]) -> None:
        uniform, first_row = table
        cells = row_cells(line)
        label_cells = [(header, value) for header, value in cells if not find_amounts(value)]
        labels = [f"{header}: {value}" if header else value for header, value in label_cells]
        every = " and ".join(header.lower() for header, _ in label_cells if header)
        row_validity = next(
            (v for _, value in cells if (v := row_label_validity(value, self.academic))), None
        )
        heading = " > ".join(line.section["heading_path"][-2:])
        raw_cells = line.text.split("; ")  # as row_cells splits them
        for group in row_statements(cells, uniform, first_row, self.academic):
            figures, heads, main_cell = row_figures(cells, group)
            header, value = cells[main_cell]
            cell_validity = header_validity(header, academic=self.academic) or row_validity
            if header in uniform:
                which = f"every {every or 'row'}" + ("" if uniform[header] else " that has one")
                described = f"{header}: {value} (the same for {which})"
            else:
                described = "; ".join([*labels, *(raw_cells[index] for index in group)])
            text = f"{heading}: {described}" if heading else described
            text = f"{text} ({intro})" if intro else text
            # a student finance figure under an academic year's column is that year's amount
            yearly = self.academic and cell_validity is not None and cell_validity.valid_to
            # each statement of the row is quoted from the row's start to its last cell
            quote = "; ".join(raw_cells[: group[-1] + 1])
            self._threshold(
                text,
                figures,
                line,
                quote=quote,
                quote_start=line.start,
                validity=cell_validity,
                period_text=f"{header} {value} {heading}",
                default_period="year" if yearly else "",
                heads=heads,
            )

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


def _list_text(text: str, span: tuple[int, int], lead_in: Line, items: list[Line]) -> str:
    """A list as one statement: the sentence its lead-in points back to, the lead-in, the
    items, and the sentence after it that narrows it."""
    listed = "; ".join(item.text[2:] for item in items)
    after = text[items[-1].end : span[1]].strip()
    if after and not listed.endswith((".", "!", "?")):
        listed += "."
    return " ".join(
        filter(None, (text[span[0] : lead_in.start].strip(), lead_in.text, listed, after))
    )
