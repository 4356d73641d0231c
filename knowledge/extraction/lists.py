"""Lists as the heuristic extractor reads them: a lead-in and its items are one statement
when the items are conditions that hold together (or one is picked: "whichever is the
highest"), one unit an item when they are alternatives or each names its own period; the
sentence a lead-in points back to and the sentence after a list that narrows it join it."""

from __future__ import annotations

import re

from knowledge.extraction.context import SENTENCE as _SENTENCE
from knowledge.extraction.context import list_bounds
from knowledge.extraction.figures import distinct, figures_in, other_figures, statements_in
from knowledge.extraction.lines import Line
from knowledge.extraction.navigation import is_navigation
from knowledge.extraction.proposals import ProposalMaker
from knowledge.extraction.sentences import is_eligibility, is_rule, states_conditions
from knowledge.text.amounts import find_amounts
from knowledge.text.dates import find_validities

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


class ListReading(ProposalMaker):
    """The list rules of the page walk (knowledge.extraction.units), which holds the page's
    lines and reads a lead-in's own sentences (`_sentence`)."""

    def _items_after(self, body: list[Line], index: int) -> list[Line]:
        items = []
        for line in body[index + 1 :]:
            if line.kind != "item":
                break
            items.append(line)
        return items

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
