"""Naming what a unit is about. A sentence on the Statutory Sick Pay page that says "Tax and
National Insurance will be deducted." is true only of SSP: stored alone it is a fact about
nothing. When a unit's text does not name its page's subject, the subject (and the heading
it sits under) is stated before it; the quote stays the page's own words."""

from __future__ import annotations

import re

from knowledge.text.amounts import find_amounts
from knowledge.text.words import content_words

# Title words that say what a page does rather than what it is about.
_GENERIC = frozenset(
    [
        "get",
        "getting",
        "help",
        "how",
        "your",
        "you",
        "youre",
        "new",
        "style",
        "the",
        "if",
        "paying",
        "pay",
        "with",
        "for",
        "to",
        "and",
        "when",
        "what",
        "rates",
        "rate",
        "changes",
        "information",
        "on",
        "about",
        "find",
        "out",
        "check",
        "eligible",
        "step",
        "by",
        "working",
        "works",
        "thresholds",
        "rules",
        "allowances",
        "of",
        "in",
        "a",
        "an",
        "taken",
        "off",
        "money",
        "claiming",
        "claim",
    ]
)
_LEAD = re.compile(r"^(?:get|how to claim|check you're eligible for|find out about)\s+", re.I)
_ACRONYM = re.compile(r"\(([A-Z]{2,6})\)")
# Part of a subject named often enough to count ("ISA" for "Individual Savings Accounts").
_SHARE_NAMED = 0.6


def page_subject(title: str) -> str:
    """What a page is about, from its title: 'How to claim New Style Jobseeker's Allowance
    (JSA): step by step' -> "New Style Jobseeker's Allowance (JSA)"."""
    head = _LEAD.sub("", title.split(":")[0].strip())
    return head[:1].upper() + head[1:] if head else title


def _significant(text: str) -> frozenset[str]:
    words = content_words(text.replace("'", "").replace("’", ""))  # "Parents'" is "parents"
    return frozenset(word for word in words if word not in _GENERIC and not word.isdigit())


def names_subject(text: str, subject: str) -> bool:
    """True when the text names the subject: its acronym, or most of its own words; a short
    name's words together ("Housing Benefit" is not named by "social housing rent … including
    benefits")."""
    for acronym in _ACRONYM.findall(subject):
        if re.search(rf"\b{acronym}s?\b", text):
            return True
    name = _ACRONYM.sub("", subject)
    if len(_significant(name)) > _SHORT_NAME:
        return _holds_most_words(text, name)
    return _holds_words_together(text, name)


# A name of up to this many significant words is named only by all of them side by side.
_SHORT_NAME = 2


def _holds_words_together(text: str, words_of: str) -> bool:
    """True when every significant word of `words_of` stands within a stretch of the text no
    longer than the name plus two words (by their first five letters, as `_holds_most_words`)."""
    wanted = _significant(words_of)
    tokens = re.findall(r"[a-z]+|\d+", text.lower().replace("'", "").replace("’", ""))
    span = len(wanted) + 2
    return not wanted or any(
        all(any(t.startswith(word[:5]) for t in tokens[start : start + span]) for word in wanted)
        for start in range(len(tokens))
    )


def _holds_most_words(text: str, words_of: str) -> bool:
    """True when the text has most of the significant words of `words_of` (by their first
    five letters: "claim" for "claiming"), or `words_of` has none."""
    wanted = _significant(words_of)
    if not wanted:
        return True
    present = _significant(text)
    found = sum(1 for word in wanted if any(have.startswith(word[:5]) for have in present))
    return found / len(wanted) >= _SHARE_NAMED


# "The cap will not affect you …" after "The benefit cap may affect …": a definite subject
# that shortens a name the text before gave in full. Words that qualify a noun rather than
# name its kind ("the total amount") do not make a name.
_DEFINITE_SUBJECT = re.compile(r"^the ([a-z]+)\b", re.I)
_NOT_NAMING = frozenset(
    re.findall(
        r"\w+",
        "the a an your their his her its this that these those any each every total full same "
        "whole other new first last next previous usual standard basic higher lower maximum "
        "minimum normal current of to for in on at by with from and or as is are be",
    )
)
# Further on in a sentence, a definite noun heading its phrase ("affected by the cap, …",
# "the charge is equal to …"), not one qualifying another ("the tax year").
_DEFINITE_HEAD = re.compile(
    r"(?<!^)\bthe ([a-z]+)(?=\s*[.,;:)]|\s+(?:will|is|are|was|does|do|can|may|might|would|"
    r"has|and|or|if|for|to|of|on|in|at)\b)",
    re.I,
)


def shortens_a_name(sentence: str, before: str) -> bool:
    """True when the sentence's subject ("The cap") is the last word of a longer name the
    text before it gives ("benefit cap"), which the sentence itself does not repeat."""
    match = _DEFINITE_SUBJECT.match(sentence.strip())
    if not match:
        return False
    noun = match.group(1).lower()
    names = re.findall(rf"\b([A-Za-z][\w'’-]*) {noun}\b", before, re.I)
    named = [word for word in names if word.lower() not in _NOT_NAMING]
    return bool(named) and not any(f"{word} {noun}".lower() in sentence.lower() for word in named)


# A heading that narrows who or where its section is for ("If you live in Wales", "Northern
# Ireland", "If you're self-employed"): a fact under it is not true without it.
_NATION = r"(?:England|Scotland|Wales|Northern Ireland)"
_CONDITION_HEADING = re.compile(
    rf"^(?:if|unless|in {_NATION}|{_NATION}(?: only)?$|(?:living|you live|people|students) "
    rf"(?:in|from) {_NATION})",
    re.I,
)


def condition_headings(heading: str, text: str) -> list[str]:
    """The headings of a path ("A > B") that state a condition the text does not: one whose
    figure the text repeats, or most of whose words it has, it states already ("If you or
    your partner earn over £60,000" over "… an adjusted net income over £60,000")."""
    return [
        part
        for part in heading.split(" > ")
        if _CONDITION_HEADING.match(part.strip()) and not _states(text, part)
    ]


def _states(text: str, condition: str) -> bool:
    figures = find_amounts(condition)
    if figures and all(figure.printed in text for figure in figures):
        return True
    return _holds_most_words(text, condition)


def shortened_name(sentence: str, before: str) -> str:
    """The full name a sentence gives only by its last word further on ("If you're affected
    by the cap" after "The benefit cap limits …": "benefit cap"), as the text before last
    wrote it; "" when it shortens none."""
    for match in _DEFINITE_HEAD.finditer(sentence.strip()):
        noun = match.group(1)
        found = re.findall(rf"\b((?:[A-Z][\w'’-]* )*[A-Za-z][\w'’-]* (?i:{noun}))\b", before)
        names = [name for name in found if name.split()[-2].lower() not in _NOT_NAMING]
        if names and names[-1].lower() not in sentence.lower():
            words = names[-1].split()
            while words[0].lower() in _NOT_NAMING:
                words.pop(0)
            return " ".join(words)
    return ""


def with_subject(text: str, subject: str, heading: str) -> str:
    """The text, stated after its page's subject and heading when it does not name them, and
    after a heading that states a condition of it ("If you live in Wales") that it does not."""
    if names_subject(text, subject):
        conditions = condition_headings(heading, text)
        return f"{' > '.join(conditions)}: {text}" if conditions else text
    if heading and heading not in text[: len(heading) + 80]:
        return f"{subject} > {heading}: {text}"
    return f"{subject} > {text}" if heading else f"{subject}: {text}"
