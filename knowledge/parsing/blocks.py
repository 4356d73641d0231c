"""What a parsed page is made of: blocks (headings, paragraphs, list items, table rows), the
links between pages, and the page they render into."""

from __future__ import annotations

from dataclasses import dataclass, field

# Lines of a page's furniture, not its content.
BOILERPLATE = {"skip contents", "contents", "print this guide", "print entire guide"}


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | item | row
    text: str
    level: int = 0  # heading level
    url: str = ""  # the part this block belongs to


@dataclass(frozen=True)
class Link:
    target_path: str
    anchor_text: str
    heading_path: tuple[str, ...]


@dataclass
class ParsedPage:
    text: str
    sections: list[dict]
    links: list[Link]
    table_rows: int = 0
    list_items: int = 0
    content_hash: str = ""
    stats: dict = field(default_factory=dict)


def linearise_row(headers: list[str], values: list[str]) -> str:
    """'Band: Basic rate; Taxable income: £12,571 to £50,270; Tax rate: 20%'."""
    if not headers:
        return "; ".join(value for value in values if value)
    pairs = []
    for index, value in enumerate(values):
        header = headers[index] if index < len(headers) else ""
        if not value:
            continue
        pairs.append(f"{header}: {value}" if header else value)
    return "; ".join(pairs)
