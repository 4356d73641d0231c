"""Comparing two units' words and figures: text similarity, whether they state the same
figures, and how alike their words are once figures are masked.

Pure functions over text; the superseding and dedup detectors (curation) and the heuristic
provider's adjudicator use them.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from knowledge.text.amounts import find_amounts
from knowledge.text.dates import MONTHS, find_validities
from knowledge.text.normalise import normalise_inline

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_MONTH_WORD = re.compile(r"\b(" + "|".join(MONTHS) + r")\b", re.I)
_MASK = "#"


def normalised(text: str) -> str:
    return normalise_inline(text).lower()


def text_similarity(a: str, b: str) -> float:
    """0..1: the share of characters the two normalised texts have in common (Indel ratio)."""
    return fuzz.ratio(normalised(a), normalised(b)) / 100


def figures(text: str) -> tuple:
    """Every figure a text states: amounts and percentages, validity periods, and, to catch
    what those miss (ages, counts, bare dates), every number and month name."""
    amounts = tuple((amount.unit, amount.value) for amount in find_amounts(text))
    periods = tuple((v.valid_from, v.valid_to) for v in find_validities(text))
    numbers = tuple(n.replace(",", "") for n in _NUMBER.findall(text))
    months = tuple(month.lower() for month in _MONTH_WORD.findall(text))
    return amounts, periods, numbers, months


def near_identical(a: str, b: str, *, threshold: float) -> bool:
    """Duplicates, not versions: texts alike above `threshold` that state the same figures
    ('£12,500' and '£12,570' never are). The superseding detector's stage 1 and the dedup
    job's rule."""
    return text_similarity(a, b) > threshold and figures(a) == figures(b)


def masked(text: str) -> str:
    """The normalised text with amounts, dates, years and month names replaced by `#`. Other
    numbers stay: they name things ('18 to 20' and '21 to 24' are two age bands)."""
    text = normalised(text)
    spans = [(a.start, a.end) for a in find_amounts(text)]
    spans += [(v.start, v.start + len(v.phrase)) for v in find_validities(text)]
    left = len(text)
    for start, end in sorted(spans, reverse=True):
        if end <= left:  # an amount inside a date phrase is masked with the phrase
            text = text[:start] + _MASK + text[end:]
            left = start
    text = _MONTH_WORD.sub(_MASK, _YEAR.sub(_MASK, text))
    return re.sub(r"#(\s*#)+", _MASK, text)


def masked_similarity(a: str, b: str) -> float:
    """Text similarity once figures and dates are masked: how alike the words are."""
    return fuzz.ratio(masked(a), masked(b)) / 100
