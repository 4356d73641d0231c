"""The heuristic analysis of a conversation turn: rules over the words and the knowledge
base's own vocabulary, no model. It decides

- nothing to look up: a turn made only of thanks, greetings or requests to rephrase, or
  one that names no UK rule and is small talk, a sum, the user's own plan or app, money in
  general or another country's rules (knowledge.providers.heuristic.lookup);
- a follow-up: a turn that continues ("and …", "what if …") or leans on the turns before
  ("how do I claim it?") without naming a topic of its own; it is rewritten to stand alone
  with the earlier turn's topic;
- a topic shift: a turn in a conversation that names its own topic;
- a life situation: a turn about a life event of the map that asks openly ("what help …"),
  expanded into the event's searches.
"""

from __future__ import annotations

import datetime as dt
import re

from knowledge.domain.questions import (
    MAX_SUB_QUERIES,
    ConversationTurn,
    LifeEventInfo,
    QueryAnalysis,
    QueryVocabulary,
)
from knowledge.providers.heuristic.lookup import no_lookup_reason
from knowledge.text.glossary import phrase_pattern, terms_found
from knowledge.text.question_dates import date_in_words

_WORD = re.compile(r"[a-z0-9£][a-z0-9'£,.-]*", re.I)
# Words of thanks, greetings and requests to say something again: nothing to look up.
_SMALL_TALK = frozenset(
    [
        "a",
        "again",
        "ah",
        "alright",
        "an",
        "awesome",
        "briefly",
        "brilliant",
        "by",
        "bye",
        "can",
        "cheers",
        "cool",
        "could",
        "didn't",
        "do",
        "does",
        "don't",
        "english",
        "explain",
        "fine",
        "for",
        "good",
        "goodbye",
        "got",
        "great",
        "hello",
        "helped",
        "helpful",
        "helps",
        "hey",
        "hi",
        "i",
        "i'm",
        "in",
        "is",
        "it",
        "it's",
        "just",
        "lovely",
        "make",
        "makes",
        "me",
        "mean",
        "meant",
        "more",
        "much",
        "nice",
        "no",
        "nope",
        "oh",
        "ok",
        "okay",
        "other",
        "perfect",
        "plain",
        "plainly",
        "please",
        "put",
        "repeat",
        "rephrase",
        "right",
        "say",
        "see",
        "sense",
        "short",
        "shorter",
        "simpler",
        "simply",
        "so",
        "sorry",
        "sure",
        "ta",
        "terms",
        "thank",
        "thanks",
        "that",
        "that's",
        "thats",
        "the",
        "this",
        "understand",
        "understood",
        "very",
        "was",
        "what",
        "will",
        "words",
        "would",
        "yeah",
        "yep",
        "yes",
        "you",
    ]
)
_CONTINUES = re.compile(
    r"^\W*(?:and|but|also|so|or|plus|then|what about|how about|what if|same for|is that|"
    r"does that|would that|will that|is it|does it|can it)\b",
    re.I,
)
# Words that point at something said before; "this tax year" and "the rule that applies"
# point nowhere.
_LEANS_BACK = re.compile(
    r"\b(?:it|its|them|they|those|these)\b|\bthat\b(?=\s*(?:[?.!,]|$))"
    r"|\bthis\b(?!\s+(?:tax\s+)?(?:year|week|month|time|april))",
    re.I,
)
# The reference a rewrite replaces: "it", "them", and "that"/"this" where they stand for a
# thing ("does that change", "all of that"), not "the rule that applies" or "this tax year".
_REPLACEABLE = re.compile(
    r"\b(?P<word>it|them)\b"
    r"|\b(?:does|do|did|is|was|will|would|can|of|after|before|about|claim|get|pay|on)\s+(?P<after_verb>that|this)\b"
    r"|\b(?P<at_end>that)\b(?=\s*(?:[?.!,]|$))",
    re.I,
)
_OPEN_ASK = re.compile(
    r"\bwhat\b[^?.]*\b(?:help|money|support|benefits?|chang\w*|options?|entitled|claim|get|"
    r"need to (?:do|know)|should i|happens|financial\w*|tax\w* might)\b"
    r"|\bany (?:help|support|benefits?)\b|\bam i entitled\b|\bwhere do i start\b"
    r"|\bhelp (?:is there|can i get|with)\b",
    re.I,
)

_NATIONS = {
    "england": "England",
    "scotland": "Scotland",
    "scottish": "Scotland",
    "wales": "Wales",
    "welsh": "Wales",
    "northern ireland": "Northern Ireland",
}
_NATION = re.compile(r"\b(" + "|".join(_NATIONS) + r")\b", re.I)
_AGE = re.compile(
    r"\b(?:i'?m|i am|aged?|turning|turn|reach(?:ing)?|be)\s+(\d{2})\b(?!\s*(?:%|hours|weeks|days|years? (?:ago|of)))"
    r"|\b(\d{2})[- ]years?[- ]old\b(?=\W*$|\W+(?:and|but|,|-|–|so|i\b))",
    re.I,
)
_INCOME = re.compile(
    r"\b(?:earn|earns|earning|income|salary|paid|make|makes|on)\b\D{0,25}?£\s?(\d[\d,]*(?:\.\d+)?)\s?(k\b)?",
    re.I,
)
_RELATIONSHIP = re.compile(
    r"\b(civil partner(?:ship)?|married|husband|wife|spouse|partner|single parent|single|"
    r"widow(?:ed|er)?|divorced|separated|couple)\b",
    re.I,
)
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_CHILDREN = re.compile(
    r"\b(\d|a|an|one|two|three|four|five|six)\s+(?:kids?|children|child|sons?|daughters?|babies|baby)\b"
    r"|\b(?:my|our)\s+(?:kids?|children|child|son|daughter|baby|\d+[- ]year[- ]old)\b",
    re.I,
)
_EMPLOYMENT = re.compile(
    r"\b(self[- ]employed|working for myself|unemployed|redundant|retired|apprentice|student|"
    r"part[- ]time|full[- ]time|employed|employee|working)\b",
    re.I,
)


def analyse(
    *, query: str, conversation: list[ConversationTurn], vocabulary: QueryVocabulary, today: dt.date
) -> QueryAnalysis:
    earlier_users = [turn.content for turn in conversation if turn.role == "user"]
    entities = _entities([*earlier_users, query], today=today)
    names_topic = _names_topic(query, vocabulary)
    turn_type = _turn_type(query, conversation, names_topic=names_topic)
    event = _life_event(query, vocabulary) if turn_type == "new" else None
    if turn_type != "clarification" and event is None:
        reason = no_lookup_reason(
            query,
            conversation,
            vocabulary,
            names_topic=lambda text: _names_topic(text, vocabulary),
            follow_up=turn_type == "follow_up",
        ) or ("small_talk" if _small_talk(query, vocabulary) else "")
        if reason:
            return QueryAnalysis("new", "topic", False, entities, query, "none", no_lookup=reason)
    standalone = query if turn_type == "new" else _stand_alone(query, conversation, vocabulary)
    if event is not None:
        return QueryAnalysis(
            turn_type,
            "life_situation",
            bool(conversation),
            entities,
            standalone,
            "broad",
            sub_queries=list(event.searches[:MAX_SUB_QUERIES]),
            life_event=event.slug,
        )
    topic_shift = turn_type == "new" and _leaves_earlier_topic(query, conversation, vocabulary)
    return QueryAnalysis(turn_type, "topic", topic_shift, entities, standalone, "specific")


def _leaves_earlier_topic(
    query: str, conversation: list[ConversationTurn], vocabulary: QueryVocabulary
) -> bool:
    """A new question in a conversation that does not name the earlier turns' topic."""
    if not conversation:
        return False
    earlier = _earlier_topic(conversation, vocabulary)
    if earlier is None:
        return True
    core = earlier.split(" (")[0].lower()  # "ISA (Individual Savings Account)" → "isa"
    return not _contains_phrase(query.lower(), core)


def _words(text: str) -> list[str]:
    return [word.lower().strip(".,'") for word in _WORD.findall(text)]


def _small_talk(query: str, vocabulary: QueryVocabulary) -> bool:
    words = _words(query)
    if not words or any(any(ch.isdigit() or ch == "£" for ch in word) for word in words):
        return False
    return all(word in _SMALL_TALK for word in words) and not _names_topic(query, vocabulary)


def _names_topic(text: str, vocabulary: QueryVocabulary) -> bool:
    lowered = text.lower()
    if terms_found(text, vocabulary.glossary):
        return True
    return any(_contains_phrase(lowered, name) for name in vocabulary.topic_names_in(lowered))


def _contains_phrase(lowered: str, phrase: str) -> bool:
    return _phrase_match(lowered, phrase) is not None


def _phrase_match(lowered: str, phrase: str) -> re.Match | None:
    return phrase_pattern(phrase, True).search(lowered)


def _turn_type(query: str, conversation: list[ConversationTurn], *, names_topic: bool) -> str:
    if not any(turn.role == "user" for turn in conversation):
        return "new"
    if _CONTINUES.search(query):
        return "follow_up"
    if names_topic:
        return "follow_up" if _LEANS_BACK.search(query) else "new"
    last = conversation[-1]
    if last.role == "assistant" and last.content.rstrip().endswith("?") and len(_words(query)) <= 6:
        return "clarification"
    return "follow_up"


def _stand_alone(
    query: str, conversation: list[ConversationTurn], vocabulary: QueryVocabulary
) -> str:
    """The turn rewritten to stand alone. A turn that continues the earlier question ("and
    for a Junior one?") keeps it beside; a word that leans back ("how do I claim it?") is
    replaced by the earlier topic's name, or the name is added."""
    earlier = next(turn.content for turn in reversed(conversation) if turn.role == "user")
    topic = _earlier_topic(conversation, vocabulary)
    if topic is None or _CONTINUES.search(query):
        return f"{query.rstrip()} ({earlier.strip()})"
    match = _REPLACEABLE.search(query)
    if match is None:
        return f"{query.rstrip()} ({topic})"
    group = next(name for name in ("word", "after_verb", "at_end") if match.group(name))
    start, end = match.span(group)
    return query[:start] + topic + query[end:]


def _earlier_topic(conversation: list[ConversationTurn], vocabulary: QueryVocabulary) -> str | None:
    """The most specific topic named in the latest user turn that names one, else in the
    latest assistant turn, as the turn wrote it: a glossary term with its meaning, or the
    longest topic name."""
    ordered = [t for t in reversed(conversation) if t.role == "user"] + [
        t for t in reversed(conversation) if t.role == "assistant"
    ]
    for turn in ordered:
        names = [
            f"{found.term} ({found.meanings[0].means})"
            for found in terms_found(turn.content, vocabulary.glossary)
        ]
        lowered = turn.content.lower()
        for name in vocabulary.topic_names_in(lowered):
            if match := _phrase_match(lowered, name):
                names.append(turn.content[match.start() : match.end()])
        if names:
            return max(names, key=len)
    return None


def _life_event(query: str, vocabulary: QueryVocabulary) -> LifeEventInfo | None:
    """The life event a question asks openly about: the one whose triggers it names most."""
    if not _OPEN_ASK.search(query):
        return None
    lowered = query.lower()
    best, best_hits = None, 0
    for event in vocabulary.life_events:
        hits = sum(_contains_phrase(lowered, trigger.lower()) for trigger in event.triggers)
        if hits > best_hits:
            best, best_hits = event, hits
    return best


def _entities(texts: list[str], *, today: dt.date) -> dict:
    """What the person said of themselves, the latest statement winning."""
    found: dict = {}
    for text in texts:
        found.update(_entities_in(text, today=today))
    return found


def _entities_in(text: str, *, today: dt.date) -> dict:
    found: dict = {}
    if match := _AGE.search(text):
        found["age"] = int(match.group(1) or match.group(2))
    if match := _INCOME.search(text):
        amount = float(match.group(1).replace(",", ""))
        found["income"] = amount * 1000 if match.group(2) else amount
    if match := _NATION.search(text):
        found["nation"] = _NATIONS[match.group(1).lower()]
    if match := _RELATIONSHIP.search(text):
        found["relationship"] = match.group(1).lower()
    if match := _CHILDREN.search(text):
        count = match.group(1)
        found["children"] = (
            int(count) if count and count.isdigit() else _COUNT_WORDS.get((count or "").lower(), 1)
        )
    if match := _EMPLOYMENT.search(text):
        found["employment"] = match.group(1).lower().replace(" ", "-")
    if mention := date_in_words(text, today=today):
        found["date_asked"] = mention.day.isoformat()
    return found
