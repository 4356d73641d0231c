"""One statement, one unit: which of a sentence's (or table row's) figures the fact is about,
what the others are to it, and where one sentence states figures for different periods.

"The charge is 1% of your Child Benefit for every £200 of income over £60,000." is one fact:
its value is the 1% charged; £200 is what it is charged per and £60,000 what it applies
above. The role of a figure is read from the words just before it (gov.uk says "for every",
"over", "up to", "between … and", "from … to", "at least") and just after it ("or more",
"or less"); the figure with no such word is what the sentence states, and the others are its
conditions. Only when each figure carries its own period ("£722 up to 7 April 2024 and £793
from 8 April 2024") are they different facts, each quoted by its own clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.text.amounts import Amount, find_amounts, period_in, rate_period, with_period
from knowledge.text.dates import header_validity

# The role words, read at the end of the text before a figure (lowercased), first match wins:
# "no more than" is a cap before "more than" is a floor.
_ROLE_WORDS = [
    ("each additional", r"(?:for |on )?(?:each|every|per) (?:additional|extra|further|other)"),
    ("per", r"(?:for |on )?(?:each|every|per)"),
    ("between", r"between"),
    ("at least", r"at least|(?:a )?minimum of|no less than|not less than"),
    (
        "up to",
        r"up to|below|under|less than|no more than|not more than|at most|(?:a )?maximum of|"
        r"not exceed|capped at|lower than",
    ),
    ("above", r"over|above|more than|exceeds?|exceeding|in excess of|greater than|higher than"),
    ("from", r"from"),
    ("or", r"\(|or"),  # "£242 (£1,048 a month)", "£364 a week or £1,577 a month"
]
_BEFORE_ROLES = [(re.compile(rf"(?<![a-z])(?:{words})\s*$"), role) for role, words in _ROLE_WORDS]
# A figure in a clause opened by "if" or "when" and not closed before it is a condition.
_IF_CLAUSE = re.compile(r"\b(?:if|when|once|unless)\b[^,;]*$")
_AFTER_ROLES = [
    (re.compile(r"^\s*(?:a (?:week|month|year) )?or (?:more|over|above)\b"), "at least"),
    (re.compile(r"^\s*(?:a (?:week|month|year) )?or (?:less|under|below)\b"), "up to"),
]
_RANGE_END = re.compile(r"^\s*(?:to|and|-|–)\s*£[\d,]+(?:\.\d+)?")
# What joins the second figure of a range to the first: "£123 to £242", "between £27 and …".
_RANGE_JOIN = re.compile(r"^\s*(?:to|and)\s*$|^(?:-|–)$")
# The roles that make a figure a condition of the statement, not what it states.
CONDITIONS = frozenset(
    {"per", "each additional", "above", "up to", "at least", "between", "from", "to", "or", "if"}
)
MAIN_ORDER = ("", "up to", "at least", "from", "between")  # what a statement is about, first


@dataclass(frozen=True)
class Figure:
    amount: Amount
    role: str  # "" for what the statement states; else per, above, up to, between, to, …


def figure_roles(text: str, amounts: list[Amount]) -> list[Figure]:
    """Each figure of `text` (its amounts, in order) with the role the words around it give."""
    figures: list[Figure] = []
    for index, amount in enumerate(amounts):
        since = amounts[index - 1].end if index else 0
        before = text[since : amount.start].lower()
        role = next((r for pattern, r in _BEFORE_ROLES if pattern.search(before[-40:])), "")
        if index and _RANGE_JOIN.match(before):
            # the end of a range: "£123 to £242", "between £27 and £184.03"
            previous = figures[-1]
            if previous.role in ("", "from"):
                figures[-1] = Figure(previous.amount, "from")
            role = "to"
        if not role:
            after = text[amount.end : amount.end + 30].lower()
            role = next((r for pattern, r in _AFTER_ROLES if pattern.search(after)), "")
        if not role and _IF_CLAUSE.search(before):
            role = "if"  # "If you take out £5,000 …"
        figures.append(Figure(amount, role))
    return figures


def main_figure(figures: list[Figure]) -> int:
    """Which figure a statement is about: one that no word makes a condition of it (the rate
    or amount paid or charged, the allowance); failing that a cap ("up to £4,000"), a floor,
    a range's start; the first such, in the order the sentence gives them."""
    for role in MAIN_ORDER:
        for index, figure in enumerate(figures):
            if figure.role == role:
                return index
    return 0


# A period a figure is stated for: a dated day, a year or a span of years.
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_PERIOD_MENTION = re.compile(
    rf"\b(?:\d{{1,2}} (?:{_MONTHS}) )?(?:19|20)\d{{2}}(?:(?: to |-|–|/)(?:(?:19|20)?\d{{2}}))?\b",
    re.I,
)
_CLAUSE_JOIN = re.compile(r",? and (?:is |was |will be |it's |it is |then )?|, |; | but | while ")


def period_clauses(sentence: str, amounts: list[Amount]) -> list[tuple[int, int]]:
    """Where a sentence states its figures for different periods, each figure's clause as
    (start, end) in the sentence ("£722 up to 7 April 2024 | and is £793 from 8 April 2024");
    else the whole sentence, one statement."""
    whole = [(0, len(sentence))]
    if len(amounts) < 2:
        return whole
    mentions = list(_PERIOD_MENTION.finditer(sentence))
    owned: list[re.Match | None] = []
    for index, amount in enumerate(amounts):
        lower = amounts[index - 1].end if index else 0
        upper = amounts[index + 1].start if index + 1 < len(amounts) else len(sentence)
        after = [m for m in mentions if amount.end <= m.start() < upper]
        before = [m for m in mentions if lower <= m.start() and m.end() <= amount.start]
        owned.append(after[0] if after else before[-1] if before else None)
    periods = [m.group().lower() for m in owned if m is not None]
    if len(periods) < len(amounts) or len(set(periods)) < len(periods):
        return whole  # a figure without its own period: the sentence is one statement
    bounds = [0]
    for index in range(1, len(amounts)):
        previous, mention = amounts[index - 1], owned[index]
        start = max(previous.end, owned[index - 1].end())
        end = min(amounts[index].start, mention.start())
        joins = [m for m in _CLAUSE_JOIN.finditer(sentence, start, end) if m.end() <= end]
        if start >= end or not joins:
            return whole
        bounds.append(joins[-1].start())
        bounds.append(joins[-1].end())
    bounds.append(len(sentence))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def distinct(amounts: list[Amount]) -> list[Amount]:
    """The figures worth stating: none where £1 is the only one ("for every £1 you pay")."""
    if all(a.unit == "GBP" and a.value == 1 for a in amounts):
        return []
    return amounts


def words_after(text: str, printed: str) -> str:
    """The words after a figure, up to the next figure: where its period is said. A range's
    period is said after its end ("between £27 and £184.03 per week")."""
    if printed not in text:
        return ""
    rest = _RANGE_END.sub("", text[text.find(printed) + len(printed) :])
    return rest[:40].split("£")[0]


def main_period(text: str, amount: Amount, *fallbacks: str) -> str:
    """The period of a statement's main figure: said after it, or before it in its clause,
    else the first of `fallbacks` (a column head's period, the page's); a rate has one only
    when one follows it ("5% a year")."""
    after = words_after(text, amount.printed)
    if amount.unit == "percent":
        return rate_period(after)
    before = re.split(r"[.;]\s", text[: max(0, text.find(amount.printed))])[-1][-60:]
    return period_in(after) or period_in(before) or next((f for f in fallbacks if f), "")


def other_figures(
    text: str, figures: list[Figure], main: int, heads: list[str] | None = None
) -> list[dict]:
    """The statement's figures besides its main one, as stored (AtomicUnit.figures): each
    with the period said right after it and its role ("also" for a second figure the
    statement states with no word making it a condition). `heads`, a table's column head
    for each figure, names a role the words do not."""
    others = []
    for index, figure in enumerate(figures):
        if index == main:
            continue
        after = words_after(text, figure.amount.printed)
        period = rate_period(after) if figure.amount.unit == "percent" else period_in(after)
        role = figure.role or (heads[index] if heads else "") or "also"
        others.append(
            {
                "amount": f"{figure.amount.value.normalize():f}",
                "unit": figure.amount.unit,
                "period": period,
                "role": role[:40],
                "printed": figure.amount.printed,
            }
        )
    return others


def row_statements(
    cells: list[tuple[str, str]], uniform: dict[str, bool], first_row: bool, academic: bool
) -> list[list[int]]:
    """A table row's statements, each the indexes of its figure cells. A column whose head
    holds a figure ("£242.01 to £967") or is one of several years ("2024 to 2025 academic
    year") or is the same in every row is a fact of its own; cells where some only state
    conditions ("Household income: More than £20,000") and another what holds then
    ("Reduction: 50%") are one statement."""
    figure_cells = [
        index
        for index, (head, value) in enumerate(cells)
        if distinct(find_amounts(value)) and not (head in uniform and not first_row)
    ]
    yearly = [i for i in figure_cells if header_validity(cells[i][0], academic=academic)]
    own = {
        index
        for index in figure_cells
        if cells[index][0] in uniform
        or find_amounts(cells[index][0])
        or (len(yearly) > 1 and index in yearly)
    }
    rest = [index for index in figure_cells if index not in own]
    roles = {index: _roles_of(cells[index][1]) for index in rest}
    states = any(roles[i][0] == "" for i in rest)
    conditions = any(all(role in CONDITIONS for role in roles[i]) for i in rest)
    joined = rest if len(rest) > 1 and states and conditions else []
    groups = [[index] for index in figure_cells if index not in joined]
    return sorted([*groups, joined] if joined else groups)


def figures_in(text: str) -> list[Figure]:
    """The figures of a text worth stating, each with its role."""
    return figure_roles(text, distinct(find_amounts(text)))


# The period of a figure whose statement says "one-off".
ONE_OFF = "one_off"


def statement(
    text: str, figures: list[Figure], heads: list[str] | None, fallbacks: tuple[str, ...]
) -> tuple[Amount, str, list[dict], str]:
    """A statement's value (the figure it is about), that value's period, its other figures
    as stored, and its text with the period said after the value when the text names none
    (the period from a column head or the page: `fallbacks`, first found)."""
    main = main_figure(figures)
    amount = figures[main].amount
    period = main_period(text, amount, *fallbacks)
    text = with_period(text, amount.printed, period)
    if not period and amount.unit != "percent" and "one-off" in text:
        period = ONE_OFF
    return amount, period, other_figures(text, figures, main, heads), text


def row_figures(
    cells: list[tuple[str, str]], group: list[int]
) -> tuple[list[Figure], list[str], int]:
    """A row statement's figures (`group`: its cells), each one's column head, and the cell
    of the figure it is about."""
    placed = [(index, figure) for index in group for figure in figures_in(cells[index][1])]
    figures = [figure for _, figure in placed]
    return (
        figures,
        [cells[index][0].lower() for index, _ in placed],
        placed[main_figure(figures)][0],
    )


def statements_in(source: str) -> list[tuple[int, int, list[Figure]]]:
    """The statements of a sentence or list item with figures, each as its clause's (start,
    end) in `source` and its figures: one, unless figures hold for different periods."""
    amounts = distinct(find_amounts(source))
    return [
        (first, last, figure_roles(source, [a for a in amounts if first <= a.start < last]))
        for first, last in (period_clauses(source, amounts) if amounts else [])
    ]


def _roles_of(cell: str) -> list[str]:
    """What each figure of a table cell is to its statement, in the cell's order."""
    return [figure.role for figure in figure_roles(cell, distinct(find_amounts(cell)))]
