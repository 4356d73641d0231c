"""An assistant's answer split into checkable claims, and the figures each claim states.

Claims are sentences, split again at "and", "but", ", or", a comma, ";" or a dash when each
side carries a figure of its own. A sentence with no figure and no words of substance ("I hope this
helps") is not a claim. Figures are amounts (£, pence, "£20k", "twenty thousand pounds"),
percentages ("45%", "forty-five per cent", "25p in the pound"), with the period written next
to them (a week, a month, a year), and other numbers with what they count (ages, weeks,
months, hours, years).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from decimal import Decimal

from knowledge.text.amounts import find_amounts, period_in
from knowledge.text.words import STOPWORDS

SENTENCE = re.compile(r"(?:[^.!?]|[.!?](?=\d))+(?:[.!?]|$)")
_CLAUSE_BREAK = re.compile(
    r",?\s+(?:and|but|while|whereas|followed by)\s+|,\s+or\s+|,\s+|;\s+|\s+[-–—]\s+", re.I
)
PERIOD_REACH = 20  # characters after a figure where its period is written
_RANGE_OPEN = re.compile(r"\bbetween\s+\S+$", re.I)
_CONDITION = re.compile(
    r"\W*(?:if|when|once|unless|as long as|provided|while|until|after|before)\b", re.I
)
# Rounding words allow what they say; "up to £3,438" and "over £125,140" are bounds, exact.
_APPROXIMATE = re.compile(
    r"\b(?:about|around|roughly|approximately|nearly|almost|just under|just over)\s+$", re.I
)
# A number and what it counts, with at most one word between ("35 qualifying years", "18
# monthly payments").
_COUNT = re.compile(
    r"(?<![£\d.,/-])\b(\d{1,3}(?:\.\d+)?)\s*(?:-|\s)?(?:[a-z]+\s+)?"
    r"(years?|months?|weeks?|days?|hours?|points?|payments?)\b",
    re.I,
)
# An age is read as the boundary of the condition it states, so that the two sides of one
# boundary agree: "24 or under" is "under 25", the complement of "25 or over".
_AGE = re.compile(
    r"\b(?:under|over|aged?|age of|reach(?:es|ing)?|turns?)\s+(\d{1,2})\b"
    r"|\b(\d{1,2})(?:\s+(?:or|and)\s+(?:over|older|above|(?P<below>under|younger))\b"
    r"|[\s-]years?[\s-]olds?\b)",
    re.I,
)
_THOUSANDS = re.compile(r"£\s?(\d+(?:\.\d+)?)\s?k\b", re.I)
# How often something is paid, read as the time between payments ("paid every two weeks",
# "PIP is paid monthly", "once a fortnight") so that it compares with "every 4 weeks". Only
# after "paid"/"payments": "£25.60 a week" is an amount's period, not a frequency.
_FREQUENCY = re.compile(
    r"\b(?:paid|payments?(?:\s+(?:are|is|come|arrive))?)\s+(?:[a-z]+\s+){0,3}?(?P<every>"
    r"every\s+(?P<count>\d{1,2}|[a-z]+)\s+(?P<unit>weeks|days|months)"
    r"|(?:every|each|once\s+a|once\s+every)\s+(?P<single>week|fortnight|month)"
    r"|(?P<adverb>weekly|fortnightly|monthly|(?:4|four)[\s-]weekly))\b",
    re.I,
)
_FREQUENCY_AS = {
    "week": (1, "weeks"),
    "weekly": (1, "weeks"),
    "fortnight": (2, "weeks"),
    "fortnightly": (2, "weeks"),
    "month": (1, "months"),
    "monthly": (1, "months"),
    "4-weekly": (4, "weeks"),
    "four-weekly": (4, "weeks"),
}
_PENCE_IN_POUND = re.compile(
    r"\b(\d{1,2})p\s+(?:in|for|of)\s+(?:the|every|each)\s+(?:£1\b|pound\b)", re.I
)

_WORD_NUMBERS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
} | {
    word: 10 * (index + 2)
    for index, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = re.compile(
    r"\b(?:(?:" + "|".join(list(_WORD_NUMBERS) + list(_SCALES)) + r")[\s-]*(?:and\s+)?)+"
    r"(?:(?P<pounds>pounds?)|(?P<percent>per\s?cent|percent))",
    re.I,
)


@dataclass(frozen=True)
class Figure:
    value: Decimal
    unit: str  # GBP | percent | years | months | weeks | days | hours | age
    period: str = ""  # week | month | year | … for money
    approximate: bool = False
    printed: str = ""
    start: int = 0  # where it is written in the text it was read from
    end: int = 0


@dataclass
class Claim:
    start: int
    end: int
    text: str
    figures: list[Figure] = field(default_factory=list)
    # What the claim is searched with: a clause that names no topic ("or £364 a week") is
    # searched with its whole sentence, and a sentence that leans on the one before ("You
    # can get it for 12 months") after that one.
    context: str = ""
    # Where the claim's sentence starts in the answer: what comes before it is what the
    # claim follows on from, as a question follows the turns before it.
    sentence_start: int = 0

    def __post_init__(self):
        self.context = self.context or self.text

    @property
    def searched(self) -> str:
        """The claim as the question it answers: the words of what it is searched with, its
        figures taken out ("The ISA allowance is £20,000 a year" → "The ISA allowance is a
        year"), so that it finds the units about the quantity, whatever value they give."""
        return masked(self.context)


def answer_claims(answer: str, *, before: str = "") -> list[Claim]:
    """`before`: what the answer follows (the question asked), which a first sentence that
    names no topic leans on."""
    claims = []
    for sentence in SENTENCE.finditer(answer):
        said = answer[slice(*_trimmed(answer, *sentence.span()))]
        context = f"{before} {said}" if before and _leans_on_before(said) else said
        for start, end in _clauses(answer, sentence.start(), sentence.end()):
            start, end = _trimmed(answer, start, end)
            text = answer[start:end]
            figures = claim_figures(text)
            if figures or _substantive(text) or _clause_like(text):
                searched = text if _names_a_topic(text) else context
                claims.append(Claim(start, end, text, figures, searched, sentence.start()))
        before = said
    return claims


def _names_a_topic(text: str) -> bool:
    """A capitalised word after the first (Child Benefit, ISA, Plan 2)."""
    return bool(re.search(r"\S\s+[A-Z]", text))


def _leans_on_before(sentence: str) -> bool:
    """ "You can get it for 12 months": a pronoun, and no topic named."""
    return not _names_a_topic(sentence) and bool(re.search(r"\b(?:it|they|them)\b", sentence, re.I))


def _clauses(answer: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentence, split where each side states a figure of its own."""
    pieces, last = [], start
    for match in _CLAUSE_BREAK.finditer(answer, start, end):
        left, right = answer[last : match.start()], answer[match.end() : end]
        if _RANGE_OPEN.search(left):
            continue  # "between £12,571 and £50,270" is one figure's range
        if last == start and _CONDITION.match(left) and match.group().strip() == ",":
            continue  # "If you pay tax at 40%, you claim 20% more": a condition and its rule
        both_figures = claim_figures(left) and claim_figures(right)
        # "you can only pay into one cash ISA a year, and the total allowance is £20k": two
        # statements joined, one with a figure, each checked on its own.
        joined = (
            # coordinating words join statements; "while", "whereas" lead a condition in
            match.group().strip(" ,") in ("and", "but", ";")
            and (claim_figures(left) or claim_figures(right))
            and _clause_like(left)
            and _clause_like(right)
        )
        if both_figures or joined:
            pieces.append((last, match.start()))
            last = match.end()
        elif match.group().strip() in "-–—" and _substantive(right) and not _substantive(left):
            last = match.end()  # "Don't worry - X": the filler before the dash goes
    pieces.append((last, end))
    return pieces


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and not text[start].isalnum() and text[start] not in "£":
        start += 1
    while end > start and text[end - 1] in " .!?;,":
        end -= 1
    return start, end


def _clause_like(text: str) -> bool:
    """Says something of its own: a verb's worth of words besides its figures."""
    words = [w for w in re.findall(r"[a-z']+", text.lower()) if w not in STOPWORDS and len(w) > 2]
    return len(words) >= 3 or (len(words) >= 2 and bool(_VERB.search(text)))


_VERB = re.compile(
    r"\b(?:is|are|was|were|can|pay|get|gets|open|claim|apply|need|must|has|have)\b", re.I
)


def _substantive(text: str) -> bool:
    words = [w for w in re.findall(r"[a-z']+", text.lower()) if w not in STOPWORDS and len(w) > 3]
    return len(words) >= 3


def claim_figures(text: str) -> list[Figure]:
    figures = []
    in_the_pound = [m.span() for m in _PENCE_IN_POUND.finditer(text)]
    for amount in find_amounts(text):
        if text[amount.end : amount.end + 1].lower() == "k":
            continue  # "£20k": read below
        if any(start <= amount.start < end for start, end in in_the_pound):
            continue  # "25p in the pound" is a rate: read below
        figures.append(
            Figure(
                amount.value,
                amount.unit,
                period_after(text, amount.end),
                bool(_APPROXIMATE.search(text[: amount.start])),
                amount.printed,
                amount.start,
                amount.end,
            )
        )
    for match in _THOUSANDS.finditer(text):
        value = Decimal(match.group(1)) * 1000
        figures.append(
            Figure(
                value, "GBP", period_after(text, match.end()), False, match.group(), *match.span()
            )
        )
    for match in _PENCE_IN_POUND.finditer(text):
        figures.append(
            Figure(Decimal(match.group(1)), "percent", "", False, match.group(), *match.span())
        )
    for match in _NUMBER_WORDS.finditer(text):
        value = words_value(match.group())
        if value is not None:
            unit = "GBP" if match.group("pounds") else "percent"
            figures.append(
                Figure(
                    value,
                    unit,
                    period_after(text, match.end()),
                    False,
                    match.group(),
                    *match.span(),
                )
            )
    figures += _counts(text)
    return figures


def _counts(text: str) -> list[Figure]:
    found = [
        Figure(_age_boundary(m), "age", "", False, m.group(), m.start(), m.end())
        for m in _AGE.finditer(text)
    ]
    for match in _COUNT.finditer(text):
        if any(f.start <= match.start() < f.end for f in found):
            continue  # "aged 23 years" is the age already read
        unit = match.group(2).lower().rstrip("s") + "s"
        if re.search(r"[£%]", text[max(0, match.start() - 1) : match.start()]):
            continue
        found.append(Figure(Decimal(match.group(1)), unit, "", False, match.group(), *match.span()))
    for match in _FREQUENCY.finditer(text):
        start, end = match.span("every")
        if any(f.start < end and start < f.end for f in found):
            continue  # "every 4 weeks" is the length already read
        if (every := _frequency(match)) is not None:
            value, unit = every
            found.append(Figure(Decimal(value), unit, "", False, text[start:end], start, end))
    return found


def _frequency(match: re.Match) -> tuple[int, str] | None:
    if match.group("count"):
        count = match.group("count").lower()
        value = int(count) if count.isdigit() else _WORD_NUMBERS.get(count)
        return (value, match.group("unit").lower()) if value else None
    word = re.sub(r"\s+", "-", (match.group("single") or match.group("adverb")).lower())
    return _FREQUENCY_AS[word]


def _age_boundary(match: re.Match) -> Decimal:
    age = Decimal(match.group(1) or match.group(2))
    return age + 1 if match.group("below") else age


# A claim's text is masked again for each of its candidates (its clause in each unit, its
# topic): read once.
@functools.lru_cache(maxsize=4096)
def masked(text: str) -> str:
    """The text without the figures it states, and the spaces they leave closed up."""
    spans = sorted((f.start, f.end) for f in claim_figures(text) if f.unit in ("GBP", "percent"))
    pieces, last = [], 0
    for start, end in spans:
        if start >= last:
            pieces.append(text[last:start])
            last = end
    pieces.append(text[last:])
    return " ".join("".join(pieces).split())


def period_after(text: str, end: int) -> str:
    """The period written just after a figure ("£81.90 a week for …"), or ''."""
    return period_in(text[end : end + PERIOD_REACH])


def words_value(words: str) -> Decimal | None:
    """'forty-five per cent' → 45; 'twenty thousand pounds' → 20000."""
    total, current = 0, 0
    for token in re.findall(r"[a-z]+", words.lower()):
        if token in _WORD_NUMBERS:
            current += _WORD_NUMBERS[token]
        elif token in _SCALES:
            current = max(current, 1) * _SCALES[token]
            if _SCALES[token] >= 1000:
                total, current = total + current, 0
    total += current
    return Decimal(total) if total else None
