"""How the heuristic extractor states what it reads as proposals: one statement's unit with
its figures (the value it is about, the others with their roles), each quote its own on the
page, each unit dated by PageDates and stated after its page's subject."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from knowledge.domain.extraction import UnitProposal
from knowledge.extraction.figures import ONE_OFF, Figure, statement
from knowledge.extraction.lines import Line, own_quote, quote_key
from knowledge.extraction.subjects import with_subject
from knowledge.text.amounts import amount_text, period_in, with_period


def periods_shared(proposals: list[UnitProposal]) -> None:
    """A money figure the page states with no period takes the one its other statements give
    it, when they agree: "you'll get £16.95 for each child" below a rates table whose
    "Rate (weekly)" column holds £16.95 is £16.95 a week. Only a recurring period is shared:
    "one-off" is read from the word anywhere in a statement, not from the figure."""
    periods: dict[Decimal, set[str]] = defaultdict(set)
    money = [proposal for proposal in proposals if proposal.value_unit == "GBP"]
    for proposal in money:
        if proposal.value_period and proposal.value_period != ONE_OFF:
            periods[proposal.value_amount].add(proposal.value_period)
    for proposal in money:
        given = periods.get(proposal.value_amount, set())
        if proposal.unit_type == "threshold" and not proposal.value_period and len(given) == 1:
            proposal.value_period = next(iter(given))
            printed = amount_text(proposal.value_amount, proposal.value_unit)
            proposal.text = with_period(proposal.text, printed, proposal.value_period)


class ProposalMaker:
    """The proposal-making half of the extractor (`_Extractor`), which holds the page's
    text, lines' starts, dates, subject, the page's own period (`rates_per`) and what it
    has proposed and quoted so far."""

    def _threshold(
        self,
        text,
        figures: list[Figure],
        line: Line,
        *,
        quote,
        quote_start=None,
        validity=None,
        period_text="",
        default_period="",
        heads=None,
    ) -> None:
        """One statement's unit: the figure it is about is its value, the others are kept
        with their roles (`heads`: each figure's column head, its role where no word is)."""
        start = quote_start if quote_start is not None else self.text.index(quote, line.start)
        fallbacks = (period_in(period_text), default_period, self.rates_per)
        amount, period, others, text = statement(text, figures, heads, fallbacks)
        self._add(
            "threshold",
            (start, start + len(quote)),
            line,
            text=text,
            amount=amount,
            period=period,
            validity=validity,
            is_figure=True,
            figures=others,
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
        figures=(),
    ) -> None:
        quote = self.text[span[0] : span[1]]
        # two levels: "Lifetime ISA > Putting money in", not just "Putting money in"
        heading = " > ".join(line.section["heading_path"][-2:])
        text = with_subject(" ".join((text or quote).split()), self.subject, heading)
        key = (unit_type, text, amount.value if amount else None)
        if key in self.seen or not quote.strip():
            return
        self.seen.add(key)
        span = own_quote(self.text, self.starts, span, self.quoted)
        quote = self.text[span[0] : span[1]]
        self.quoted.add(quote_key(quote))
        dates, basis = self.dates.validity(
            line.section, line.start, quote, validity, amount if is_figure else None
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
                figures=list(figures),
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
