"""The links between the curation screens, for the admin home and each screen's navigation.

A link is shown only to people its screen lets in: `may_open` asks the check the screen's view
was decorated with (`signed_in_and`), so the links and the views cannot disagree."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.urls import resolve, reverse

SCREEN_TITLES = {
    "curation:review": "Superseding review",
    "curation:review-decisions": "Decision log (undo a decision)",
    "curation:unit-queue": "What to review first",
    "curation:taxonomy": "Taxonomy",
    "curation:taxonomy-flags": "Quality flags",
    "curation:taxonomy-triage": "Triage",
    "curation:taxonomy-bootstrap": "Bootstrap concepts",
    "curation:taxonomy-glossary": "Glossary & life events",
    "curation:taxonomy-changes": "Change log",
    "curation:audit": "Audit samples",
    "curation:audit-results": "Audit results",
    "curation:changes": "Changes on gov.uk",
    "curation:jobs": "Jobs",
}

# The admin home's rows: who the screens are for, and the screens.
SCREEN_GROUPS = (
    ("Domain experts", ("curation:unit-queue", "curation:review", "curation:review-decisions")),
    (
        "Editors",
        (
            "curation:taxonomy",
            "curation:taxonomy-flags",
            "curation:taxonomy-triage",
            "curation:taxonomy-bootstrap",
            "curation:taxonomy-glossary",
            "curation:taxonomy-changes",
        ),
    ),
    ("Experts and editors", ("curation:audit", "curation:audit-results")),
    ("Experts and editors: freshness", ("curation:changes",)),
    ("Staff", ("curation:jobs",)),
)


@dataclass(frozen=True)
class ScreenLink:
    title: str
    url: str


@dataclass(frozen=True)
class ScreenGroup:
    role: str
    links: list[ScreenLink]


def may_open(user, url_name: str) -> bool:
    """Whether the screen at `url_name` lets `user` in, by its view's own check."""
    view = resolve(reverse(url_name)).func
    try:
        view.access_check(user)
    except PermissionDenied:
        return False
    return True


def screen_links(user, url_names: Iterable[str]) -> list[ScreenLink]:
    """The screens of `url_names` that `user` may open, in that order."""
    return [
        ScreenLink(SCREEN_TITLES[name], reverse(name)) for name in url_names if may_open(user, name)
    ]


def screens_for(user) -> list[ScreenGroup]:
    """The admin home's groups, each with the screens `user` may open; empty groups left out."""
    groups = [ScreenGroup(role, screen_links(user, names)) for role, names in SCREEN_GROUPS]
    return [group for group in groups if group.links]
