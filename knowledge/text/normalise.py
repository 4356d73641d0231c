"""One spelling of a page's text: entities unescaped, curly quotes straight, invisible
characters out, whitespace collapsed. Snapshot text and evidence quotes both pass through it,
so a quote is found where the page has it."""

from __future__ import annotations

import html
import re

QUOTES = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    }
)  # fmt: skip
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_SPACES = re.compile(r"\s+")


def normalise_inline(text: str) -> str:
    """Entities unescaped, curly quotes straight, odd spaces plain, whitespace collapsed."""
    text = html.unescape(text).translate(QUOTES)
    text = _INVISIBLE.sub("", text)
    return _SPACES.sub(" ", text).strip()
