"""Input of the review screens: the queue's filters and a decision's note."""

from __future__ import annotations

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from curation.forms.fields import IdListField
from curation.selectors.review import ReviewFilters

DECISIONS = ("approve", "reject", "flag")


class ReviewFilterForm(forms.Form):
    category = forms.CharField(required=False, max_length=64)
    concept = forms.CharField(
        required=False, max_length=128, label="Concept", help_text="part of a taxonomy id"
    )
    min_confidence = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Minimum confidence"
    )
    source = forms.CharField(required=False, max_length=500, label="Source URL contains")

    def filters(self) -> ReviewFilters:
        """The valid filters; a field with bad input filters nothing (its error is shown)."""
        self.is_valid()
        values = {name: self.cleaned_data.get(name) for name in self.fields}
        return ReviewFilters(
            category=(values["category"] or "").strip(),
            concept=(values["concept"] or "").strip(),
            min_confidence=values["min_confidence"],
            source=(values["source"] or "").strip(),
        )


class ServiceCheckedNote(forms.CharField):
    """A note whose length and characters (NUL included) are the service's to refuse
    (DecisionRefused), so a refused note is said one way, naming the note."""

    def __init__(self, **kwargs):
        super().__init__(required=False, strip=True, **kwargs)
        self.validators = []


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS])
    note = ServiceCheckedNote()


class BulkApproveForm(forms.Form):
    """The screen shows only the form-wide errors, so each field's is said there, by name."""

    ids = IdListField(
        label="pairs",
        error_messages={
            "required": "Select at least one pair to approve.",
            "invalid": "choose pairs by their checkboxes",
        },
    )
    note = forms.CharField(required=False, strip=True)

    def clean(self) -> dict:
        cleaned = super().clean()
        for name, errors in self.errors.items():
            if name == NON_FIELD_ERRORS:
                continue
            if errors.as_data()[0].code == "required":
                raise ValidationError(errors[0])
            raise ValidationError(f"{self.fields[name].label or name}: {errors[0]}")
        return cleaned
