"""Which UK nations a statement or a whole page is for, read from gov.uk English: a heading or
leading clause that narrows it ("If you live in Scotland", "In Northern Ireland,"), a page
saying where it holds ("These rates apply in England, Wales and Northern Ireland"), a part
for people from elsewhere ("If you're not from England: There's a different process"), or a
statement that people in a nation cannot get the page's subject (then the other nations)."""

from __future__ import annotations

import re

from knowledge.text.sections import section_at, statement_body

NATIONS = ("england", "scotland", "wales", "northern_ireland")
NATION_NAMES = {
    "england": "England",
    "scotland": "Scotland",
    "wales": "Wales",
    "northern_ireland": "Northern Ireland",
}

_NATION = r"(England|Scotland|Wales|Northern Ireland)"
_NATION_LIST = (
    rf"{_NATION}(?:(?:,\s*|\s+or\s+|\s+and\s+){_NATION})?(?:(?:,\s*|\s+or\s+|\s+and\s+){_NATION})?"
)
# "If you live in Scotland", "if you're living in England or Wales", "For people in Wales",
# "In Northern Ireland," at the head of a clause; a heading that is only a nation's name.
_LIVES_IN = re.compile(
    rf"\b(?:if|when|where) (?:you|your family|you and your partner) (?:live|are living|'re living|"
    rf"reside|are resident|'re resident) in {_NATION_LIST}"
    rf"|\bfor (?:people|families|residents|anyone|students|employers|parents) (?:who live |living )?in {_NATION_LIST}"
    rf"|\byou(?:'ve| have)? (?:lived|live)(?: or worked)? in {_NATION_LIST}"
    rf"|\b(?:if|when) you(?:'re| are) (?:based |resident )?in {_NATION_LIST}"
    rf"|^(?:in|only in) {_NATION_LIST}\b,?"
    rf"|^{_NATION_LIST}(?: only)?$",
    re.IGNORECASE,
)
# A part for people from elsewhere ("If you're not from England: There's a different process")
# says the page is for that nation.
_NOT_FROM = re.compile(
    rf"\bif you(?:'re| are) not (?:from|living in|resident in) {_NATION_LIST}"
    rf"|\bif you (?:do not|don't) live in {_NATION_LIST}",
    re.IGNORECASE,
)
# A page whose subject people in a nation cannot get: "If you live in Scotland you cannot get
# a Sure Start Maternity Grant", "If you live in Scotland: You need to apply for Adult
# Disability Payment (ADP) instead of PIP".
_NOT_HERE = re.compile(
    r"\b(?:cannot|can't|can not|are not able to|will not be able to) (?:get|claim|apply for)\b"
    r"|\binstead of\b|\bapply for .{3,80} instead\b|\bis not available\b"
    r"|\b(?:is|are) different\b|\b(?:has|have) replaced\b"
    r"|\ba different (?:process|way|scheme|form|service)\b"
)
# A page saying where it holds: "These rates apply in England, Wales and Northern Ireland".
_APPLIES_IN = re.compile(
    rf"\b(?:these|this|the|they|it)\b[^.;]{{0,40}}?\b(?:appl(?:y|ies)|(?:is|are) for)\s+(?:only\s+)?"
    rf"(?:to (?:\w+ ){{0,3}})?in {_NATION_LIST}\b"
    rf"|\b(?:this|the) (?:guide|page|scheme|service|grant|payment) is (?:only )?for "
    rf"(?:people (?:who live )?in )?{_NATION_LIST}\b",
    re.IGNORECASE,
)
# A page for one or a few nations only says so in its title: "Free childcare (England)".
_TITLE_NATIONS = re.compile(rf"\((?:in )?{_NATION_LIST}(?: only)?\)|\bin {_NATION_LIST}$")


def _nations_in(match: re.Match) -> set[str]:
    return {_nation_code(name) for name in match.groups() if name}


def _nation_code(name: str) -> str:
    return name.lower().replace(" ", "_")


def nations_read(text: str, heading_path: list[str]) -> tuple[set[str], str]:
    """The nations a statement is narrowed to and where that was read ("" when it is not):
    the innermost heading that names them, unless the statement's leading clause names
    fewer of them; else that clause."""
    own = _LIVES_IN.search(_leading_clause(text))
    for heading in reversed(heading_path):
        found = _LIVES_IN.search(heading.strip())
        if found:
            # "If you live in England or Scotland" > "If you live in England and get free
            # childcare ...": the statement narrows its heading further.
            if own and _nations_in(own) < _nations_in(found):
                return _nations_in(own), "the statement"
            return _nations_in(found), f"heading “{heading.strip()}”"
    if own:
        return _nations_in(own), "the statement"
    return set(), ""


def _leading_clause(text: str) -> str:
    """The statement's first sentence, after any "Title > Heading:" prefix the extractor
    wrote: a nation named later in a longer unit narrows that sentence, not the unit."""
    body = statement_body(text)
    if ": " in body[:60] and body.split(": ", 1)[0].lower().startswith("if you"):
        return body.split(": ", 1)[0]  # "If you live in Scotland: You need to apply ..."
    return re.split(r"(?<=[.])\s", body, maxsplit=1)[0]  # a list's items are one sentence


def page_nations_read(
    page_title: str, page_lines: list[tuple[list[str], str]]
) -> tuple[set[str], str]:
    """The nations a page as a whole is for, when it says: its title ("(England)"), a line
    saying where it holds ("These rates apply in England, Wales and Northern Ireland"), or a
    line that people in a nation cannot get the page's subject, by its own words or under a
    heading naming the nation (then the other nations). `page_lines` are (heading path,
    line) in the page's order."""
    found = _TITLE_NATIONS.search(page_title.strip())
    if found:
        return _nations_in(found), "the page's title"
    for _, line in page_lines:
        found = _APPLIES_IN.search(line)
        if found:
            return _nations_in(found), f"the page: “{_leading_clause(line).strip()}”"
    for headings, line in page_lines:
        only = _NOT_FROM.search(headings[-1]) if headings else None
        if only and _NOT_HERE.search(line):
            return _nations_in(only), f"the page: “{headings[-1].strip()}: {line.strip()}”"
    for headings, line in page_lines:
        where, basis = nations_read(line, headings[-1:])
        if where and _NOT_HERE.search(line) and _names_page_subject(line, page_title):
            said = (
                f"{headings[-1].strip()}: {line.strip()}" if basis.startswith("heading") else line
            )
            return set(NATIONS) - where, f"the page: “{_leading_clause(said).strip()}”"
    return set(), ""


def page_lines(text: str, sections: list[dict]) -> list[tuple[list[str], str]]:
    """The page's lines, each with the heading path of the section holding it."""
    lines, offset = [], 0
    for line in text.split("\n"):
        if line.strip():
            section = section_at(sections, offset) or {}
            lines.append((list(section.get("heading_path") or []), line))
        offset += len(line) + 1
    return lines


def _names_page_subject(statement: str, page_title: str) -> bool:
    """The statement speaks of the page's subject: its title, the title without its brackets
    or its first two words ("Income Tax"), or the short name in its brackets ("PIP")."""
    lowered = statement.lower()
    short = re.findall(r"\(([^)]+)\)", page_title)
    plain = re.sub(r"\s*\([^)]*\)", "", page_title)
    names = [page_title, plain, " ".join(plain.split()[:2]), *short]
    return any(len(name.strip()) > 2 and name.strip().lower() in lowered for name in names)


def names_a_nation(text: str) -> bool:
    """The statement narrows something to a nation anywhere in it, not only at its head."""
    return bool(_LIVES_IN.search(text))


def nations_named(text: str) -> frozenset[str]:
    """Every nation the text names, however it names them ("different rules for Northern
    Ireland")."""
    return frozenset(_nation_code(name) for name in re.findall(rf"\b{_NATION}\b", text))


def says_not_here(text: str) -> bool:
    """The statement says people somewhere cannot get something, get something else instead
    or have it differently ("If you live in Scotland you cannot get a Sure Start Maternity
    Grant"): not a condition of where to live to get it."""
    return bool(_NOT_HERE.search(text))
