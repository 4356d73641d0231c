"""Editors' changes to the words around the taxonomy: glossary terms (abbreviations and
everyday names, expanded in questions before they are embedded) and life events (broad
situations and the specific searches a question about one expands into).

Each change is one transaction with one audit event holding every field it touched, in the
shape the audit trail reverts (curation.services.audit). Rows are written with `.save()` and
`.delete()`: the search's vocabulary cache (knowledge.query.vocabulary) notices a change by
the tables' row counts and latest `updated_at`, which a queryset `.update()` would not move.
"""

from __future__ import annotations

import re

from django.db.models import Value
from django.db.models.functions import Lower

from curation.models import AuditEvent
from curation.services.audit import audit_record, note_checked, states_of
from curation.services.locks import atomic_or_refused
from curation.services.taxonomy import TaxonomyChangeRefused, require_editor
from knowledge.models import Category, Concept, GlossaryTerm, LifeEvent
from knowledge.services.vocabulary import MAX_SEARCHES, MIN_SEARCHES

GLOSSARY_FIELDS = ("term", "means", "match_case", "concept", "category")
LIFE_EVENT_FIELDS = ("slug", "name", "triggers", "searches")
VOCABULARY_ACTIONS = ("glossary_term.", "life_event.")
MAX_TERM = GlossaryTerm._meta.get_field("term").max_length
MAX_MEANS = GlossaryTerm._meta.get_field("means").max_length
MAX_NAME = LifeEvent._meta.get_field("name").max_length
MAX_SLUG = LifeEvent._meta.get_field("slug").max_length
MAX_PHRASE = 200
MAX_TRIGGERS = 50
# As the taxonomy file's loader accepts them (knowledge.services.vocabulary.LifeEventSpec).
SLUG_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


# --- glossary ----------------------------------------------------------------------------------


def glossary_term_create(
    *,
    term: str,
    means: str,
    match_case: bool = False,
    concept_id: int | None = None,
    category_id: int | None = None,
    user,
    note: str = "",
) -> AuditEvent:
    """A new reading of a term (a term with several readings is ambiguous; each is searched)."""
    require_editor(user)
    term, means = _text(term, "term", MAX_TERM), _text(means, "means", MAX_MEANS)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        _reading_free(term, means)
        entry = GlossaryTerm(term=term, means=means, match_case=bool(match_case))
        entry.concept, entry.category = _links(concept_id, category_id)
        entry.save()
        return audit_record(
            actor=user,
            action="glossary_term.create",
            target=entry,
            note=note,
            summary=f"Added glossary term {entry}",
            before={"glossary_term": {str(entry.pk): None}},
            after={"glossary_term": states_of([entry], GLOSSARY_FIELDS)},
        )


def glossary_term_update(
    *,
    term_id: int,
    term: str,
    means: str,
    match_case: bool,
    concept_id: int | None,
    category_id: int | None,
    user,
    note: str = "",
) -> AuditEvent:
    """The reading's words, case rule and links, all given (none is kept by leaving it out);
    raises GlossaryTerm.DoesNotExist."""
    require_editor(user)
    term, means = _text(term, "term", MAX_TERM), _text(means, "means", MAX_MEANS)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        entry = GlossaryTerm.objects.select_for_update().get(pk=term_id)
        _reading_free(term, means, other_than=entry.pk)
        before = states_of([entry], GLOSSARY_FIELDS)
        was = str(entry)
        entry.term, entry.means, entry.match_case = term, means, bool(match_case)
        entry.concept, entry.category = _links(concept_id, category_id)
        if states_of([entry], GLOSSARY_FIELDS) == before:
            raise TaxonomyChangeRefused("term: nothing changed")
        entry.save()
        return audit_record(
            actor=user,
            action="glossary_term.edit",
            target=entry,
            note=note,
            summary=f"Edited glossary term {was}"
            + (f" (now {entry})" if str(entry) != was else ""),
            before={"glossary_term": before},
            after={"glossary_term": states_of([entry], GLOSSARY_FIELDS)},
        )


def glossary_term_delete(*, term_id: int, user, note: str = "") -> AuditEvent:
    """Questions stop being expanded with this reading; raises GlossaryTerm.DoesNotExist."""
    require_editor(user)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        entry = GlossaryTerm.objects.select_for_update().get(pk=term_id)
        before = states_of([entry], GLOSSARY_FIELDS)
        # Recorded first: after delete() the row has no primary key to name as the target.
        event = audit_record(
            actor=user,
            action="glossary_term.delete",
            target=entry,
            note=note,
            summary=f"Deleted glossary term {entry}",
            before={"glossary_term": before},
            after={"glossary_term": {str(entry.pk): None}},
        )
        entry.delete()
        return event


def _reading_free(term: str, means: str, *, other_than: int | None = None) -> None:
    """Refuse a reading the glossary holds already (the database's uniqueness ignores case)."""
    same = GlossaryTerm.objects.annotate(t=Lower("term"), m=Lower("means")).filter(
        t=Lower(Value(term)), m=Lower(Value(means))
    )
    held = same.exclude(pk=other_than).first()
    if held is not None:
        raise TaxonomyChangeRefused(f"means: the glossary has {held} already")


def _links(
    concept_id: int | None, category_id: int | None
) -> tuple[Concept | None, Category | None]:
    """The concept and category a term names, each optional; a retired concept is refused,
    since search no longer finds it."""
    concept = category = None
    if concept_id is not None:
        concept = Concept.objects.filter(pk=concept_id).first()
        if concept is None:
            raise TaxonomyChangeRefused(f"concept: no concept {concept_id}")
        if concept.status == Concept.Status.RETIRED:
            raise TaxonomyChangeRefused(f"concept: {concept.taxonomy_id} is retired")
    if category_id is not None:
        category = Category.objects.filter(pk=category_id).first()
        if category is None:
            raise TaxonomyChangeRefused(f"category: no category {category_id}")
    return concept, category


# --- life events -------------------------------------------------------------------------------


def life_event_create(
    *, slug: str, name: str, triggers: list[str], searches: list[str], user, note: str = ""
) -> AuditEvent:
    require_editor(user)
    slug = _slug(slug)
    name, triggers, searches = _life_event_words(name, triggers, searches)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        if LifeEvent.objects.filter(slug=slug).exists():
            raise TaxonomyChangeRefused(f"slug: another life event is {slug}")
        event = LifeEvent(slug=slug, name=name, triggers=triggers, searches=searches)
        event.save()
        return audit_record(
            actor=user,
            action="life_event.create",
            target=event,
            note=note,
            summary=f"Added life event {slug} ({name})",
            before={"life_event": {str(event.pk): None}},
            after={"life_event": states_of([event], LIFE_EVENT_FIELDS)},
        )


def life_event_update(
    *,
    life_event_id: int,
    name: str,
    triggers: list[str],
    searches: list[str],
    user,
    note: str = "",
) -> AuditEvent:
    """New name, triggers and searches. The slug stays: the taxonomy file and the query log
    name the event by it. Raises LifeEvent.DoesNotExist."""
    require_editor(user)
    name, triggers, searches = _life_event_words(name, triggers, searches)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        event = LifeEvent.objects.select_for_update().get(pk=life_event_id)
        before = states_of([event], LIFE_EVENT_FIELDS)
        event.name, event.triggers, event.searches = name, triggers, searches
        if states_of([event], LIFE_EVENT_FIELDS) == before:
            raise TaxonomyChangeRefused("name: nothing changed")
        event.save()
        return audit_record(
            actor=user,
            action="life_event.edit",
            target=event,
            note=note,
            summary=f"Edited life event {event.slug}",
            before={"life_event": before},
            after={"life_event": states_of([event], LIFE_EVENT_FIELDS)},
        )


def life_event_delete(*, life_event_id: int, user, note: str = "") -> AuditEvent:
    """Broad questions about it are no longer expanded; raises LifeEvent.DoesNotExist."""
    require_editor(user)
    note = note_checked(note, TaxonomyChangeRefused)
    with atomic_or_refused(TaxonomyChangeRefused):
        event = LifeEvent.objects.select_for_update().get(pk=life_event_id)
        audit = audit_record(
            actor=user,
            action="life_event.delete",
            target=event,
            note=note,
            summary=f"Deleted life event {event.slug} ({event.name})",
            before={"life_event": states_of([event], LIFE_EVENT_FIELDS)},
            after={"life_event": {str(event.pk): None}},
        )
        event.delete()
        return audit


def _slug(slug: str) -> str:
    slug = (slug or "").strip()
    if not slug or len(slug) > MAX_SLUG or not SLUG_PATTERN.match(slug):
        raise TaxonomyChangeRefused(
            f"slug: lower-case letters, digits and _ (up to {MAX_SLUG}), e.g. having_a_baby"
        )
    return slug


def _life_event_words(
    name: str, triggers: list[str], searches: list[str]
) -> tuple[str, list[str], list[str]]:
    name = _text(name, "name", MAX_NAME)
    triggers = _phrases(triggers, "triggers", what="trigger")
    searches = _phrases(searches, "searches", what="search")
    if not triggers or len(triggers) > MAX_TRIGGERS:
        raise TaxonomyChangeRefused(f"triggers: 1 to {MAX_TRIGGERS} phrases, one a line")
    if not MIN_SEARCHES <= len(searches) <= MAX_SEARCHES:
        raise TaxonomyChangeRefused(
            f"searches: {MIN_SEARCHES} to {MAX_SEARCHES} searches, one a line "
            f"({len(searches)} given)"
        )
    return name, triggers, searches


def _phrases(values: list[str], field: str, *, what: str) -> list[str]:
    """Each phrase with its blanks collapsed, as the taxonomy file's loader keeps them; a
    blank or repeated phrase is refused rather than dropped, so the count is what was meant."""
    phrases, seen = [], set()
    for position, value in enumerate(values or [], 1):
        phrase = " ".join(
            _text(value, field, MAX_PHRASE, blank=f"{what} {position} is blank").split()
        )
        if phrase.lower() in seen:
            raise TaxonomyChangeRefused(f"{field}: “{phrase}” is given twice")
        seen.add(phrase.lower())
        phrases.append(phrase)
    return phrases


def _text(value: str | None, field: str, limit: int, *, blank: str = "must not be blank") -> str:
    text = (value or "").strip()
    if not text:
        raise TaxonomyChangeRefused(f"{field}: {blank}")
    if len(text) > limit:
        raise TaxonomyChangeRefused(f"{field}: at most {limit} characters")
    if "\x00" in text:  # PostgreSQL cannot store it in text
        raise TaxonomyChangeRefused(f"{field}: must not contain a NUL character")
    return text
