"""Input of the review screens: the queue's filters and a decision's note."""

from __future__ import annotations

from django import forms

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


class DecisionForm(forms.Form):
    # The note's length is the service's to refuse (DecisionRefused), so it is said one way.
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS])
    note = forms.CharField(required=False, strip=True)


class BulkApproveForm(forms.Form):
    note = forms.CharField(required=False, strip=True)

    def clean(self) -> dict:
        cleaned = super().clean()
        ids = [int(value) for value in self.data.getlist("ids") if value.isdigit()]
        if not ids:
            raise forms.ValidationError("Select at least one pair to approve.")
        cleaned["ids"] = ids
        return cleaned
