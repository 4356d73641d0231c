"""Word-level differences between two unit texts, for the review screen.

Texts are compared as runs of non-space characters (difflib on word tokens). A changed token
that carries a figure (an amount, a percentage, a year or date, a tax year) or a month name is
a `figure` change; any other changed token is a `word` change, so an expert's eye goes to
"£12,500 → £12,570" before "is → remains".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from knowledge.text.dates import MONTH_ABBREVIATIONS, MONTHS

SAME, FIGURE, WORD = "same", "figure", "word"
MONTH_WORDS = frozenset(MONTHS) | frozenset(MONTH_ABBREVIATIONS)
_WORD = re.compile(r"\S+")
_EDGE_PUNCTUATION = "()[]{}.,;:!?\"'“”‘’"


@dataclass(frozen=True)
class Segment:
    """Consecutive tokens of one kind, joined by single spaces; `joined` when no space
    separates it from the segment before (punctuation kept out of a changed figure)."""

    text: str
    kind: str
    joined: bool = False

    @property
    def changed(self) -> bool:
        return self.kind != SAME


def is_figure(token: str) -> bool:
    """Amounts (£12,570, 20%, 3.5p), years and dates (2025, 06/04/2025, 2024-25), months."""
    bare = token.strip(_EDGE_PUNCTUATION)
    return any(ch.isdigit() for ch in bare) or bare.lower() in MONTH_WORDS or "%" in bare


def word_diff(old: str, new: str) -> tuple[list[Segment], list[Segment]]:
    """The two texts as segments: what only the old text has, and what only the new one has,
    marked as changed (`figure` or `word`); what both share is `same`."""
    old_words, new_words = _WORD.findall(old or ""), _WORD.findall(new or "")
    old_kinds, new_kinds = [SAME] * len(old_words), [SAME] * len(new_words)
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for i in range(i1, i2):
            old_kinds[i] = _changed_kind(old_words[i])
        for j in range(j1, j2):
            new_kinds[j] = _changed_kind(new_words[j])
    return _segments(old_words, old_kinds), _segments(new_words, new_kinds)


def _changed_kind(token: str) -> str:
    return FIGURE if is_figure(token) else WORD


def _segments(words: list[str], kinds: list[str]) -> list[Segment]:
    segments: list[Segment] = []
    run: list[str] = []
    for index, (word, kind) in enumerate(zip(words, kinds, strict=True)):
        run.append(word)
        if index + 1 == len(words) or kinds[index + 1] != kind:
            segments.extend(_trimmed(" ".join(run), kind))
            run = []
    return segments


def _trimmed(text: str, kind: str) -> list[Segment]:
    """A changed run without its opening and closing punctuation, which stays unmarked:
    "(£12,570)," shows "£12,570" marked."""
    if kind == SAME:
        return [Segment(text, kind)]
    core = text.strip(_EDGE_PUNCTUATION)
    if not core:
        return [Segment(text, kind)]
    start = text.index(core)
    head, tail = text[:start], text[start + len(core) :]
    parts = [Segment(head, SAME)] if head else []
    parts.append(Segment(core, kind, joined=bool(head)))
    if tail:
        parts.append(Segment(tail, SAME, joined=True))
    return parts


def segments_html(segments: list[Segment], *, tag: str) -> SafeString:
    """Escaped HTML: changed segments wrapped in `tag` (`del` for the old side, `ins` for the
    new) with the class `diff-figure` or `diff-word`."""
    if tag not in ("del", "ins"):
        raise ValueError("tag: del or ins")
    html = []
    for segment in segments:
        if html and not segment.joined:
            html.append(" ")
        if segment.changed:
            html.append(
                format_html('<{0} class="diff-{1}">{2}</{0}>', tag, segment.kind, segment.text)
            )
        else:
            html.append(format_html("{}", segment.text))
    return mark_safe("".join(html))  # every part is escaped by format_html
