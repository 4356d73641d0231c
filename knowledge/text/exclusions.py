"""Who cannot get what a page offers, read from its lines that say so, and the page's other
statements narrowed to the people who can: "You're not eligible for the starting rate for
savings if your other income is £17,570 or more" makes "You may also get up to £5,000 of
interest and not have to pay tax on it. This is your starting rate for savings." a statement
for incomes up to £17,569.99; "If you or your partner expect to earn over £100,000 in the current
tax year, you will not be eligible" makes every "you can get … free childcare" of its page one
for incomes up to £100,000.

Only an age or income bound is read, whose complement is exact ("60 or over" leaves 59 and
under; "£17,570 or more" leaves up to £17,569.99, "over £100,000" up to £100,000): the rest of what a line can
exclude (a child who does not live with you, an immigration status) has no field to narrow.
A line naming what cannot be got narrows the statements of its own section that name it too;
a line naming nothing ("you will not be eligible") speaks of the page's subject, and narrows
the page's statements offering something. A statement names what is excluded in its own words,
not by the headings the extractor wrote before them."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from decimal import Decimal

from knowledge.text.applicability import Applicability, applicability_read
from knowledge.text.normalise import QUOTES
from knowledge.text.sections import statement_body

_EXCLUDED = re.compile(
    r"\byou(?:'re| are|'ll| will)? not (?:be )?eligible(?: for (?P<named>[^,.;]+?))?(?= if\b|[.,;]|$)"
    r"|\byou (?:cannot|can't|will not be able to) (?:get|claim|apply for) (?P<got>[^,.;]+?)(?= if\b)",
    re.IGNORECASE,
)
_NOT_A_SUBJECT = re.compile(r"^(?:it|this|them|these|that|any|one)$", re.IGNORECASE)
# A statement offering something ("You can get", "you'll be able to claim", "you may be
# eligible"): what a line naming nothing excludes the reader from, and how a page says whom its
# subject is for (knowledge.text.exceptions).
OFFERS = re.compile(
    r"\b(?:can|could|may|might|will|'ll)(?: usually)?(?: be able to)? (?:get|claim|apply)\b"
    r"|\beligible\b",
    re.IGNORECASE,
)
_BOUNDS = ("age_min", "age_max", "income_min", "income_max")
_JOINED = re.compile(r"\band\b(?<!you and)(?! your partner)", re.IGNORECASE)
# The excluded amount itself is excluded: "£17,570 or more", "at least", "£X or less", "up to".
_INCLUSIVE = re.compile(
    r"\bor (?:more|over|above|less|under|below)\b|\bat least\b|\bup to\b|\bno more than\b", re.I
)
_PENNY = Decimal("0.01")
# "… under a separate scheme": the statement offers something else.
_ANOTHER_SCHEME = re.compile(r"\b(?:separate|different|another|other) schemes?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Exclusion:
    """The line, the section holding it, what cannot be got ("" for the page's subject), the
    bound of those who can (one of age_min, age_max, income_min, income_max) and the figure
    the line printed ("£17,570", "60")."""

    line: str
    heading_path: tuple[str, ...]
    subject: str
    bound: str
    value: int | Decimal
    printed: str


def exclusions_read(page_lines: list[tuple[list[str], str]]) -> list[Exclusion]:
    found = []
    for headings, raw in page_lines:
        line = raw.translate(QUOTES).strip().lstrip("-• ")
        match = _EXCLUDED.search(line)
        if match is None:
            continue
        if _JOINED.search(line):
            continue  # "if you're under 18 and live in Scotland": no one bound's complement
        read = applicability_read(line).as_json()
        bounds = [key for key in _BOUNDS if key in read]
        if len(bounds) != 1 or set(read) - set(_BOUNDS):
            continue  # not one age or income bound alone: no exact complement
        key, value = bounds[0], read[bounds[0]]
        subject = _subject(match.group("named") or match.group("got") or "")
        printed = f"£{Decimal(value):,.0f}" if key.startswith("income") else str(value)
        bound, complement = _complement(key, value, inclusive=bool(_INCLUSIVE.search(line)))
        found.append(Exclusion(line, tuple(headings), subject, bound, complement, printed))
    return found


def _subject(words: str) -> str:
    words = re.sub(r"^(?:a|an|the|any)\s+", "", words.strip(), flags=re.IGNORECASE).lower()
    return "" if _NOT_A_SUBJECT.match(words) else words


def _complement(key: str, value, *, inclusive: bool) -> tuple[str, int | Decimal]:
    """Who can, of a line excluding `key` `value`: "60 or over" (age_min 60, whole years)
    leaves age_max 59; "over £100,000" (income_min) leaves income_max £100,000, and "£17,570
    or more", which excludes £17,570 itself, leaves £17,569.99."""
    if key == "age_min":
        return "age_max", int(value) - 1
    if key == "age_max":
        return "age_min", int(value) + 1
    step = _PENNY if inclusive else 0
    if key == "income_min":
        return "income_max", Decimal(str(value)) - step
    return "income_min", Decimal(str(value)) + step


def narrowed_by_exclusions(
    applicability: Applicability,
    *,
    text: str,
    heading_path: list[str],
    exclusions: list[Exclusion],
) -> Applicability:
    """The statement's applicability with the bound of each exclusion that speaks of it, where
    its own words leave that bound open (the excluding line itself keeps its reading)."""
    plain = text.translate(QUOTES)
    for exclusion in exclusions:
        if exclusion.line in plain or _EXCLUDED.search(plain) or _ANOTHER_SCHEME.search(plain):
            continue
        if exclusion.printed and re.search(rf"{re.escape(exclusion.printed)}(?![\d,])", plain):
            continue  # it speaks of the limit itself ("If your other income is £17,570 or more")
        if exclusion.subject:
            under = tuple(heading_path[: len(exclusion.heading_path)]) == exclusion.heading_path
            if not under or exclusion.subject not in statement_body(plain).lower():
                continue
        elif not OFFERS.search(plain):
            continue
        field = exclusion.bound.split("_")[0]  # age or income: the statement's own first
        if getattr(applicability, f"{field}_min") is not None:
            continue
        if getattr(applicability, f"{field}_max") is not None:
            continue
        applicability = dataclasses.replace(
            applicability,
            basis=(*applicability.basis, f"the page: “{exclusion.line}”"),
            **{exclusion.bound: exclusion.value},
        )
    return applicability
