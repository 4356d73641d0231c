"""Words of a text: the ones that carry its meaning, and the numbered variants it names."""

from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "has", "have", "if",
     "in", "is", "it", "its", "of", "on", "or", "the", "their", "they", "this", "to", "was", "were",
     "what", "when", "which", "who", "will", "with", "you", "your")
)  # fmt: skip


def content_words(text: str) -> frozenset[str]:
    """The words and numbers of a text that carry its meaning: lower case, stop words out."""
    return frozenset(
        word for word in re.findall(r"[a-z]+|\d+", text.lower()) if word not in STOPWORDS
    )


# A scheme's numbered variants differ in their figures: Plan 1 and Plan 2 student loans,
# Class 1 and Class 4 National Insurance.
_DESIGNATOR = re.compile(r"\b(plan|class|level|tier|band|type)\s+(\d+[a-z]?|[a-z])\b", re.I)


def designators(text: str) -> set[str]:
    """The numbered variants a text names: {"plan 2", "class 1a"}."""
    return {f"{word.lower()} {mark.lower()}" for word, mark in _DESIGNATOR.findall(text)}


_ACRONYM = re.compile(r"\b([A-Z]{2,6})s?\b")
# A name gov.uk writes out: capitalised words in a row ("High Income Child Benefit Charge").
_NAME = re.compile(r"\b[A-Z][A-Za-z']*(?:\s+[A-Z][A-Za-z']*)*")


def acronyms(text: str) -> set[str]:
    """The abbreviations a text writes in capitals (HICBC, PIP, ISAs), lower case."""
    return {found.lower() for found in _ACRONYM.findall(text)}


def spelled_out(acronym: str, text: str) -> bool:
    """Whether `text` writes out in capitalised words a name whose initials spell `acronym`
    ("High Income Child Benefit Charge" for "hicbc"): gov.uk writes a scheme's name in full
    where a user writes its abbreviation."""
    wanted = acronym.lower()
    return len(wanted) >= 2 and any(
        wanted in "".join(word[0].lower() for word in name.split()) for name in _NAME.findall(text)
    )


@lru_cache(maxsize=8192)
def word_stems(text: str) -> frozenset[str]:
    """The content words of a text, each cut to its first five letters (allowance,
    allowances), stop words, short words and numbers out."""
    return frozenset(
        word[:5]
        for word in re.findall(r"[a-z]+", text.lower())
        if word not in STOPWORDS and len(word) > 2
    )


# Words that deny what a sentence says ("cannot", "don't", "no longer").
_DENIAL = re.compile(
    r"\b(?:not|cannot|can't|won't|don't|doesn't|isn't|aren't|never|no longer|neither|nor|no)\b",
    re.I,
)


def denies(text: str) -> bool:
    """The text denies what it says: "You cannot have a Junior ISA as well"."""
    return bool(_DENIAL.search(text))
