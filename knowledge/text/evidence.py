"""Locating a quoted passage in a snapshot's text: exact after normalisation, else fuzzy."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from knowledge.text.normalise import QUOTES as _STRAIGHT
from knowledge.text.normalise import normalise_inline

_INVISIBLE = set("\u200b\u200c\u200d\u2060\ufeff\u00ad")

FUZZY_THRESHOLD = 90.0


@dataclass(frozen=True)
class Located:
    start: int
    end: int
    score: float  # 100 for an exact match

    @property
    def exact(self) -> bool:
        return self.score >= 100.0


@lru_cache(maxsize=8)
def _normalised_with_map(text: str) -> tuple[str, tuple[int, ...]]:
    """`text` with whitespace runs collapsed and quotes straightened (as `normalise_inline`
    does), and for each character of the result its offset in `text`. Cached: one snapshot
    is searched for many quotes in a row."""
    chars: list[str] = []
    positions: list[int] = []
    previous_space = True  # drops leading whitespace
    for offset, char in enumerate(text.translate(_STRAIGHT)):
        if char.isspace():
            if previous_space:
                continue
            char, previous_space = " ", True
        elif char in _INVISIBLE:
            continue
        else:
            previous_space = False
        chars.append(char)
        positions.append(offset)
    return "".join(chars), tuple(positions)


def locate_quote(quote: str, text: str) -> Located | None:
    needle = normalise_inline(quote)
    if not needle:
        return None
    haystack, positions = _normalised_with_map(text)
    index = haystack.find(needle)
    if index >= 0:
        return _located(positions, index, index + len(needle), 100.0, text)
    if len(needle) < 12:
        return None  # too short to trust a fuzzy match
    alignment = fuzz.partial_ratio_alignment(needle, haystack, score_cutoff=FUZZY_THRESHOLD)
    if alignment is None or alignment.score < FUZZY_THRESHOLD:
        return None
    return _located(positions, alignment.dest_start, alignment.dest_end, alignment.score, text)


def _located(positions: list[int], start: int, end: int, score: float, text: str) -> Located:
    first = positions[start]
    last = positions[end - 1] + 1
    while last > first and text[last - 1].isspace():
        last -= 1
    return Located(first, last, score)


def evidence_matches(*, text: str, start: int, end: int, quote: str) -> bool:
    return 0 <= start < end <= len(text) and text[start:end] == quote
