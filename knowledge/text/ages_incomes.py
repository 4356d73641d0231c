"""The reader's age and income bounds, read from gov.uk English: "if you're under 25",
"employees over State Pension age", "18 to 20: £6.45 an hour", "if you or your partner earn
more than £60,000 a year" (knowledge.text.applicability puts them together with the rest of
whom a statement is for). A bound counts only where it is the reader's: an age or amount that
belongs to a child, a course or a payment does not narrow whom the statement is for."""

from __future__ import annotations

import re
from decimal import Decimal

from knowledge.text.circumstances import clauses

# Words that make the age or amount after them someone else's, or not a person's at all.
_SOMEONE_ELSE = re.compile(
    r"\b(?:child|children|son|daughter|baby|babies|young (?:person|people)|kids?|they|they're|"
    r"their|who|who's|whose|member|course|loan|payment|pension pot|property|car|vehicle|dependant|someone|person you care)\b",
    re.IGNORECASE,
)
_READER = r"(?:you|household|you're|you are|you've|you and your partner|you or your partner|your partner|single|couple|both|either of you|employees?|claimants?|people|anyone)"
# Not a duration or a count: "at least 12 months", "under 16 hours a week".
_NOT_YEARS_OF_AGE = r"(?! (?:months?|weeks?|days?|hours?|years?(?! old)|per|a week|%|times|or more (?:months|weeks|hours)))"
_AGE_RANGE = re.compile(
    rf"\b(?:aged |between )?(\d{{2}}) (?:to|and) (\d{{2}})(?: years old| years of age)?\b{_NOT_YEARS_OF_AGE}"
)
_AGE_MIN = re.compile(
    rf"\b(?:aged |age )?(\d{{2}})(?: years old)? or (?:over|older|above)\b"
    rf"|\b(?:aged )?over (\d{{2}})\b{_NOT_YEARS_OF_AGE}|\bat least (\d{{2}})(?: years old\b|(?=[.;,)]|$))"
)
_AGE_MAX = re.compile(
    rf"\b(?:aged )?under (\d{{2}})\b{_NOT_YEARS_OF_AGE}|\b(\d{{2}}) or (?:under|younger)\b|\byounger than (\d{{2}})\b",
    re.IGNORECASE,  # a table row's head: "Under 18: £4.20 an hour"
)
_PENSION_AGE_UNDER = re.compile(
    r"\b(?:under|below|not reached|before (?:you )?reach(?:ing)?) (?:the )?State Pension age", re.I
)
_PENSION_AGE_REACHED = re.compile(
    r"\b(?:reached|over|reach|above|past) (?:the )?State Pension age", re.I
)
_MONEY = r"£(\d[\d,]*(?:\.\d+)?)"
_PER = r"(?:\s*(?:a|per|each|every)\s+(week|month|year))?"
_INCOME_WORD = r"(?:income|earn|earns|earned|earnings|profits?|wages?|salary|pay)"
_INCOME_MIN = re.compile(
    rf"\b{_INCOME_WORD}\b[^.;£]{{0,40}}?\b(?<!no )(?<!not )(?:over|more than|above|exceeds?|at least|of)\s+{_MONEY}{_PER}"
    rf"|\b{_INCOME_WORD}\b[^.;£]{{0,40}}?{_MONEY}{_PER} or more\b",
    re.IGNORECASE,
)
_INCOME_MAX = re.compile(
    rf"\b{_INCOME_WORD}\b[^.;£]{{0,40}}?\b(?:under|below|less than|up to|no more than|not more than)\s+{_MONEY}{_PER}"
    rf"|\b{_INCOME_WORD}\b[^.;£]{{0,40}}?{_MONEY}{_PER} or (?:less|under|below)\b",
    re.IGNORECASE,
)
_YEAR_FACTOR = {"week": 52, "month": 12, "year": 1, None: 1}


# An item of a list whose lead-in names the reader ("To claim you must: be aged 18 or over").
_LIST_ITEM = re.compile(r"\s*(?:be|are|aged|have|earn|get|receive|live|pay)\b", re.IGNORECASE)
# A table row headed by an age band: "18 to 20: £6.45 an hour", "Under 18: £4.20 an hour",
# "21 and over: …" (the band is the person's, as a rate table's first column).
_AGE_ROW_HEAD = re.compile(
    r"\s*(?:aged\s+)?(?:\d{2} to \d{2}|under \d{2}|\d{2} (?:and|or) over)\s*[:;]", re.IGNORECASE
)


# "if you're under 18 or if you're applying as an appointee": the age is one way in of two,
# the other on another ground, so it leaves no one out.
_OR_IF = re.compile(r",?\s+or if\b", re.I)
_CHILDREN_LEAD = re.compile(
    r"\b(?:child|children|son|daughter|baby|kids?|young (?:person|people))\b", re.I
)


def _about_the_reader(clause: str, position: int) -> bool:
    """The figure at `position` is the reader's: a reader word comes before it in its
    clause, and no word making it someone else's stands between them."""
    before = clause[:position]
    if _AGE_ROW_HEAD.match(clause) and not before.strip(" :;"):
        return True
    if _LIST_ITEM.match(clause):
        return not _SOMEONE_ELSE.search(before)  # an item of "you must:" or "you're:"
    readers = list(re.finditer(rf"\b{_READER}\b", before, re.IGNORECASE))
    if not readers:
        return False
    return not _SOMEONE_ELSE.search(before[readers[-1].end() :])


def ages_read(text: str) -> tuple[int | None, int | None, str]:
    """The reader's age bounds (inclusive) and State Pension age condition. Bounds in one
    clause narrow each other ("18 or over but under 40"); bounds in different clauses are
    alternatives and widen each other ("18 or over (some exceptions if you're 16 to 17)"). A
    bound only in brackets qualifies something else ("more than £1,000 (£2,000 if you're 63
    or over)"): alone, it does not narrow the statement."""
    intervals: list[tuple[int, int | None]] = []
    bracketed: list[tuple[int, int | None]] = []
    childs = False  # the items follow a lead-in about children ("costs for children: under 15")
    for clause in clauses(text):
        if childs and _AGE_ROW_HEAD.match(clause):
            continue
        if clause.rstrip().endswith(":"):
            childs = bool(_CHILDREN_LEAD.search(clause))
        low, high, found = None, None, False  # this clause's bounds
        for match in _AGE_RANGE.finditer(clause):
            if _OR_IF.match(clause, match.end()):
                continue
            if _about_the_reader(clause, match.start()):
                found = True
                low = max(low or 0, int(match.group(1)))
                high = _lower(high, int(match.group(2)))
        for match in _AGE_MIN.finditer(clause):
            if _AGE_RANGE.search(clause[max(0, match.start() - 8) : match.end()]):
                continue
            if _OR_IF.match(clause, match.end()):
                continue
            if _about_the_reader(clause, match.start()):
                found = True
                over = match.group(2) is not None  # "over 25" is 26 and older
                low = max(low or 0, int(next(g for g in match.groups() if g)) + over)
        for match in _AGE_MAX.finditer(clause):
            if _OR_IF.match(clause, match.end()):
                continue
            if _about_the_reader(clause, match.start()):
                found = True
                number = int(next(g for g in match.groups() if g))
                # "under 25" and "younger than 25" stop at 24; "21 or under" includes 21
                strictly = match.group(0).lower().startswith(("under", "aged under", "younger"))
                high = _lower(high, number - 1 if strictly else number)
        if found:
            (bracketed if clause.lstrip().startswith("(") else intervals).append((low or 0, high))
    if intervals:
        intervals += bracketed
    under, reached = _PENSION_AGE_UNDER.search(text), _PENSION_AGE_REACHED.search(text)
    pension = "" if under and reached else "under" if under else "reached" if reached else ""
    if not intervals:
        return None, None, pension
    low = min(low for low, _ in intervals)
    highs = [high for _, high in intervals]
    high = None if None in highs else max(h for h in highs if h is not None)
    return (low or None), high, pension


def age_bounds(clause: str) -> tuple[int | None, int | None] | None:
    """The ages one clause bounds, inclusive, whoever's they are ("18 or over but under 40 for
    a Lifetime ISA" is (18, 39); "aged 18 to 49" (18, 49); "under 16" (None, 15)); None when
    it bounds none. As `ages_read` reads them, so that a claim and a unit agree on a bound."""
    low = high = None
    found = False
    for match in _AGE_RANGE.finditer(clause):
        found = True
        low, high = max(low or 0, int(match.group(1))), _lower(high, int(match.group(2)))
    for match in _AGE_MIN.finditer(clause):
        if _AGE_RANGE.search(clause[max(0, match.start() - 8) : match.end()]):
            continue
        found = True
        over = match.group(2) is not None
        low = max(low or 0, int(next(g for g in match.groups() if g)) + over)
    for match in _AGE_MAX.finditer(clause):
        found = True
        number = int(next(g for g in match.groups() if g))
        strictly = match.group(0).lower().startswith(("under", "aged under", "younger"))
        high = _lower(high, number - 1 if strictly else number)
    return (low, high) if found else None


def _lower(held: int | None, new: int) -> int:
    return new if held is None else min(held, new)


def incomes_read(text: str) -> tuple[Decimal | None, Decimal | None]:
    """The reader's yearly income bounds: "if you or your partner earn more than £60,000 a
    year" (at least), "if your income is under £12,570" (at most)."""
    low = high = None
    for clause in clauses(text, at_colons=False):
        # what follows a figure, past its clause: "(£3,600 for couples) in the past 6 months"
        after = text[text.find(clause) :]
        for match in _INCOME_MIN.finditer(clause):
            if _NOT_INCOME.search(match.group(0)) or _ANOTHER_SUM_AFTER.search(
                clause[match.end() :]
            ):
                continue
            if re.search(r"\b(?:not|never)\s+$", clause[: match.start()], re.I):
                # "you do not earn more than £183.50 a week"
                amount = _yearly(match, after[match.end() :])
                high = amount if high is None else max(high, amount)
                continue
            if _about_the_reader(clause, match.start() + 1) or clause.lower().lstrip().startswith(
                ("if your", "your")
            ):
                amount = _yearly(match, after[match.end() :])
                low = amount if low is None else min(low, amount)
        for match in _INCOME_MAX.finditer(clause):
            if _NOT_INCOME.search(match.group(0)) or _ANOTHER_SUM_AFTER.search(
                clause[match.end() :]
            ):
                continue
            if _about_the_reader(clause, match.start() + 1) or clause.lower().lstrip().startswith(
                ("if your", "your")
            ):
                amount = _yearly(match, after[match.end() :])
                high = amount if high is None else max(high, amount)
    return low, high


def _yearly(match: re.Match, after: str = "") -> Decimal:
    amount, *rest = [group for group in match.groups() if group is not None]
    period = rest[0] if rest else None
    money = Decimal(amount.replace(",", ""))
    # "earned more than £2,600 (£3,600 together for couples) in the past 6 months": a sum
    # over a stretch of time, at the same pace over a year.
    if period is None and (stretch := _STRETCH.match(after)):
        count, unit = int(stretch.group(1)), stretch.group(2).lower().rstrip("s")
        yearly = (money * _YEAR_FACTOR[unit] / count).quantize(Decimal("0.01"))
        return yearly.to_integral() if yearly == yearly.to_integral() else yearly
    return money * _YEAR_FACTOR[period]


_STRETCH = re.compile(
    r"\s*(?:\([^)]*\)\s*)?(?:in|over|during) (?:the )?(?:past|last|previous|first) (\d+) (weeks?|months?)\b",
    re.I,
)


# Money between the income word and the amount that makes it another sum: "income and
# savings worth £6,000", "pension income over £85".
_NOT_INCOME = re.compile(r"\b(?:savings|capital|worth|pension|investments|benefit)\b", re.I)
# "no more than £16,000 in savings": the amount is the savings', whatever came before it.
_ANOTHER_SUM_AFTER = re.compile(
    r"^\s*(?:in|of|worth of)?\s*(?:savings|capital|investments|assets)\b", re.I
)
