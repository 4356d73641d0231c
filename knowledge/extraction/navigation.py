"""Sentences that point somewhere instead of stating a rule: not knowledge units.

gov.uk pages interleave their rules with signposts — "Use a benefits calculator to …",
"Find out more about …", "Contact the office if you're not sure", "You can see the rates for
previous years". Such a sentence is told by what it does, from its shape: its main verb is
addressed to the reader (an imperative, or "you can …") and it sends them to look something up
(find out, check, see, work out, read), to a tool (a calculator, a checker), or to someone
to ask — with nothing that binds them (no "must", no amount, no method "by …ing").
"""

from __future__ import annotations

import re

# What may come before the main verb: a leading clause ("If you need help, ", "To check if
# you're better off, ") and the reader as subject ("You can also ").
_LEAD = (
    r"^(?:(?:if|when|before|after|once|to|for)\b[^,]{0,120},\s*)?"
    r"(?:(?:you|they)(?:'ll|’ll)? (?:can|could|may|might|should|need to|will need to)?(?: also| first| still)?"
    r"(?: be able to)? )?"
    r"(?:please |also |then )?"
)
# Verbs whose object is information to be found elsewhere.
_LOOK_UP = re.compile(
    _LEAD + r"(?:find out|work out|check|see|read|watch|visit|go to|look at|learn|search|download|"
    r"estimate|sign in|log in|get (?:help|advice|support|more information|an estimate))\b",
    re.I,
)
# "To find out whether …, call …": the sentence exists to send the reader on.
_LOOK_UP_PURPOSE = re.compile(
    r"^to (?:find out|check|see|work out|get (?:help|advice|an estimate))\b", re.I
)
# Verbs that send the reader to a person or office.
_ASK = re.compile(_LEAD + r"(?:contact|call|phone|ring|speak to|talk to|ask|write to)\b", re.I)
_ASK_PURPOSE = re.compile(
    r"\b(?:to (?:find out|check|see|ask|get (?:help|advice))|if you(?:'re| are) (?:not sure|unsure)|"
    r"if you (?:need|want) (?:help|advice|more information|to know)|if you have (?:any )?questions|"
    r"for (?:more )?(?:help|advice|information|details))\b",
    re.I,
)
_TOOL = re.compile(
    r"\b(?:use|using|try|check|with)\b[^.;]{0,60}\b(?:calculators?|checkers?|estimators?|tools?)\b",
    re.I,
)
_POINTER = re.compile(
    r"\b(?:find out more|for more (?:information|details|help)|more information (?:is|about)|"
    r"video relay service|relay uk|text relay|(?:there's|there is) a separate guide|"
    r"has (?:more )?(?:information|guidance|advice) "
    r"(?:about|on)|\b(?:may|might|could)(?: also)? be able to get other (?:financial )?"
    r"(?:help|support)\b|\b(?:may|might|could)(?: also)? be (?:able to get|eligible for) other "
    r"(?:benefits|(?:financial )?(?:help|support))(?: or (?:financial )?(?:help|support))?(?=\W*$)|"
    r"\bfind other ways\b|^there(?:'s|’s| is| are) (?:a )?(?:different|separate|other) (?:[\w-]+ ){0,2}"
    r"(?:rules|guidance|ways|process|processes)\b(?! (?:are|is|apply)\b))\b",
    re.I,
)
# A sentence that only frames what follows it ("The following table shows what you may be
# able to claim:"): the table's rows are the units.
_FRAME = re.compile(
    r"^(?:the (?:following )?(?:table|list)s? (?:below )?(?:shows?|sets? out|gives?)|"
    r"this (?:page|guide|section) (?:explains|tells|covers|is also available))\b",
    re.I,
)
# A sentence about a document's own aids ("The form has notes to help you fill it in.",
# "The guide explains how to claim"): it says where help is, not what applies.
_DOCUMENT_AID = re.compile(
    r"^(?:the|this|each|your) (?:[\w-]+ )?(?:form|guide|leaflet|booklet|letter|notes|page|"
    r"website|checklist)s? (?:has|have|includes?|comes? with|contains?|gives?|explains?|"
    r"tells? you|will tell you)\b[^.;]{0,60}\b(?:notes|guidance|help|how to|information|"
    r"instructions|what to do)\b",
    re.I,
)
# What makes a signposting sentence still a rule: an obligation, or the method itself.
_BINDING = re.compile(
    r"\b(?:must|have to|has to|need to tell|by (?:\w+ing)\b(?! (?:a|the) \w* ?calculator))", re.I
)

_WHAT_IS_LOOKED_UP = re.compile(r"\b(?:how much|how many|how long|whether|what|which)\b", re.I)


# A postal address's last line ("BX5 5BD You do not need to include a street name …"): where
# to write, not what applies.
_POSTCODE_FIRST = re.compile(r"^[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b")


def is_navigation(sentence: str, *, has_amount: bool = False) -> bool:
    """True when the sentence points to a tool, another page or someone to ask rather than
    stating a rule."""
    text = sentence.strip()
    if _POSTCODE_FIRST.match(text):
        return True
    if (_FRAME.match(text) or _DOCUMENT_AID.match(text)) and not has_amount:
        return True
    if _POINTER.search(text) or _TOOL.search(text):
        return not re.search(r"\bmust\b", text, re.I)
    # "how much tax you have to pay" is what the reader looks up, not what binds them
    if has_amount or _BINDING.search(_WHAT_IS_LOOKED_UP.split(text)[0]):
        return False
    if _LOOK_UP.match(text) or _LOOK_UP_PURPOSE.match(text):
        return True
    if _ASK.match(text) and len(text.split()) <= 6:
        return True  # "You can also contact Jobcentre Plus.": whom, with nothing to ask them
    return bool(_ASK.match(text) and _ASK_PURPOSE.search(text))
