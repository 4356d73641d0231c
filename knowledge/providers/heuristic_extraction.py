"""The heuristic provider's extraction: rules over the parsed page structure.

Amounts become threshold units with a structured value; other sentences are typed by what
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
from knowledge.providers.heuristic_dates import (
    PageDates,
    rates_period,
    row_label_validity,
)
from knowledge.providers.heuristic_lines import (
    ORDERED,
    Line,
    column_heads,
    continues,
    uniform_columns,
)
from knowledge.providers.heuristic_lines import cells as row_cells
from knowledge.providers.heuristic_navigation import is_navigation
from knowledge.providers.heuristic_sentences import (
    WORKED_EXAMPLE,
    is_eligibility,
    is_fragment,
    is_rule,
    leans_back,
    sentence_kind,
)
from knowledge.providers.heuristic_subjects import page_subject, with_subject
from knowledge.text.amounts import Amount, find_amounts, period_in, rate_period, with_period
from knowledge.text.dates import header_validity

_HOWTO = re.compile(
    r"^(how (to|you)|step \d|make a claim|apply|claim|transfer|open|report|what you need to do|"
    r"how it('s| is) paid|appeal|pay)",
    re.I,
)
_EXAMPLE_HEADING = re.compile(r"^examples?\b", re.I)
_RANGE_END = re.compile(r"^\s*(?:to|and|-|–)\s*£[\d,]+(?:\.\d+)?")
_OPENING_HOURS = re.compile(r"\bopening (?:times|hours)\b", re.I)
# A sentence ends at . ! or ? followed by a space: '£27.50' and 'e.g.' stay whole.
_SENTENCE = re.compile(r".+?(?:[.!?]['\")]?(?=\s+[A-Z£(\"'0-9])|$)", re.S)
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
# A sentence introducing a table ("The table shows …", "The rates are:").
_TABLE_INTRO = re.compile(r"\b(table|following|below)\b|:$", re.I)


def extract_proposals(page: PageInput) -> list[UnitProposal]:
    """Every unit the rules find on the page, unbound, in page order."""
    return _Extractor(page).run()


class _Extractor:
    def __init__(self, page: PageInput):
        self.page = page
        self.text = page.text
        self.lines = self._lines()
        self.proposals: list[UnitProposal] = []
        self.dates = PageDates(page)
        self.academic = self.dates.academic
        self.subject = page_subject(page.title)
        self.rates_per = rates_period(page.text)
        self.seen: set[tuple] = set()
        self.previous: list[int] = []  # where the last paragraph sentences read start

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
                self._label_row(line)
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
        span = self._span(lead_in, items[-1])
        text = lead_in.text + " " + "; ".join(item.text[2:] for item in items)
        kind = "eligibility" if is_eligibility(lead_in.text) else "rule"
        joined = (
            _SELECTS.search(lead_in.text)
            or (_CONDITIONS.search(lead_in.text) and not _ALTERNATIVES.search(lead_in.text))
        ) and len(items) <= _MAX_JOINED_ITEMS
        subject = self._subject(lead_in)
        if find_amounts(text):
            for item in items:
                for amount in _distinct(find_amounts(item.text)):
                    if joined:  # the whole list is the quote: one contiguous span of the text
                        quote = self.text[span[0] : span[1]]
                        self._threshold(
                            f"{subject}{text}", amount, item, quote=quote, quote_start=span[0]
                        )
                    else:
                        self._threshold(
                            f"{subject}{lead_in.text} {item.text[2:]}",
                            amount,
                            item,
                            quote=item.text,
                        )
        if all(find_amounts(item.text) for item in items):
            return  # every item is a figure's unit already: the list adds nothing to them
        if kind == "eligibility" or is_rule(lead_in.text):
            self._add(kind, span, lead_in, text=text)

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
        """What introduces the table a row belongs to: the sentence before it that says so
        and, when the table opens its own section (a plain-text table whose heading line
        holds the column heads), the heading above that section as its caption."""
        first = body[index].index
        while first > 0 and self.lines[first - 1].kind in ("row", "bare_row"):
            first -= 1
        found: list[str] = []
        for line in reversed(self.lines[max(0, first - 4) : first]):
            if line.kind == "heading":
                if line.section is body[0].section:
                    if line.index == first - 1:
                        continue  # the table's own heading: its column heads
                    break  # a section with more than the table: an earlier one's is no caption
                found.insert(0, line.text)
                break
            if line.kind == "paragraph" and _TABLE_INTRO.search(line.text) and not found:
                found.append(line.text)
        return " - ".join(found)

    def _bare_row(self, line: Line, intro: str) -> None:
        """A row of a table the page gives as plain lines: the section heading holds its
        column heads, so the unit states the caption or intro, the heads and the row."""
        heads = " > ".join(line.section["heading_path"][-2:])
        described = (
            f"{intro.rstrip('.: ')}. {heads}: {line.text}" if intro else f"{heads}: {line.text}"
        )
        for amount in _distinct(find_amounts(line.text)):
            self._threshold(described, amount, line, quote=line.text, period_text=line.text)

    def _label_row(self, line: Line) -> None:
        """A table row without figures ("Category letter: H; Employee group: Apprentices under
        25"): stated with its section, typed by what its text does. A helpline's opening
        hours are how to reach it, not a rule."""
        heading = " > ".join(line.section["heading_path"][-2:])
        if _OPENING_HOURS.search(f"{heading} {line.text}"):
            return
        text = f"{heading}: {line.text}" if heading else line.text
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
        for header, value in cells:
            amounts = _distinct(find_amounts(value))
            if not amounts or (header in uniform and not first_row):
                continue
            cell_validity = header_validity(header, academic=self.academic) or row_validity
            if header in uniform:
                which = f"every {every or 'row'}" + ("" if uniform[header] else " that has one")
                described = f"{header}: {value} (the same for {which})"
            else:
                described = "; ".join([*labels, f"{header}: {value}" if header else value])
            text = f"{heading}: {described}" if heading else described
            text = f"{text} ({intro})" if intro else text
            # a student finance figure under an academic year's column is that year's amount
            yearly = self.academic and cell_validity is not None and cell_validity.valid_to
            for amount in amounts[:1]:
                self._threshold(
                    text,
                    amount,
                    line,
                    quote=line.text,
                    validity=cell_validity,
                    period_text=f"{header} {value} {heading}",
                    default_period="year" if yearly else "",
                )

    def _paragraph(self, line: Line) -> None:
        body = line.text[2:] if line.kind == "item" else ORDERED.sub("", line.text)
        offset = line.start + (len(line.text) - len(body))
        if line.kind == "paragraph" and WORKED_EXAMPLE.match(body) and body[:1] in "Ee":
            # A paragraph opened by "Example" works through one case: its figures are the
            # example's, not the rule's.
            self._add("example", (line.start, line.end), line, example=True)
            return
        for match in _SENTENCE.finditer(body):
            sentence = match.group().strip()
            start = offset + match.start() + (len(match.group()) - len(match.group().lstrip()))
            if len(sentence) >= 12:
                self._sentence(sentence, start, line)
            self.previous = [*self.previous, start][-3:] if line.kind == "paragraph" else []

    def _sentence(self, sentence: str, start: int, line: Line) -> None:
        if sentence.lower().startswith("for example") and not find_amounts(sentence):
            return  # illustrates the sentence before it, which is its own unit: alone, a fragment
        if WORKED_EXAMPLE.match(sentence):
            self._add("example", (start, start + len(sentence)), line, text=sentence, example=True)
            return
        amounts = _distinct(find_amounts(sentence))
        if is_navigation(sentence, has_amount=bool(amounts)) or is_fragment(
            sentence, has_amount=bool(amounts)
        ):
            return
        quote_start, stated = self._stated(sentence, start, line)
        span = (quote_start, start + len(sentence))
        if amounts and sentence == line.text and (heads := column_heads(self.lines, line)):
            stated = f"{heads}: {stated}"  # a row says what its columns are ("Rate (weekly)")
        if amounts:
            for amount in amounts:
                self._threshold(
                    stated,
                    amount,
                    line,
                    quote=self.text[span[0] : span[1]],
                    quote_start=quote_start,
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
        if leans_back(sentence) and self.previous:
            # back to the nearest sentence that names its own subject
            first, end = start, start
            for first in reversed(self.previous):
                if not leans_back(self.text[first:end]):
                    break
                end = first
            return first, self.text[first:start] + sentence
        if leans_back(sentence) or (len(sentence.split()) <= 6 and not find_amounts(sentence)):
            where = " > ".join([self.page.title, *line.section["heading_path"][-1:]])
            return start, f"{where}: {sentence}"
        return start, sentence

    # --- making proposals -----------------------------------------------------------------

    def _threshold(
        self,
        text,
        amount: Amount,
        line: Line,
        *,
        quote,
        quote_start=None,
        validity=None,
        period_text="",
        default_period="",
    ) -> None:
        start = quote_start if quote_start is not None else self.text.index(quote, line.start)
        after = _words_after(text, amount.printed)
        if amount.unit == "percent":  # a rate has a period only when one follows it: "5% a year"
            period = rate_period(after)
        else:
            before = re.split(r"[.;]\s", text[: max(0, text.find(amount.printed))])[-1][-60:]
            period = (
                period_in(after)
                or period_in(before)
                or period_in(period_text)
                or default_period
                or self.rates_per
            )
        text = with_period(text, amount.printed, period)  # one from a column head or the page
        self._add(
            "threshold",
            (start, start + len(quote)),
            line,
            text=text,
            amount=amount,
            period=period
            or ("" if amount.unit == "percent" else "one_off" if "one-off" in text else ""),
            validity=validity,
            is_figure=True,
        )

    def _span(self, first: Line, last: Line) -> tuple[int, int]:
        return first.start, last.end

    def _add(
        self,
        unit_type,
        span,
        line: Line,
        *,
        text=None,
        amount=None,
        period="",
        validity=None,
        example=False,
        is_figure=False,
    ) -> None:
        quote = self.text[span[0] : span[1]]
        # two levels: "Lifetime ISA > Putting money in", not just "Putting money in"
        heading = " > ".join(line.section["heading_path"][-2:])
        text = with_subject(" ".join((text or quote).split()), self.subject, heading)
        key = (unit_type, text, amount.value if amount else None)
        if key in self.seen or not quote.strip():
            return
        self.seen.add(key)
        dates, basis = self.dates.validity(
            line.section, line.start, quote, validity, amount if is_figure else None, period=period
        )
        self.proposals.append(
            UnitProposal(
                unit_type=unit_type,
                text=text,
                concept_id=None,
                evidence_quote=quote,
                valid_from=dates[0].isoformat() if dates[0] else None,
                valid_to=dates[1].isoformat() if dates[1] else None,
                value_amount=amount.value if amount else None,
                value_unit=amount.unit if amount else None,
                value_period=period or None,
                example_of=self._last_non_example() if example else None,
                validity_basis=basis,
                section=" > ".join(line.section["heading_path"][-2:]),
            )
        )

    def _last_non_example(self) -> int | None:
        for index in range(len(self.proposals) - 1, -1, -1):
            if self.proposals[index].unit_type != "example":
                return index
        return None


def _words_after(text: str, printed: str) -> str:
    """The words after a figure, up to the next figure: where its period is said. A range's
    period is said after its end ("between £27 and £184.03 per week")."""
    if printed not in text:
        return ""
    rest = _RANGE_END.sub("", text[text.find(printed) + len(printed) :])
    return rest[:40].split("£")[0]


def _distinct(amounts: list[Amount]) -> list[Amount]:
    """Amounts worth a unit each: skip £1 in 'for every £1', and an equivalent given in
    brackets right after another amount ('£242 (£1,048 a month)')."""
    result = []
    for amount in amounts:
        if amount.unit == "GBP" and amount.value == 1:
            continue
        result.append(amount)
    return result
