"""Tables as the heuristic extractor reads them: a row with figures is a unit a statement
(its label cells and, once, the columns the same in every row, stated with it), a row without
figures is stated whole with its section and lead-in, and a plain-text table's row takes its
column heads from the heading above it."""

from __future__ import annotations

import re

from knowledge.extraction.context import table_intro
from knowledge.extraction.figures import figures_in, row_figures, row_statements
from knowledge.extraction.lines import Line, uniform_columns, with_row_years
from knowledge.extraction.lines import cells as row_cells
from knowledge.extraction.page_dates import row_label_validity
from knowledge.extraction.proposals import ProposalMaker
from knowledge.extraction.sentences import sentence_kind
from knowledge.text.amounts import find_amounts
from knowledge.text.dates import header_validity

_OPENING_HOURS = re.compile(r"\bopening (?:times|hours)\b", re.I)


class TableReading(ProposalMaker):
    """The table rules of the page walk (knowledge.extraction.units), which holds the page's
    lines."""

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
