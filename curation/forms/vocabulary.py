"""Input of the glossary and life-event screen. Words are checked by the services
(curation.services.vocabulary), which name the field they refuse; these forms only turn what
was typed into what the services take: a concept by its taxonomy id (or an old id), a
category by its slug, triggers and searches one a line."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from curation.forms.taxonomy import ConceptField, note_field
from knowledge.models import Category, Concept


class OptionalConceptField(ConceptField):
    """A concept typed by its taxonomy id or an old id; left blank, none."""

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, **kwargs)

    def clean(self, value) -> Concept | None:
        if not (value or "").strip():
            return None
        return super().clean(value)


class CategorySlugField(forms.CharField):
    """A category chosen by its slug; left blank, none."""

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, **kwargs)

    def clean(self, value) -> Category | None:
        slug = super().clean(value)
        if not slug:
            return None
        category = Category.objects.filter(slug=slug).first()
        if category is None:
            raise ValidationError(f"no category {slug!r}", code="unknown")
        return category


class LinesField(forms.CharField):
    """A textarea of one phrase a line; blank lines (a trailing newline, a gap) are dropped."""

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, strip=False, **kwargs)

    def clean(self, value) -> list[str]:
        text = super().clean(value) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


class GlossaryTermForm(forms.Form):
    term = forms.CharField(required=False, strip=False)  # the service says what is wrong
    means = forms.CharField(required=False, strip=False)
    match_case = forms.BooleanField(required=False)
    concept = OptionalConceptField()
    category = CategorySlugField()
    note = note_field()

    def change(self) -> dict:
        """The service's keyword arguments (the concept and category by primary key)."""
        data = self.cleaned_data
        return {
            "term": data["term"],
            "means": data["means"],
            "match_case": data["match_case"],
            "concept_id": data["concept"].pk if data["concept"] else None,
            "category_id": data["category"].pk if data["category"] else None,
            "note": data["note"],
        }


class LifeEventForm(forms.Form):
    name = forms.CharField(required=False, strip=False)
    triggers = LinesField()
    searches = LinesField()
    note = note_field()

    def change(self) -> dict:
        return dict(self.cleaned_data)


class LifeEventAddForm(LifeEventForm):
    slug = forms.CharField(required=False, strip=False)
    field_order = ["slug"]


class VocabularyDeleteForm(forms.Form):
    note = note_field()

    def change(self) -> dict:
        return dict(self.cleaned_data)
