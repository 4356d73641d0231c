"""Glossary expansion: a question's abbreviations and everyday names ("JISA", "the dole")
written out in gov.uk's words before the question is embedded, since an embedding model
knows "Junior ISA" far better than "JISA". An ambiguous term ("MA": Marriage Allowance or
Maternity Allowance) gives one reading per meaning, each searched."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache

MAX_READINGS = 4


@dataclass(frozen=True)
class GlossaryEntry:
    """One reading of a glossary term, as the query analysis and expansion use it."""

    term: str
    means: str
    match_case: bool = False
    concept_id: str | None = None
    category_slug: str | None = None


@dataclass(frozen=True)
class TermFound:
    term: str
    start: int
    end: int
    meanings: tuple[GlossaryEntry, ...]


@dataclass(frozen=True)
class Reading:
    """The question with each term found followed by one of its meanings in brackets."""

    text: str
    expansions: tuple[str, ...]  # "JISA → Junior ISA", in the order they occur


def terms_found(text: str, glossary: tuple[GlossaryEntry, ...]) -> list[TermFound]:
    """The glossary terms in `text`, longest first where two overlap ("the dole" over
    "dole"), each with every meaning it has, skipping a term whose meaning is already
    written beside it ("Personal Independence Payment (PIP)")."""
    meanings: dict[tuple[int, int], list[GlossaryEntry]] = {}
    lowered = text.lower()
    for entry in glossary:
        for match in phrase_pattern(entry.term, entry.match_case).finditer(text):
            if entry.means.lower() in lowered:
                continue
            meanings.setdefault(match.span(), []).append(entry)
    found: list[TermFound] = []
    for (start, end), entries in sorted(meanings.items(), key=lambda i: i[0][0] - i[0][1]):
        if any(start < taken.end and taken.start < end for taken in found):
            continue  # overlaps a longer term already taken
        unique = tuple({entry.means.lower(): entry for entry in entries}.values())
        found.append(TermFound(text[start:end], start, end, unique))
    return sorted(found, key=lambda term: term.start)


@cache
def phrase_pattern(term: str, match_case: bool) -> re.Pattern:
    """The term as a word of its own (a trailing "s" allowed: "ISAs"), compiled once."""
    flags = 0 if match_case else re.IGNORECASE
    return re.compile(rf"(?<![\w-]){re.escape(term)}s?(?![\w-])", flags)


def readings(text: str, glossary: tuple[GlossaryEntry, ...]) -> list[Reading]:
    """One reading per combination of meanings (at most MAX_READINGS); the text itself, with
    no expansion, when no term is found."""
    found = terms_found(text, glossary)
    if not found:
        return [Reading(text, ())]
    choices = itertools.islice(itertools.product(*(term.meanings for term in found)), MAX_READINGS)
    result = []
    for choice in choices:
        pieces, expansions, position = [], [], 0
        for term, entry in zip(found, choice, strict=True):
            pieces += [text[position : term.end], f" ({entry.means})"]
            expansions.append(f"{term.term} → {entry.means}")
            position = term.end
        pieces.append(text[position:])
        result.append(Reading("".join(pieces), tuple(expansions)))
    return result
