"""The query vocabulary read from the database: categories, glossary, life events and the
names topics go by. Compiled once per process and again when an editor changes any of them:
triggers add a row to `knowledge_vocabularychange` for every transaction that does, and a
process looks at that small table's count and latest id at most every
QUERY_VOCABULARY_CHECK_SECONDS, so a request costs no query and nothing that grows with the
knowledge base."""

from __future__ import annotations

import re
import threading
import time

from django.conf import settings
from django.db import connection

from knowledge.domain.extraction import CategoryInfo
from knowledge.domain.questions import LifeEventInfo, QueryVocabulary
from knowledge.models import Category, Concept, GlossaryTerm, LifeEvent
from knowledge.text.glossary import GlossaryEntry

# The count notices a transaction that commits after a later-numbered one; the latest id,
# one after the log was pruned to the same count; the sum, a further change made inside the
# reader's own transaction.
_VERSION_SQL = "SELECT count(*), max(id), sum(changes) FROM knowledge_vocabularychange"
_QUALIFIER = re.compile(r"\s*\([^)]*\)|\s*(?:,| for | – | - | and the | in ).*$")

_lock = threading.Lock()
_held: dict = {"version": None, "vocabulary": None, "checked_at": float("-inf")}


def query_vocabulary() -> QueryVocabulary:
    with _lock:
        if (
            _held["vocabulary"] is not None
            and time.monotonic() - _held["checked_at"] < settings.QUERY_VOCABULARY_CHECK_SECONDS
        ):
            return _held["vocabulary"]
        with connection.cursor() as cursor:
            cursor.execute(_VERSION_SQL)
            version = cursor.fetchone()
        if _held["version"] != version or _held["vocabulary"] is None:
            _held["vocabulary"], _held["version"] = _read(), version
        _held["checked_at"] = time.monotonic()
        return _held["vocabulary"]


def query_vocabulary_forget() -> None:
    """The next call reads the vocabulary afresh (a test's database is not the last one's)."""
    with _lock:
        _held.update(version=None, vocabulary=None, checked_at=float("-inf"))


def _read() -> QueryVocabulary:
    glossary = tuple(
        GlossaryEntry(
            term=term.term,
            means=term.means,
            match_case=term.match_case,
            concept_id=term.concept.taxonomy_id if term.concept_id else None,
            category_slug=term.category.slug if term.category_id else None,
        )
        for term in GlossaryTerm.objects.select_related("concept", "category")
    )
    events = tuple(
        LifeEventInfo(
            e.slug, e.name, tuple(e.triggers), tuple(e.searches), _suggest_for(e.suggest_for)
        )
        for e in LifeEvent.objects.all()
    )
    categories = tuple(
        CategoryInfo(c.slug, c.name, c.description) for c in Category.objects.order_by("order")
    )
    names = Concept.objects.exclude(status=Concept.Status.RETIRED).values_list("name", flat=True)
    return QueryVocabulary(
        categories=categories,
        glossary=glossary,
        life_events=events,
        topic_names=topic_names([*names, *(entry.means for entry in glossary)]),
    )


def taxonomy_file_vocabulary(path=None) -> QueryVocabulary:
    """The vocabulary the taxonomy file holds, read without the database (for benchmarks
    that run on a synthetic knowledge base)."""
    from knowledge.services.taxonomy import DEFAULT_TAXONOMY_FILE, taxonomy_parse

    path = path or DEFAULT_TAXONOMY_FILE
    spec = taxonomy_parse(text=path.read_text(encoding="utf-8"), origin=path.name)
    glossary = tuple(
        GlossaryEntry(g.term, g.means, g.match_case, g.concept, g.category) for g in spec.glossary
    )
    names = [concept.name for category in spec.categories for concept in category.concepts]
    return QueryVocabulary(
        categories=tuple(CategoryInfo(c.slug, c.name, c.description) for c in spec.categories),
        glossary=glossary,
        life_events=tuple(
            LifeEventInfo(
                e.slug,
                e.name,
                tuple(e.triggers),
                tuple(e.searches),
                _suggest_for([who.model_dump(exclude_none=True) for who in e.suggest_for]),
            )
            for e in spec.life_events
        ),
        topic_names=topic_names([*names, *(entry.means for entry in glossary)]),
    )


def _suggest_for(alternatives: list[dict]) -> tuple:
    """Each alternative as sorted (name, value) pairs, lists as tuples: frozen, comparable."""
    return tuple(
        tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in who.items()))
        for who in alternatives or []
    )


def topic_names(names) -> tuple[str, ...]:
    """The names topics go by, in lower case: each name without its qualifiers ("Childcare
    Grant for students" → "childcare grant"); single words are left out, being too general
    to say a question names its topic ("allowance", "pension")."""
    found = set()
    for name in names:
        core = _QUALIFIER.sub("", name).strip().lower()
        if len(core.split()) >= 2:
            found.add(core)
    return tuple(sorted(found, key=len, reverse=True))
