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
