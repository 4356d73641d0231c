"""Words of a text: the ones that carry its meaning, and the numbered variants it names."""

from __future__ import annotations

import re

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
