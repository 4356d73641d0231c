"""A page's section tree as parsing stores it (each section's `start`, `end` and
`heading_path`), read by offset."""

from __future__ import annotations


def section_at(sections: list[dict], offset: int) -> dict | None:
    """The innermost section holding `offset` (sections are in text order)."""
    found = None
    for section in sections:
        if section["start"] <= offset <= section["end"]:
            found = section
    return found


def statement_body(text: str) -> str:
    """A statement's own words, after the "Page > Heading: " the extractor writes before a
    statement too short to say what it is about."""
    head, colon, rest = text.partition(": ")
    return rest if colon and " > " in head else text
