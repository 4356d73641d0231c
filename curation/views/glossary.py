"""The editors' glossary and life-event screen, beside the taxonomy: the terms questions are
expanded with before they are searched, and the life situations whose broad questions become
several specific searches; each added, edited or deleted here.

As on the taxonomy screens, views check that the user is an editor (the services check
again), parse the form, call one service and say what happened: an htmx request gets the
panel back with the outcome in it (a refused change keeps what was typed, in its form), a
plain form post is redirected back with the outcome as a message. Each change names its audit
entry; the screen lists the latest ones with their fields before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.taxonomy import form_problem
from curation.forms.vocabulary import (
    GlossaryTermForm,
    LifeEventAddForm,
    LifeEventForm,
    VocabularyDeleteForm,
)
from curation.models import AuditEvent
from curation.presenters.audit import event_views
from curation.selectors import vocabulary as vocabulary_selectors
from curation.selectors.changes import taxonomy_changes_recent
from curation.selectors.taxonomy import categories_ordered, concepts_for_picker
from curation.services import vocabulary as services
from curation.services.taxonomy import TaxonomyChangeRefused
from curation.views.access import Notice, editor_required
from curation.views.responses import render_page_or_partial, render_partial_or_redirect
from knowledge.models import GlossaryTerm, LifeEvent

GLOSSARY_TEMPLATE = "curation/taxonomy_glossary.html"
CHANGES_SHOWN = 20
TERM_FIELDS = ("term", "means", "match_case", "concept", "category")
EVENT_FIELDS = ("slug", "name", "triggers", "searches")


@dataclass(frozen=True)
class Posted:
    """A change the services refused, and what was typed for it, to show again in its form."""

    kind: str
    action: str
    record_id: int | None
    form: forms.Form

    def values(self, names: tuple[str, ...]) -> dict:
        return {name: self.form[name].value() for name in names if name in self.form.fields}


@dataclass(frozen=True)
class Row:
    """A listed term or life event, the values its edit form shows, and whether that form is
    open (a refused edit of it)."""

    record: GlossaryTerm | LifeEvent
    values: dict
    open: bool = False


@require_GET
@never_cache
@editor_required
def glossary(request: HttpRequest) -> HttpResponse:
    return render_page_or_partial(
        request,
        GLOSSARY_TEMPLATE,
        "glossary-panel",
        _panel(),
        title="Glossary & life events",
        page=lambda: {"tab": "glossary"},
    )


def _panel(notice: Notice | None = None, posted: Posted | None = None) -> dict:
    return {
        "terms": [_term_row(term, posted) for term in vocabulary_selectors.glossary_terms_listed()],
        "events": [
            _event_row(event, posted) for event in vocabulary_selectors.life_events_listed()
        ],
        "new_term": _new_values(posted, "terms", TERM_FIELDS),
        "new_event": _new_values(posted, "life-events", EVENT_FIELDS),
        "picker": concepts_for_picker(),
        "categories": categories_ordered(),
        "changes": event_views(
            taxonomy_changes_recent(limit=CHANGES_SHOWN, actions=services.VOCABULARY_ACTIONS)
        ),
        "changes_shown": CHANGES_SHOWN,
        "min_searches": services.MIN_SEARCHES,
        "max_searches": services.MAX_SEARCHES,
        "notice": notice,
    }


def _term_row(term: GlossaryTerm, posted: Posted | None) -> Row:
    if _refused_here(posted, "terms", term.pk):
        return Row(term, posted.values(TERM_FIELDS), open=True)
    values = {
        "term": term.term,
        "means": term.means,
        "match_case": term.match_case,
        "concept": term.concept.taxonomy_id if term.concept_id else "",
        "category": term.category.slug if term.category_id else "",
    }
    return Row(term, values)


def _event_row(event: LifeEvent, posted: Posted | None) -> Row:
    if _refused_here(posted, "life-events", event.pk):
        return Row(event, posted.values(EVENT_FIELDS), open=True)
    values = {
        "name": event.name,
        "triggers": "\n".join(event.triggers),
        "searches": "\n".join(event.searches),
    }
    return Row(event, values)


def _refused_here(posted: Posted | None, kind: str, record_id: int) -> bool:
    return posted is not None and (posted.kind, posted.action, posted.record_id) == (
        kind,
        "edit",
        record_id,
    )


def _new_values(posted: Posted | None, kind: str, names: tuple[str, ...]) -> dict:
    """What the add form shows: what was typed into it when it was refused, else nothing."""
    if posted is not None and (posted.kind, posted.action) == (kind, "add"):
        return posted.values(names) | {"open": True}
    return {}


# --- changes -----------------------------------------------------------------------------------

VocabularyChange = Callable[..., AuditEvent]  # (record id or None, form's arguments, user)


def _term_add(record_id: None, data: dict, user) -> AuditEvent:
    return services.glossary_term_create(user=user, **data)


def _term_edit(record_id: int, data: dict, user) -> AuditEvent:
    return services.glossary_term_update(term_id=record_id, user=user, **data)


def _term_delete(record_id: int, data: dict, user) -> AuditEvent:
    return services.glossary_term_delete(term_id=record_id, user=user, **data)


def _event_add(record_id: None, data: dict, user) -> AuditEvent:
    return services.life_event_create(user=user, **data)


def _event_edit(record_id: int, data: dict, user) -> AuditEvent:
    return services.life_event_update(life_event_id=record_id, user=user, **data)


def _event_delete(record_id: int, data: dict, user) -> AuditEvent:
    return services.life_event_delete(life_event_id=record_id, user=user, **data)


# One door per change: the form that parses it, the service call, and what a refusal says.
VOCABULARY_CHANGES: dict[tuple[str, str], tuple[type[forms.Form], VocabularyChange, str]] = {
    ("terms", "add"): (GlossaryTermForm, _term_add, "The term was not added"),
    ("terms", "edit"): (GlossaryTermForm, _term_edit, "The term was not changed"),
    ("terms", "delete"): (VocabularyDeleteForm, _term_delete, "The term was not deleted"),
    ("life-events", "add"): (LifeEventAddForm, _event_add, "The life event was not added"),
    ("life-events", "edit"): (LifeEventForm, _event_edit, "The life event was not changed"),
    ("life-events", "delete"): (
        VocabularyDeleteForm,
        _event_delete,
        "The life event was not deleted",
    ),
}


@require_POST
@editor_required
def vocabulary_change(
    request: HttpRequest, kind: str, action: str, record_id: int | None = None
) -> HttpResponse:
    if (kind, action) not in VOCABULARY_CHANGES or (record_id is None) != (action == "add"):
        raise Http404("No such change.")
    form_class, change, refused = VOCABULARY_CHANGES[kind, action]
    form = form_class(request.POST)
    posted = Posted(kind, action, record_id, form)
    if not form.is_valid():
        notice = Notice.refused(refused, form_problem(form))
    else:
        try:
            event = change(record_id, form.change(), request.user)
        except (GlossaryTerm.DoesNotExist, LifeEvent.DoesNotExist):
            raise Http404("No such term or life event.") from None
        except TaxonomyChangeRefused as exc:
            notice = Notice.refused(refused, exc)
        else:
            notice, posted = _done(event), None
    return _after_change(request, notice, posted)


def _done(event: AuditEvent) -> Notice:
    # Not Notice.done: its entry would offer a revert, which the taxonomy's revert refuses
    # for these records; the entry is named instead, and listed on this screen.
    return Notice("success", f"{event.summary} (audit entry #{event.pk})")


def _after_change(request: HttpRequest, notice: Notice, posted: Posted | None) -> HttpResponse:
    return render_partial_or_redirect(
        request,
        GLOSSARY_TEMPLATE,
        "glossary-panel",
        lambda: _panel(notice, posted),
        notice=notice,
        to="curation:taxonomy-glossary",
    )
