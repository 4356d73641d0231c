"""Whether a turn needs the knowledge base at all (a heuristic, no model): the cheap first
check an assistant makes before calling it.

A turn needs a lookup unless it names no UK rule and is recognisably something else: words
that are not about money (greetings, small talk), a sum to work out, the user's own plan,
budget or app, money in general (investing, inflation, mortgage rates), or another country's
rules. A turn that names a UK rule needs the lookup whatever else it asks ("add £200 to my
budget, and can I pay into two cash ISAs?"); so does a follow-up in a conversation about one
("will I still get paid?"); and a turn about money that fits none of the other kinds, since
an assistant that skips a lookup it needed states a rule from memory.

A UK rule is named by the knowledge base's own vocabulary (its topic names and glossary,
read fuzzily so that "persnal alowance" and "self asesment" count) or by the words gov.uk
writes its rules in (tax, benefit, allowance, pension, eligible, deadline …)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from rapidfuzz import fuzz, process

from knowledge.domain.questions import ConversationTurn, QueryVocabulary

# Words gov.uk writes personal-finance rules in: a turn with one asks about a rule.
_RULE_WORDS = frozenset(
    [
        "allowance",
        "allowances",
        "benefit",
        "benefits",
        "bursary",
        "carer",
        "carer's",
        "claim",
        "claimed",
        "claiming",
        "claims",
        "council",
        "deadline",
        "deadlines",
        "disability",
        "dividend",
        "dividends",
        "dole",
        "dwp",
        "eligibility",
        "eligible",
        "entitled",
        "entitlement",
        "government",
        "grant",
        "grants",
        "hmrc",
        "inheritance",
        "isa",
        "isas",
        "jobseeker",
        "jobseeker's",
        "maternity",
        "p11d",
        "p45",
        "p60",
        "p800",
        "paternity",
        "payslip",
        "pension",
        "pensioner",
        "pensioners",
        "pensions",
        "qualify",
        "qualifies",
        "redundancy",
        "relief",
        "statutory",
        "tax",
        "taxable",
        "taxed",
        "taxes",
        "taxman",
        "threshold",
        "thresholds",
    ]
)
# Words about money at all: a turn with none of them (and no sum) is small talk.
_MONEY_WORDS = (
    frozenset(
        [
            "account",
            "accounts",
            "afford",
            "bank",
            "bill",
            "bills",
            "borrow",
            "budget",
            "budgets",
            "cash",
            "cost",
            "costs",
            "debt",
            "debts",
            "earn",
            "earned",
            "earning",
            "earnings",
            "economy",
            "fund",
            "funds",
            "gift",
            "gifts",
            "income",
            "inflation",
            "interest",
            "invest",
            "invested",
            "investing",
            "investment",
            "investments",
            "limit",
            "loan",
            "loans",
            "money",
            "mortgage",
            "owe",
            "owed",
            "paid",
            "pay",
            "paying",
            "payment",
            "payments",
            "pays",
            "pot",
            "pots",
            "price",
            "prices",
            "rate",
            "rates",
            "rent",
            "retire",
            "retirement",
            "salary",
            "save",
            "saved",
            "saving",
            "savings",
            "shares",
            "spend",
            "spending",
            "spent",
            "stock",
            "stocks",
            "bond",
            "bonds",
            "wage",
            "wages",
            "worth",
        ]
    )
    | _RULE_WORDS
)
# Circumstances gov.uk's rules are written for: a turn about one asks about money too.
_CIRCUMSTANCE_WORDS = frozenset(
    [
        "baby",
        "bereaved",
        "carer",
        "childcare",
        "disabled",
        "funeral",
        "pregnant",
        "prescriptions",
        "redundant",
        "sick",
        "tuition",
        "unemployed",
        "university",
        "widowed",
    ]
)
# Asking what help there is: gov.uk's schemes.
_ASKS_FOR_HELP = re.compile(
    r"\b(?:help|support)\s+(?:is there|is available|with|for|paying|towards)\b"
    r"|\b(?:what|any)\s+(?:help|support)\b",
    re.I,
)
# Money in general, not a rule: investing, markets, the economy.
_GENERAL_MONEY = re.compile(
    r"\b(?:invest\w*|stocks?|bonds?|shares|bitcoin|crypto\w*|inflation|economy|"
    r"mortgages?|base rate|(?:compound )?interest|markets?)\b",
    re.I,
)
# The user's own plan, budget or money in the app, and the app itself.
_OWN_PLAN = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+){0,2}?(?:budgets?|spending|goals?|pots?|plans?|transactions|"
    r"categories|fund|savings goals?|accounts?)\b"
    r"|\b(?:i|we)\s+(?:spent|spend|budgeted|budget)\b|\bspent on\b"
    r"|\b(?:password|notifications?|settings|log ?in|sign ?in|button|screen|menu|export|"
    r"csv|apps?|dark mode|link|unlink|connect|sync|remind me|reminder)\b"
    r"|\b(?:my|our) (?:net worth|balance)\b"
    r"|^\W*(?:please\s+)?(?:move|transfer|show(?: me)?|add|link|turn (?:on|off)|change|set|"
    r"delete|rename)\b",
    re.I,
)
# A sum to work out: figures joined by arithmetic.
_SUM = re.compile(
    r"\d[\d,.]*(?:\s*%\s*of\s*|\s*[+*/×÷]\s*|\s+[-x]\s+"
    r"|\s+(?:plus|minus|times|divided by|multiplied by)\s+)£?\d"
    r"|\badd up\b|\bhow much will i have\b|\bwhat(?:'s| is) \d",
    re.I,
)
_COUNTRIES = (
    "australia|austria|belgium|canada|china|cyprus|denmark|dubai|france|germany|greece|"
    "hong kong|india|italy|japan|malta|netherlands|new zealand|nigeria|norway|pakistan|poland|"
    "portugal|singapore|south africa|spain|sweden|switzerland|the uae|the us|the usa|"
    "the united states|america|(?<!northern )ireland|the republic of ireland"
)
# Another country's rules: a place abroad, or a scheme of one.
_ABROAD = re.compile(
    rf"\b(?:in|for|from|of)\s+(?:{_COUNTRIES})\b|\b(?:{_COUNTRIES})(?:'s|n)\b"
    r"|\b(?:401\s?\(?k\)?|403\s?\(?b\)?|roth ira|superannuation|kiwisaver|irs|sales tax|"
    r"federal (?:tax|income tax)|social security number|medicare|medicaid)\b",
    re.I,
)
# A UK rule about someone with a life abroad ("my partner works in Germany", "years I worked
# in Australia", "moving to Spain"), or one named as the UK's: not another country's rules.
_ABROAD_BY_CHOICE = re.compile(
    r"\b(?:i|i'm|i've|we|we're|we've|my|our|he|she|they|partner|wife|husband|son|daughter|"
    r"mum|dad|years?)\b[^.?!]{0,40}?\b(?:liv\w*|mov\w*|retir\w*|emigrat\w*|relocat\w*|"
    r"work\w*|stud\w*|born|flat|house|home|property|going)\b[^.?!]{0,20}?\b(?:in|to|abroad|from)\b",
    re.I,
)
_UK = re.compile(r"\b(?:uk|u\.k\.|british|britain|hmrc|dwp)\b", re.I)
# A turn asking the assistant to restate what it said: the answer is in the conversation.
_RESTATES = re.compile(
    r"\b(?:is that|was that|that's|thats) what you (?:just )?(?:said|say|meant|mean)\b"
    r"|\bdid you (?:just )?(?:say|mean)\b|\bdo you mean\b|\byou(?:'re| are) saying\b"
    r"|\bin other words\b",
    re.I,
)
# A request to say the answer again, more simply or shorter.
_REPHRASE = re.compile(
    r"\b(?:more simply|simpler|plain english|in plain|one sentence|in short|shorter|"
    r"say (?:that|it) again|explain (?:that|it|this) again"
    r"|(?:didn'?t|don'?t|do not|did not) (?:follow|understand|get) (?:that|it|this|you))\b",
    re.I,
)
_WORD = re.compile(r"[a-z0-9£'][a-z0-9'£]*", re.I)  # "money-wise" is "money" and "wise"
_FUZZY_CUTOFF = 85  # rapidfuzz ratio: one or two letters wrong in a word of six or more
_FUZZY_MIN_LETTERS = 6


def no_lookup_reason(
    query: str,
    conversation: list[ConversationTurn],
    vocabulary: QueryVocabulary,
    *,
    names_topic: Callable[[str], bool],
    follow_up: bool,
) -> str:
    """Why the turn needs no lookup ("" when it needs one): `small_talk`, `restates_answer`,
    `arithmetic`, `own_plan`, `general`, `other_country`. `names_topic` says whether a text
    names a topic of the knowledge base; `follow_up` whether the turn leans on earlier ones."""
    words = [word.lower().strip("'") for word in _WORD.findall(query)]
    named = names_topic(query)
    rule = named or any(word in _RULE_WORDS for word in words)
    if conversation and (_RESTATES.search(query) or (_REPHRASE.search(query) and not rule)):
        return "restates_answer"
    if _ABROAD.search(query) and not (
        rule and (_UK.search(query) or _ABROAD_BY_CHOICE.search(query))
    ):
        return "other_country"
    if rule or _ASKS_FOR_HELP.search(query):
        return ""
    if follow_up and any(names_topic(turn.content) for turn in conversation):
        return ""
    if _SUM.search(query):
        return "arithmetic"
    if _OWN_PLAN.search(query):
        return "own_plan"
    if _GENERAL_MONEY.search(query):
        return "general"
    if _names_rule_misspelt(words, vocabulary):
        return ""
    if not any(w in _MONEY_WORDS or w in _CIRCUMSTANCE_WORDS or "£" in w for w in words):
        return "small_talk"
    return ""


def _names_rule_misspelt(words: list[str], vocabulary: QueryVocabulary) -> bool:
    """A word or phrase of the turn within a letter or two of a rule word, a topic name or a
    glossary term ("benifits", "student lone"). Read after the other kinds, since everyday
    words lie that near rule words too ("divided", "dividend")."""
    phrases = _phrases(vocabulary)
    for size in (1, 2, 3):
        for start in range(len(words) - size + 1):
            candidate = " ".join(words[start : start + size])
            if len(candidate) < _FUZZY_MIN_LETTERS:
                continue
            if process.extractOne(
                candidate, phrases.get(size, ()), scorer=fuzz.ratio, score_cutoff=_FUZZY_CUTOFF
            ):
                return True
    return False


def _phrases(vocabulary: QueryVocabulary) -> dict[int, tuple[str, ...]]:
    terms = tuple(entry.term.lower() for entry in vocabulary.glossary if not entry.match_case)
    return _phrases_by_size(vocabulary.topic_names, terms)


@lru_cache(maxsize=2)
def _phrases_by_size(topic_names: tuple[str, ...], terms: tuple[str, ...]) -> dict:
    """The rule words, topic names and glossary terms by their number of words (built once
    per vocabulary)."""
    by_size: dict[int, list[str]] = {}
    for phrase in {*_RULE_WORDS, *topic_names, *terms}:
        by_size.setdefault(len(phrase.split()), []).append(phrase)
    return {size: tuple(sorted(phrases)) for size, phrases in by_size.items()}
