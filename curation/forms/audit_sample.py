"""Input of the audit screen: drawing a sample, a judgement, and the fixes made from it."""

from __future__ import annotations

from django import forms

from curation.models import AuditJudgement
from curation.services.audit import MAX_NOTE
from curation.services.audit_sample import ANSWER_FIELDS, MAX_SAMPLE, QUESTIONS
from knowledge.models import AtomicUnit, Category

MAX_SEED = 2**62


class DrawForm(forms.Form):
    size = forms.IntegerField(label="N (units)", min_value=1, max_value=MAX_SAMPLE, initial=50)
    seed = forms.IntegerField(
        label="Seed",
        required=False,
        min_value=0,
        max_value=MAX_SEED,
        help_text="the same seed on the same knowledge base draws the same units; empty for a new one",
    )
    category = forms.ModelChoiceField(
        queryset=Category.objects.order_by("name"), required=False, empty_label="All categories"
    )
    provider = forms.ChoiceField(
        choices=[("", "All providers"), *AtomicUnit.Provider.choices], required=False
    )


class JudgementForm(forms.Form):
    """Six answers (yes, no or not applicable) and a note."""

    note = forms.CharField(required=False, max_length=MAX_NOTE, strip=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in QUESTIONS:
            self.fields[name] = forms.ChoiceField(
                label=label,
                choices=AuditJudgement.Answer.choices,
                error_messages={"required": f"{label}: answer it (yes, no or n/a)"},
            )

    def answers(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in ANSWER_FIELDS}


class MoveForm(forms.Form):
    concept = forms.IntegerField(min_value=1, label="Concept id (number)")


class TriageForm(forms.Form):
    reason = forms.CharField(max_length=MAX_NOTE, strip=True, label="What is wrong with it")
