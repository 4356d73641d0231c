"""What a user says about themselves in a conversation ("I'm 45", "we live in Glasgow", "I'm
self-employed", "I get Universal Credit", "I earn £32,000 a year"), read into profile fields,
each with the words it came from. Only the user's own statements about themselves count: "my
son is 16" is a child's age, "if I earned £60,000" is a supposition, not a fact."""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.text.circumstances import BENEFIT_NAMES, DENIED

# The largest places of each devolved nation and of England, for "we live in Glasgow": a
# user names their town more often than their nation.
PLACES = {
    "scotland": (
        "scotland",
        "glasgow",
        "edinburgh",
        "aberdeen",
        "dundee",
        "inverness",
        "stirling",
        "perth",
        "paisley",
        "falkirk",
        "kilmarnock",
        "ayr",
        "livingston",
        "fife",
    ),
    "wales": (
        "wales",
        "cardiff",
        "swansea",
        "newport",
        "wrexham",
        "bangor",
        "barry",
        "merthyr",
        "bridgend",
        "llanelli",
        "aberystwyth",
        "caerphilly",
    ),
    "northern_ireland": (
        "northern ireland",
        "belfast",
        "derry",
        "londonderry",
        "lisburn",
        "newry",
        "armagh",
        "bangor county down",
        "coleraine",
        "omagh",
        "enniskillen",
    ),
    "england": (
        "england",
        "london",
        "manchester",
        "birmingham",
        "leeds",
        "liverpool",
        "bristol",
        "sheffield",
        "newcastle",
        "nottingham",
        "leicester",
        "southampton",
        "brighton",
        "plymouth",
        "york",
        "oxford",
        "cambridge",
        "norwich",
        "coventry",
        "hull",
    ),
}
_PLACE_TO_NATION = {place: nation for nation, places in PLACES.items() for place in places}
_PLACE = "|".join(sorted(map(re.escape, _PLACE_TO_NATION), key=len, reverse=True))

_SUPPOSING = re.compile(r"\b(?:if|when|once|would|were to|suppose|imagine)\b", re.I)
# "Can I get Universal Credit?": a question about it, not a statement of it.
_ASKING = re.compile(
    r"\b(?:can|could|will|would|should|do|does|did|may|might|shall|how|whether|to|want to)\s*$",
    re.IGNORECASE,
)


def _stated(sentence: str, match: re.Match) -> bool:
    before = sentence[: match.start()]
    return not _SUPPOSING.search(before) and not _ASKING.search(before)


_AGE = re.compile(
    r"\bI(?:'m| am)(?: now| nearly| almost| just)? (\d{2})\b(?! (?:weeks|months|hours|days|%|k\b))"
    r"|\bI(?:'m| am)? aged (\d{2})\b|\bI(?:'ve| have) just turned (\d{2})\b|\bI turned (\d{2})\b",
    re.IGNORECASE,
)
_LIVES = re.compile(
    rf"\b(?:I|we) (?:live|(?:'m|am|'re|are) living|(?:'ve|have) moved|moved) (?:in|to) (?:the )?({_PLACE})\b"
    rf"|\b(?:I'm|I am|we're|we are) (?:based )?in ({_PLACE})\b"
    rf"|\b(?:I'm|I am) from ({_PLACE})\b",
    re.IGNORECASE,
)
_MONEY = r"£\s?(\d[\d,]*(?:\.\d+)?)(k)?"
_INCOME = re.compile(
    rf"\b(?:I|we) (?:earn|make|get paid|take home)\s+(?:about |around |roughly |over |under )?{_MONEY}"
    rf"(?:\s*(?:a|per) (year|month|week))?"
    rf"|\b(?:I'm|I am) on (?:about |around )?{_MONEY}(?:\s*(?:a|per) (year|month|week))?"
    rf"|\bmy (?:salary|income|pay) is (?:about |around )?{_MONEY}(?:\s*(?:a|per) (year|month|week))?",
    re.IGNORECASE,
)
_EMPLOYMENT = (
    (
        "self_employed",
        r"\bI(?:'m| am)(?: now)? (?:self[- ]employed|a sole trader|freelance|a freelancer)\b|\bI work for myself\b",
    ),
    (
        "student",
        r"\bI(?:'m| am)(?: now)? (?:a (?:full-time |part-time )?student|at (?:uni|university|college))\b",
    ),
    ("retired", r"\bI(?:'m| am)(?: now)? retired\b|\bI(?:'ve| have) retired\b"),
    (
        "unemployed",
        r"\bI(?:'m| am)(?: now)? (?:unemployed|out of work|not working)\b|\bI(?:'ve| have) (?:just )?lost my job\b",
    ),
    (
        "employed",
        r"\bI(?:'m| am)(?: now)? (?:employed|working full[- ]time|working part[- ]time)\b|\bmy employer\b",
    ),
)
_PARTNER = re.compile(
    r"\bmy (?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|civil partner)\b"
    r"|\b(?:we're|we are) (?:married|a couple)\b",
    re.IGNORECASE,
)
_DIED = re.compile(r"^\W*(?:has |had )?(?:just |recently )?(?:died|passed away|passed)\b", re.I)
_SINGLE = re.compile(r"\bI(?:'m| am) (?:single|a single parent|divorced|widowed)\b", re.I)
_GETS = (
    r"\b(?:I|we)(?:'m|'re| am| are|'ve been| have been)?\s+"
    r"(?:get|getting|receive|receiving|claim|claiming|on)\b[^.?!]{0,40}?"
)


@dataclass(frozen=True)
class ProfileFact:
    field: str
    value: object
    words: str  # the words it was read from


def profile_facts(texts: list[str]) -> list[ProfileFact]:
    """The profile fields the user's own statements give, the latest statement of a field
    winning (texts oldest first)."""
    found: dict[str, ProfileFact] = {}
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
            for fact in _sentence_facts(sentence):
                found[fact.field] = fact
    return list(found.values())


def _sentence_facts(sentence: str) -> list[ProfileFact]:
    facts: list[ProfileFact] = []
    if (match := _AGE.search(sentence)) and _stated(sentence, match):
        age = int(next(g for g in match.groups() if g))
        if 16 <= age <= 110:
            facts.append(ProfileFact("age", age, match.group(0)))
    if (match := _LIVES.search(sentence)) and _stated(sentence, match):
        place = next(g for g in match.groups() if g).lower()
        facts.append(ProfileFact("nation", _PLACE_TO_NATION[place], match.group(0)))
    if (match := _INCOME.search(sentence)) and _stated(sentence, match):
        facts.append(ProfileFact("annual_income", _yearly(match), match.group(0)))
    for code, pattern in _EMPLOYMENT:
        if (match := re.search(pattern, sentence, re.IGNORECASE)) and _stated(sentence, match):
            facts.append(ProfileFact("employment", code, match.group(0)))
            break
    if match := _SINGLE.search(sentence):
        facts.append(ProfileFact("partner", False, match.group(0)))
    elif (match := _PARTNER.search(sentence)) and _stated(sentence, match):
        # "My husband died last month": a partner no longer, so the household is single.
        widowed = _DIED.search(sentence[match.end() :])
        words = sentence[match.start() : match.end() + (widowed.end() if widowed else 0)]
        facts.append(ProfileFact("partner", not widowed, words))
    benefits = [
        (code, match)
        for code, name in BENEFIT_NAMES.items()
        if (match := re.search(_GETS + rf"(?:{name})", sentence, re.IGNORECASE))
        and _stated(sentence, match)
    ]
    if benefits:
        facts.append(
            ProfileFact("benefits", [code for code, _ in benefits], benefits[0][1].group(0))
        )
    return facts


def _yearly(match: re.Match) -> float:
    groups = [g for g in match.groups() if g is not None]
    amount = float(groups[0].replace(",", ""))
    rest = groups[1:]
    if rest and rest[0].lower() == "k":
        amount *= 1000
        rest = rest[1:]
    factor = {"week": 52, "month": 12, "year": 1}.get(rest[0].lower() if rest else "year", 1)
    return amount * factor


# A child of the user's who has left education for work, or gone to university: at 16 to 19
# no longer a child for Child Benefit, Universal Credit or tax credits, which count a young
# person only while they stay in approved (non-advanced) education or training.
_CHILD = re.compile(
    r"\b(?:my|our) (?:(eldest|oldest|older|youngest|younger)\b(?: (?:son|daughter|child|one|boy|girl|kid))?"
    r"|(\d{2})[- ]year[- ]old(?: (?:son|daughter|boy|girl))?"
    r"|(?:son|daughter|teenager|boy|girl)\b)",
    re.IGNORECASE,
)
_LEFT_EDUCATION = re.compile(
    r"\b(?:(?:has |'s |have |had )?(?:just |recently |now )?(?:left|finished|quit|dropped out of) "
    r"(?:school|college|sixth form|education|(?:his|her|their) A[- ]levels)"
    r"|(?:now )?works? full[- ]time|(?:is |'s )?(?:now )?working full[- ]time"
    r"|(?:has |'s )?(?:just )?(?:got|started|found) (?:a |his first |her first )?(?:full[- ]time )?job"
    r"|started (?:work|working|an apprenticeship|university|uni)\b"
    r"|(?:is |'s )(?:now )?(?:at|studying at|in (?:his|her|their) \w+ year at) (?:university|uni))",
    re.IGNORECASE,
)
# "left school and started college", "started working part-time": still in approved
# education, or possibly so, and then still counted.
_MAYBE_LEARNING = re.compile(
    r"\b(?:school|college|sixth form|training|education|part[- ]time)\b", re.I
)
# "hasn't left school", "is still at school": not left.
_STILL = re.compile(rf"{DENIED.pattern}|\bstill\b", re.I)
_RANKS = {
    "eldest": "eldest",
    "oldest": "eldest",
    "older": "eldest",
    "youngest": "youngest",
    "younger": "youngest",
}


@dataclass(frozen=True)
class ChildLeftEducation:
    which: str | int  # "eldest", "youngest", an age, or "" (a son or daughter not singled out)
    words: str


def children_left_education(texts: list[str]) -> list[ChildLeftEducation]:
    """The user's children they say have left school or college for work, or gone to
    university ("Our eldest left school last summer and now works full time")."""
    found = []
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
            child = _CHILD.search(sentence)
            if child is None or not _stated(sentence, child):
                continue
            left = _LEFT_EDUCATION.search(sentence, child.end())
            if left is None or _STILL.search(sentence[child.end() : left.end()]):
                continue
            if _MAYBE_LEARNING.search(sentence[left.end() :]):
                continue
            rank, age = child.group(1), child.group(2)
            which = int(age) if age else _RANKS.get((rank or "").lower(), "")
            found.append(ChildLeftEducation(which, sentence[child.start() : left.end()]))
    return found


def dependent_children(
    ages: list[int], left: list[ChildLeftEducation]
) -> tuple[list[int], list[ChildLeftEducation]]:
    """The ages of the children still counted for family benefits, and which statements
    took a child out: only a child of 16 or over, found without doubt (the eldest, the
    youngest, the one of that age, or the only one of 16 or over)."""
    kept, used = list(ages), []
    for statement in left:
        grown = [age for age in kept if age >= 16]
        if statement.which == "eldest":
            age = max(kept, default=None)
        elif statement.which == "youngest":
            age = min(kept, default=None)
        elif isinstance(statement.which, int):
            age = statement.which if statement.which in kept else None
        else:
            age = grown[0] if len(grown) == 1 else None
        if age is not None and age >= 16:
            kept.remove(age)
            used.append(statement)
    return kept, used
