"""Sections for everyone but a named group, read from a line of the section saying that what it
describes is different for that group without saying how: "There's a different form and
postal address if you live in Northern Ireland." (under "How to claim > Claim by post"),
"There are different rules if you're self-employed." (under "How your wages affect your
payments"). The section's other statements are then for the other nations, or for people in
other work: their own words said nothing of it, the page's did.

A line that gives the group's own figures ("In Scotland the rate is different: 21%") is their
rule, not a pointer elsewhere, and narrows nothing around it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass

from knowledge.text.applicability import Applicability, applicability_read
from knowledge.text.birth_dates import births_read
from knowledge.text.circumstances import EMPLOYMENTS, circumstances_read
from knowledge.text.exclusions import OFFERS, Exclusion, exclusions_read, narrowed_by_exclusions
from knowledge.text.nations import (
    NATIONS,
    names_a_nation,
    nations_named,
    nations_read,
    page_nations_read,
)
from knowledge.text.normalise import QUOTES

_DIFFERENT = re.compile(
    r"\bthere(?:'s| is| are| will be) (?:a |an )?(?:\w+ ){0,2}different\b"
    r"|\b(?:is|are|will be) different\b|\bdifferent (?:rules|rates|process|way|arrangements)\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"£\s?\d|\d+(?:\.\d+)?%")
_LONGEST = 200  # a pointer is one short sentence; a longer line is the group's own rule


@dataclass(frozen=True)
class SectionException:
    """Under `heading_path`, statements are for `nations` (when not empty) and for people in
    `employments` (when not empty), as the `line` said."""

    heading_path: tuple[str, ...]
    line: str
    nations: frozenset[str] = frozenset()
    employments: frozenset[str] = frozenset()

    def holds_under(self, heading_path: list[str]) -> bool:
        return tuple(heading_path[: len(self.heading_path)]) == self.heading_path


def section_exceptions_read(page_lines: list[tuple[list[str], str]]) -> list[SectionException]:
    """The sections of a page (its lines with their heading paths, as nations.page_lines gives
    them) that hold a line saying they are different for a nation or for people in a kind of
    work, and who they are for therefore. The group is read from the clause saying so ("- you
    live in England, Scotland or Wales - there are different rules for Northern Ireland": only
    Northern Ireland), or from the list after it ("There's a different process if you're a
    student from:" and the nations listed). A line outside every section narrows the page,
    which page_nations_read reads on its own terms: not here."""
    found = _schemes_for_residents(page_lines)
    for number, (headings, raw) in enumerate(page_lines):
        line = _plain(raw)
        if not headings or len(line) > _LONGEST or _FIGURE.search(line):
            continue
        clause = next((c for c in _CLAUSE.split(line) if _DIFFERENT.search(c)), None)
        if clause is None:
            continue
        if clause.endswith(":"):  # a lead-in: the group is the list after it
            listed = [
                _plain(text)
                for heads, text in page_lines[number + 1 : number + 8]
                if heads == headings and len(text) < 60
            ]
            named_nations, named_work = nations_named(" ".join(listed)), frozenset()
        else:
            named_nations = nations_named(clause)
            named_work = circumstances_read(clause, [])["employment"]
        if not named_nations and not named_work:
            continue
        found.append(
            SectionException(
                heading_path=tuple(headings),
                line=line,
                nations=frozenset(NATIONS) - named_nations if named_nations else frozenset(),
                employments=frozenset(EMPLOYMENTS) - named_work if named_work else frozenset(),
            )
        )
    return found


# A scheme's own eligibility part: its conditions are the scheme's, not one statement's.
_ELIGIBILITY = re.compile(
    r"^(?:eligibility|who can (?:get|apply|claim)|who is eligible|who qualifies|"
    r"check (?:if|whether) you(?:'re| are) eligible)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:cannot|can't|not|instead|unless)\b", re.IGNORECASE)


def _schemes_for_residents(page_lines: list[tuple[list[str], str]]) -> list[SectionException]:
    """A scheme's section (one of several on a page) whose eligibility part requires living
    in some nations ("Debt Relief Orders > Eligibility": "you've lived or worked in England and
    Wales within the last 3 years") is for those nations, all of it: its costs, how to apply,
    its limits. A condition saying who cannot get it is read by the page, not here."""
    found = []
    for headings, raw in page_lines:
        line = _plain(raw).lstrip("-• ")
        if len(headings) < 2 or not _ELIGIBILITY.match(headings[-1].strip()):
            continue
        named, _ = nations_read(line, [])
        if named and not _NEGATED.search(line):
            scheme = tuple(headings[:-1])
            found.append(SectionException(heading_path=scheme, line=line, nations=frozenset(named)))
    return found


_CLAUSE = re.compile(r"(?<=[.;])\s+|\s+-\s+|^-\s+")


def _plain(line: str) -> str:
    return line.translate(QUOTES).strip()


def narrowed_by_section(
    applicability: Applicability,
    *,
    text: str,
    heading_path: list[str],
    exceptions: list[SectionException],
) -> Applicability:
    """The statement's applicability, narrowed by the exceptions of the sections holding it
    where its own words leave it open (a statement naming a nation or a kind of work keeps
    its own reading, as does the pointer itself)."""
    for exception in exceptions:
        if not exception.holds_under(heading_path) or _quotes_any_of(text, exception.line):
            continue
        changes: dict = {}
        if exception.nations and _nations_open(applicability, text):
            changes["nations"] = (applicability.nations or frozenset(NATIONS)) & exception.nations
        if exception.employments and not applicability.employment:
            changes["employment"] = exception.employments
        if changes:
            said = f"the section: “{exception.line}”"
            applicability = dataclasses.replace(
                applicability, basis=(*applicability.basis, said), **changes
            )
    return applicability


def _quotes_any_of(text: str, line: str) -> bool:
    """The statement holds a sentence of the line (the pointer, or the group's own rule that
    follows it): it is about the group, not the section's others."""
    plain = _plain(text)
    return any(sentence in plain for sentence in re.split(r"(?<=[.:])\s+", line) if sentence)


def _nations_open(applicability: Applicability, text: str) -> bool:
    """The statement's own words and headings name no nation (its page may have: a section
    narrows a page)."""
    if names_a_nation(text):
        return False
    return not applicability.nations or any(
        said.startswith("nations from the page") for said in applicability.basis
    )


@dataclass(frozen=True)
class PageBirths:
    """The dates of birth of the people the page's subject is for, as one of its lines says
    ("You can get the new State Pension if you're eligible and: a man born on or after 6 April
    1951; a woman born on or after 6 April 1953")."""

    born_from: dt.date | None = None
    born_before: dt.date | None = None
    line: str = ""


@dataclass(frozen=True)
class PageReading:
    """What a page says of whom it is for, as a whole and section by section."""

    nations: tuple[set[str], str]
    exceptions: list[SectionException]
    births: PageBirths = PageBirths()
    # A flat page's headings read as subsections of the alternative above them (see
    # alternatives_governing), by heading.
    governing: dict[str, str] = dataclasses.field(default_factory=dict)
    # Its lines saying who cannot get what it offers, by age or income (knowledge.text.exclusions).
    exclusions: list[Exclusion] = dataclasses.field(default_factory=list)


def page_reading(title: str, page_lines: list[tuple[list[str], str]]) -> PageReading:
    """The nations the page as a whole is for (its title and lines), its sections that are
    different for a named group, and the dates of birth its subject is for."""
    return PageReading(
        page_nations_read(title, page_lines),
        section_exceptions_read(page_lines),
        page_births_read(title, page_lines),
        alternatives_governing(page_lines),
        exclusions_read(page_lines),
    )


def alternatives_governing(page_lines: list[tuple[list[str], str]]) -> dict[str, str]:
    """A page stored as plain text has its headings at one level, so a heading's subsections
    look like its siblings. Between two headings that are alternatives on one ground ("If you
    pay higher rate Income Tax" … "If you pay basic rate Income Tax"), the headings that narrow
    no one ("Gains from 30 October 2024 onwards") can only be the first one's subsections: a
    page does not break off its alternatives for something for everyone. Those are read so;
    after the last alternative nothing is, since there the page may well have moved on."""
    order = [tuple(headings) for headings, _ in page_lines if headings]
    if any(len(headings) > 1 for headings in order):
        return {}  # the headings nest: the page's own structure says whose they are
    names = [h[0] for n, h in enumerate(order) if n == 0 or h != order[n - 1]]
    if len(set(names)) < len(names):
        return {}  # a heading met twice ("Example") cannot be told apart by its name
    grounds = [_narrowing_ground(name) for name in names]
    governing: dict[str, str] = {}
    for first, ground in enumerate(grounds):
        following = next((n for n in range(first + 1, len(names)) if grounds[n]), None)
        if not ground or following is None or grounds[following] != ground:
            continue
        governing |= {names[n]: names[first] for n in range(first + 1, following)}
    return governing


def _narrowing_ground(heading: str) -> frozenset[str]:
    """Which of a reader's fields the heading narrows ("If you live in Scotland": nations)."""
    read = applicability_read(heading).as_json()
    return frozenset(read)


def page_births_read(title: str, page_lines: list[tuple[list[str], str]]) -> PageBirths:
    """The first line saying who can get the page's subject by their date of birth: it names
    the subject by the page's title (a leading "The" aside) and reads a range of the reader's
    birth dates."""
    subject = re.sub(r"\s*\([^)]*\)", "", title).strip().removeprefix("The ").lower()
    if len(subject) < 4:
        return PageBirths()
    for number, (headings, raw) in enumerate(page_lines):
        line = _plain(raw)
        if subject not in line.lower() or not OFFERS.search(line):
            continue
        if line.endswith(":"):  # a lead-in: its list's items follow, a line each
            items = []
            for heads, item in page_lines[number + 1 : number + 12]:
                if heads != headings or not item.lstrip().startswith(("-", "•")):
                    break
                items.append(_plain(item).lstrip("-• "))
            line = f"{line} {'; '.join(items)}"
        born_from, born_before = births_read(line)
        if born_from or born_before:
            return PageBirths(born_from, born_before, line)
    return PageBirths()


def statement_applicability(
    text: str, *, heading_path: list[str], page: PageReading, unit_type: str = ""
) -> Applicability:
    """Who a statement is for: its own words, its headings, its section and its page."""
    # The alternative a flat page's heading sits under heads the statement for its own reading;
    # sections are still found by the page's own heading paths.
    above = page.governing.get(heading_path[-1]) if heading_path else None
    read = applicability_read(
        text,
        heading_path=[above, *heading_path] if above else heading_path,
        page_nations=page.nations,
        unit_type=unit_type,
    )
    births = page.births
    if (births.born_from or births.born_before) and unit_type != "example" and _ageless(read):
        read = dataclasses.replace(
            read,
            born_from=births.born_from,
            born_before=births.born_before,
            basis=(*read.basis, f"dates of birth from the page: “{births.line}”"),
        )
    read = narrowed_by_section(
        read, text=text, heading_path=heading_path, exceptions=page.exceptions
    )
    if unit_type == "example":  # a worked example's ages and incomes are the example's
        return read
    return narrowed_by_exclusions(
        read, text=text, heading_path=heading_path, exclusions=page.exclusions
    )


def _ageless(applicability: Applicability) -> bool:
    """The statement says nothing of the reader's age or birth itself."""
    return (
        applicability.age_min is None
        and applicability.age_max is None
        and not applicability.state_pension_age
        and applicability.born_from is None
        and applicability.born_before is None
    )
