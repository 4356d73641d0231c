"""Long lists a page at a time, every row reachable: Django's Paginator, and links to the other
pages that keep the list's filters (`?<filters>&page=N`). With htmx a link swaps only the
list (the element `target`) and puts its URL in the address bar; without, it opens the page."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator


@dataclass(frozen=True)
class PageLink:
    number: int | None  # None: the pages left out between two links
    href: str = ""
    current: bool = False


@dataclass(frozen=True)
class Pager:
    page: Page
    links: list[PageLink]
    target: str  # the id of the element a link's htmx swap replaces


def paginate(
    items, *, number: str | int | None, per_page: int, url: str, query: str = "", target: str
) -> Pager:
    """Page `number` of `items` (an ordered queryset or a list); a number that is not a page
    gives the first page, one past the end the last. `query` is the list's filters, encoded."""
    page = Paginator(items, per_page).get_page(page_number(number))
    links = [
        PageLink(None)
        if number == Paginator.ELLIPSIS
        else PageLink(number, page_url(url, query, number), number == page.number)
        for number in page.paginator.get_elided_page_range(page.number, on_each_side=2)
    ]
    return Pager(page, links, target)


def page_url(url: str, query: str, number: int) -> str:
    """The list at `url` with its filters `query`, at page `number` (the first needs none)."""
    parts = [part for part in (query, f"page={number}" if number > 1 else "") if part]
    return f"{url}?{'&'.join(parts)}" if parts else url


def page_number(raw: str | int | None) -> int:
    """The page asked for, 1 when none or nonsense; one past the end is for the Paginator to
    bring back to the last."""
    raw = str(raw or "")
    return int(raw) if raw.isascii() and raw.isdigit() and int(raw) > 0 else 1
