"""Whom a statement is for besides age, income and nation: the reader's work, household,
benefits and student loan plan, read from gov.uk English (knowledge.text.applicability puts
them together with the rest)."""

from __future__ import annotations

import re

EMPLOYMENTS = ("employed", "self_employed", "unemployed", "retired", "student")
# Benefits a statement may be for and a user may say they get, by the names gov.uk and users
# give them (case aside), keyed by the profile's codes.
BENEFIT_NAMES = {
    "universal_credit": r"universal credit|\buc\b",
    "child_benefit": r"child benefit",
    "pension_credit": r"pension credit",
    "income_support": r"income support",
    "income_based_jsa": r"income-based (?:jobseeker'?s allowance|jsa)",
    "income_related_esa": r"income-related (?:employment and support allowance|esa)",
    "housing_benefit": r"housing benefit",
    "working_tax_credit": r"working tax credit",
    "child_tax_credit": r"child tax credit",
    "pip": r"personal independence payment|\bpip\b",
    "dla": r"disability living allowance|\bdla\b",
    "carers_allowance": r"carer'?s allowance",
    # Not "Constant Attendance Allowance", an industrial injuries benefit of its own.
    "attendance_allowance": r"(?<!constant )attendance allowance",
}
STUDENT_LOAN_PLANS = ("plan_1", "plan_2", "plan_4", "plan_5", "postgraduate")


def clauses(text: str, *, at_colons: bool = True) -> list[str]:
    """The statement's clauses; `at_colons` False keeps a table cell's head with its value
    ("Household income: £20,000 or less")."""
    ends = r"(?<=[.;:])\s+" if at_colons else r"(?<=[.;])\s+"
    return [part for part in re.split(rf"{ends}|\s+-\s+|\s+(?=\()|\n", text) if part.strip()]


_EMPLOYMENT = {
    "self_employed": re.compile(
        r"\b(?:if|when) you(?:'re| are| were) (?:\w+ )?self-employed\b|\bself-employed (?:people|person|workers)\b|^\s*self-employed\b",
        re.I,
    ),
    "employed": re.compile(
        r"\b(?:if|when) you(?:'re| are) (?:an )?employ(?:ed|ee)\b|\bemployees (?:must|can|get|pay|who)\b|^\s*(?:an )?employees?\b",
        re.I,
    ),
    "unemployed": re.compile(
        r"\b(?:if|when) you(?:'re| are) (?:not working|unemployed|out of work)\b", re.I
    ),
    "student": re.compile(
        r"(?:\b(?:if|when) you(?:'re| are)|^you(?:'re| are)|^are) (?:a (?:full-time |part-time )?(?:higher education )?student|studying|in (?:full-time |part-time )?(?:higher |further )?education)\b",
        re.I,
    ),
}
_SINGLE = re.compile(
    r"\b(?:if )?you(?:'re| are) single\b|^single\b|\bsingle (?:people|person|claimants?)\b", re.I
)
_COUPLE = re.compile(
    r"\b(?:if )?you (?:live with|have) (?:a|your) partner\b|\byou(?:'re| are) (?:in|part of) a couple\b|^(?:joint claimants|couples?)\b",
    re.I,
)
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "a": 1, "an": 1}
# How many children a statement is for: "for one child", "for 2 or more children", "if you
# have children", "Eldest or only child" (every family has one), "Additional children".
_CHILD_COUNT = re.compile(
    r"\bfor (one|1|a single|an only) child\b"
    r"|\b(?:for |have |with )?(two|three|2|3) or more (?:children|kids)\b"
    r"|\b(?:if )?you(?: or your partner)?(?: have| are responsible for|'re responsible for| look after) "
    r"(?:a child|children|any children|one or more children|a child or young person)\b"
    r"|\b(eldest or only|eldest|only) child\b"
    r"|\b(additional|any other|younger) children\b",
    re.IGNORECASE,
)


def children_read(text: str) -> tuple[int | None, int | None]:
    """The bounds on how many children the person has, when the statement is for a number;
    several readings are alternatives and widen each other."""
    readings: list[tuple[int, int | None]] = []
    for match in _CHILD_COUNT.finditer(text):
        one, several, more = match.group(1), match.group(2), match.group(4)
        if one:
            readings.append((1, 1))
        elif several:
            readings.append((_NUMBER_WORDS.get(several.lower()) or int(several), None))
        elif more:
            readings.append((2, None))
        else:  # "if you have children", "eldest or only child"
            readings.append((1, None))
    if not readings:
        return None, None
    highs = [high for _, high in readings]
    return min(low for low, _ in readings), None if None in highs else max(highs)


_BENEFIT_CONDITION = r"\b(?:if|when|while) you(?: or your partner)?(?:'re| are)? (?:get|gets|getting|receive|receiving|claim|claiming|on)\b[^.;]{0,60}?"
_BENEFIT_NAMED = {
    c: re.compile(rf"{_BENEFIT_CONDITION}(?:{n})", re.I) for c, n in BENEFIT_NAMES.items()
}
_BENEFIT_LIST = re.compile(_BENEFIT_CONDITION.replace("[^.;]", "[^.;:]") + ":", re.I)
_PLAN = re.compile(r"\b(Plan [1245]|Postgraduate Loan)\b", re.I)


_WORK_WORDS = {
    "self-employed": "self_employed",
    "unemployed": "unemployed",
    "not working": "unemployed",
    "out of work": "unemployed",
    "employed": "employed",
    "an employee": "employed",
    "retired": "retired",
    "a student": "student",
    "studying": "student",
}
_WORK = "|".join(sorted(map(re.escape, _WORK_WORDS), key=len, reverse=True))
# "if you're employed, self-employed or unemployed": each named kind of work.
_WORK_LIST = re.compile(
    rf"\b(?:if|when) you(?:'re| are| were) ((?:{_WORK})(?:(?:,? (?:or|and) (?:you(?:'re| are) )?|, )(?:{_WORK}))*)",
    re.I,
)


# "if you're not working or do not earn enough": work is one way in of several, the others
# on another ground, so the statement does not narrow by work ("employed or self-employed"
# is read as a list of kinds of work, below).
_OR_SOMETHING_ELSE = re.compile(rf",? or (?!(?:you(?:'re| are) )?(?:{_WORK})\b)", re.I)


def circumstances_read(text: str, heading_path: list[str]) -> dict:
    """Work, household, benefits and student loan plan the statement is for, from its words
    and its headings."""
    where = "\n".join([*heading_path, text])
    employment = {
        code
        for code, pattern in _EMPLOYMENT.items()
        if any(
            not _OR_SOMETHING_ELSE.match(part[match.end() :])
            for part in where.splitlines() + clauses(text)
            for match in pattern.finditer(part)
        )
    }
    for listed in _WORK_LIST.finditer(where):
        if _OR_SOMETHING_ELSE.match(where[listed.end() :]):
            continue
        employment |= {
            _WORK_WORDS[word.lower()] for word in re.findall(_WORK, listed.group(1), re.I)
        }
    partner, household = None, clauses(re.sub(r"\((?:if|when) [^)]*\)", "", where))
    if any(_SINGLE.search(part) for part in household):  # not "(if you have a partner)"
        partner = False
    if any(_COUPLE.search(part) for part in household):
        partner = None if partner is False else True  # both named: for either
    children_min, children_max = children_read(where)
    benefits = {code for code, named in _BENEFIT_NAMED.items() if named.search(where)}
    for lead in _BENEFIT_LIST.finditer(where):  # "if you're getting: A; B; C" is any of them
        listed = where[lead.end() :].split(".", 1)[0]
        benefits |= {c for c, name in BENEFIT_NAMES.items() if re.search(name, listed, re.I)}
    return {
        "employment": frozenset(employment),
        "partner": partner,
        "children_min": children_min,
        "children_max": children_max,
        "benefits": frozenset(benefits),
        "student_loan_plans": plans_named(where),
    }


# Words denying what follows them: "you're not getting a Postgraduate Loan" names a plan the
# reader does not have.
DENIED = re.compile(r"\b(?:not|no longer|never)\b|n't\b", re.I)


def plans_named(text: str) -> frozenset[str]:
    return frozenset(
        m.group(1).lower().replace(" loan", "").replace(" ", "_")
        for m in _PLAN.finditer(text)
        if not DENIED.search(re.split(r"[.;:\n]", text[: m.start()])[-1])
    )
