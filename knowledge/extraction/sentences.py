"""What one sentence does, told from its grammar: its unit type, whether it leans on the
sentence before it for its subject, and whether it is a worked example.

A sentence is eligibility only when it says who qualifies: an entitlement ("you can get …",
"you'll qualify …") under a condition on the person ("if …", "as long as …"), or a statement
of who is or is not eligible. "If you're eligible, you'll get …" presupposes eligibility and
says what then happens, so it is a rule.
"""

from __future__ import annotations

import re

_DEFINITION = re.compile(
    r"^(?:an? |the |your )?['\"]?([A-Z][\w'’ -]{2,60}?)['\"]? (?:is|are|means) "
    r"(?:the|a|an|when|what|how|your|any|money|income|something|where|made up)\b",
)
_CALLED = re.compile(r"\b(this is|it's|is) (also )?(called|known as) ", re.I)
# "If you're eligible (for X)," / "if you qualify": a presupposed condition, not a criterion.
_PRESUPPOSED = re.compile(
    r"\b(?:if|once|when|as long as) (?:you(?:'re|’re| are)|they(?:'re| are))(?: still)? (?:eligible|entitled)"
    r"(?: (?:for|to) [^,.]{0,80}?)?(?=[,.]|$)|\bif (?:you|they) qualify\b|\bif eligible\b|"
    r"\bhelps? (?:you |them )?(?:to )?qualify\b",
    re.I,
)
_QUALIFIES = re.compile(
    r"\b(?:you|they)(?:'re|’re| are|'ll|’ll| will| would| may| might| could| must)?"
    r"(?: not| usually| only| also| still| normally| generally)? (?:be |become )?"
    r"(?:eligible|entitled)\b|"
    r"\bto (?:be eligible|qualify)\b|\byou(?:'ll| will| may| might| could)?(?: not| also| only)? qualify\b|"
    r"\bwho can (?:get|claim|apply)\b|\byou must be\b|"
    # "To get Guardian's Allowance all of the following must apply:"
    r"^\W*to (?:get|claim|receive)\b[^.;:]{0,60}\b(?:all|both|one|any|each) of the following "
    r"(?:must|need to|has to|have to) (?:apply|be true)\b",
    re.I,
)
_ENTITLEMENT = re.compile(
    r"\b(?:you|they|your (?:partner|child|children)) (?:can|could|may|might|will|'ll|’ll|"
    r"cannot|can't|can not|will not|won't|would)(?: only| also| still| usually| not)?"
    r"(?: be able to| continue to)? (?:get|claim|apply|receive|qualify|open|"
    r"make an? (?:new |joint )?claim)\b",
    re.I,
)
_CONDITION = re.compile(
    r"\b(?:if|unless|as long as|provided|only when|while you|when you|you must)\b", re.I
)
# Words about entitlement in general: a sentence with them states a rule about getting
# something even when it does not say who qualifies ("you'll get these payments automatically").
_ENTITLEMENT_WORDS = re.compile(
    r"\b(you can (get|claim|apply|have|open)|you could get|you('re| are) (eligible|entitled)|"
    r"to (be eligible|qualify|get|claim)|you may be able to|you must be|can have|who can|"
    r"eligible|entitled|you('ll| will) (only )?(get|qualify)|if you('re| are)|you('re| are) not eligible)\b",
    re.I,
)
# An adverb of frequency between the verb and its subject says how often, not whether: "PIP
# is usually paid every 4 weeks", "You do not usually pay tax when you sell your home".
_OFTEN = r"(?:usually |normally |generally |only |also )?"
_RULE = re.compile(
    r"\b(you (must|cannot|can't|can not|can|need to|have to|should|will not|won't|do not need|"
    r"do not have to|must not|may)|it('s| is) (not )?(possible|illegal)|is taxed|are taxed|"
    rf"does not|do not count|counts? towards|will be|(?:is|are) {_OFTEN}paid|"
    rf"you (?:do not |don't ){_OFTEN}pay|you {_OFTEN}pay (?:no|tax|income tax|national insurance)|"
    r"helps? (?:you|them))\b",
    re.I,
)

# A sentence whose subject is the sentence before it: it opens with a pronoun ("This means
# …", "It will not …"), refers back to "this money", "these payments", or to "it", or offers
# something "instead" of what came before.
_ANAPHOR = re.compile(
    r"^(?:this|these|those|that|it|its|they|such)\b|"
    r"^if (?:you are|you're|you do|you have|you did|this happens)\s?,|^(?:after that|otherwise|if so|if not)\b|"
    r"\b(?:this|these|those) (?!(?:tax )?year|page|guide|section|week|month|time|way\b)[a-z]+|"
    r"\bit\b(?! (?:is|was) (?:not )?(?:possible|illegal|important|likely)\b)|"
    r"\binstead\W*$|"  # "instead" of what the sentence before offers
    # "… after that.", "If you do not have these,", "one of the benefits above.", "pay the
    # difference": what they point to is in an earlier sentence
    r"\bafter that\b|\b(?:these|those)(?=\s*[.,;:!?)]|\s*$)|\babove(?=\s*[.,;:)]|\s*$)|"
    # "There's no Inheritance Tax to pay if you do this.": what "this" is, the sentence before
    r"\b(?:do|does|did|doing|done) (?:this|that)\b|\bthis(?=\s*[.,;:!?)]|\s*$)|"
    r"\bthe difference\b(?! between)",
    re.I,
)
WORKED_EXAMPLE = re.compile(r"^(?:for example\b|examples?\b:?(?=\s+[A-Z£]|$))", re.I)


def sentence_kind(sentence: str) -> str | None:
    """'definition', 'eligibility', 'rule' or None (the sentence states nothing to keep)."""
    if _DEFINITION.match(sentence) or _CALLED.search(sentence):
        return "definition"
    if is_eligibility(sentence):
        return "eligibility"
    if is_rule(sentence):
        return "rule"
    return None


# Verbs that look like entitlement but say how ("apply by post") or what befalls you ("get a
# sanction"): such a sentence is a rule or a step, however conditional.
_NOT_ENTITLEMENT = re.compile(
    r"\b(?:apply|claim)(?= (?:online|by (?:post|phone|email)|using|through|in person|again))|"
    r"\b(?:get|receive)(?= (?:a |an |your )?(?:sanction|penalty|fine|letter|notification|"
    r"reminder|decision|bill|message|text)\b)",
    re.I,
)


def is_eligibility(sentence: str) -> bool:
    """True when the sentence (or a list lead-in) says who qualifies."""
    text = _NOT_ENTITLEMENT.sub("do", _PRESUPPOSED.sub("", sentence))
    if _QUALIFIES.search(text):
        return True
    return bool(_ENTITLEMENT.search(text) and _CONDITION.search(text))


# A lead-in whose list is not with it ("You may also have tax-free allowances for:") or a
# bare condition with no main clause ("If you pay 40% Income Tax", "If you're getting less
# than £221.20 a week", "If your other income is £17,570 or more": sub-headings of
# plain-text pages): no fact on its own. A comma inside a figure ends no clause.
_BARE_CONDITION = re.compile(r"^(?:if|when|unless)\b(?:[^,;:]|(?<=\d),(?=\d))*$", re.I)
# A sentence announcing a list as its object ("you must report the following changes."): cut
# from the list, it says only that a list exists.
_ANNOUNCES_LIST = re.compile(r"\b(?:the following|as follows)(?: [\w-]+){0,3}\W*$", re.I)
# A sentence saying only what an amount turns on ("The amount you could get depends on when
# your children were born."): the page's next lines say how; alone it answers nothing.
_DEPENDS_ONLY = re.compile(
    r"^(?:the |your )?(?:amount|how much|the type of help|the help)\b[^.;:]{0,60}\bdepends on\b[^;:]*$",
    re.I,
)


def is_fragment(sentence: str, *, has_amount: bool = False) -> bool:
    """True when the sentence states nothing by itself: a lead-in cut from its list (one
    with a figure states that figure: "The full rate is £221.20 a week. It depends on:"), or a
    condition without the clause it conditions."""
    text = sentence.strip()
    if text.endswith(":") or _ANNOUNCES_LIST.search(text) or _DEPENDS_ONLY.match(text):
        return not has_amount
    return bool(_BARE_CONDITION.match(text)) and not text.endswith((".", "!", "?"))


# A list lead-in ending in a condition on the reader ("… if you:", "… if all of the following
# are true:", "You're not affected by the cap if you or your partner:"): its items are the
# conditions, and a figure among them is one condition's bound, not the list's value.
_CONDITION_LEAD = re.compile(
    r"\b(?:if|only if|as long as|provided(?: that)?|unless|while)\b[^.;:]{0,80}:\s*$", re.I
)


def states_conditions(lead_in: str) -> bool:
    """True when a list's lead-in makes its items conditions (of eligibility, of a rule)."""
    return bool(_CONDITION_LEAD.search(lead_in))


# A sentence that narrows what the list or sentence before it allows ("This is only allowed
# in exceptional circumstances.", "You may be prosecuted if you break any of these
# restrictions"): the statement before is not whole without it.
_QUALIFIES_BEFORE = re.compile(
    r"\b(?:only|not|never|unless|except|usually|if|until|must|may)\b", re.I
)
_MAX_QUALIFIER_WORDS = 25


def qualifies_before(sentence: str) -> bool:
    """True when a short sentence pointing back states a condition or limit on what it
    points to."""
    return (
        leans_back(sentence)
        and len(sentence.split()) <= _MAX_QUALIFIER_WORDS
        and bool(_QUALIFIES_BEFORE.search(sentence))
    )


def leans_back(sentence: str) -> bool:
    """True when the sentence names its subject only by pointing back to an earlier one."""
    return bool(_ANAPHOR.search(sentence))


def is_rule(sentence: str) -> bool:
    """True when the sentence binds or entitles the reader ("you must", "you can", "is taxed")."""
    return bool(_RULE.search(sentence) or _ENTITLEMENT_WORDS.search(sentence))
