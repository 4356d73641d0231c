"""The unit editor's forms. They turn what the browser posts into the arguments of the
correction services (curation.services.units), which check the facts; a form only refuses
what it cannot read (a date that is not a date, figures that are not JSON) and a quote the
browser selected that is not the page's text at the offsets it sent."""

from __future__ import annotations

import json

from django import forms

from curation.services.units import unit_version
from knowledge.domain.extraction import ValidityBasis
from knowledge.models import AtomicUnit

BLANK = [("", "—")]
ISO_DATE = "%Y-%m-%d"  # what a browser's date input reads and sends


class UnitCorrectionForm(forms.Form):
    text = forms.CharField(label="Statement", widget=forms.Textarea(attrs={"rows": 3}))
    unit_type = forms.ChoiceField(label="Type", choices=AtomicUnit.Type.choices)
    value_amount = forms.CharField(label="Amount", required=False)
    value_unit = forms.ChoiceField(
        label="Unit", choices=BLANK + AtomicUnit.ValueUnit.choices, required=False
    )
    value_period = forms.ChoiceField(
        label="Period", choices=BLANK + AtomicUnit.Period.choices, required=False
    )
    figures = forms.CharField(
        label="Other figures (JSON)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text='e.g. [{"amount": "200", "unit": "GBP", "role": "per"}]',
    )
    applicability = forms.CharField(
        label="Who it is for (JSON)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text='{} is everyone; e.g. {"nations": ["scotland"]}, {"age_min": 18, "age_max": 39}, '
        '{"income_min": "60000"}, {"employment": ["self_employed"]}, {"benefits": ["universal_credit"]}, '
        '{"tax_bands": ["higher", "additional"]}, {"any_of": [{"partner": true}, {"age_max": 24}]}',
    )
    valid_from = forms.DateField(
        label="Valid from",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE),
    )
    valid_to = forms.DateField(
        label="Valid to",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE),
    )
    validity_basis = forms.ChoiceField(
        label="Dates' basis", choices=[(b.value, b.value) for b in ValidityBasis]
    )
    concept = forms.CharField(
        label="Concept",
        max_length=128,
        widget=forms.TextInput(attrs={"list": "concept-ids", "spellcheck": "false"}),
    )
    evidence_start = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    evidence_end = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    evidence_quote = forms.CharField(widget=forms.HiddenInput, required=False, strip=False)
    note = forms.CharField(label="Note (why)", required=False, max_length=2000)
    version = forms.CharField(widget=forms.HiddenInput)

    def __init__(self, *args, unit: AtomicUnit, **kwargs):
        self.unit = unit
        kwargs.setdefault("initial", self.initial_of(unit))
        super().__init__(*args, **kwargs)

    @staticmethod
    def initial_of(unit: AtomicUnit) -> dict:
        return {
            "text": unit.text,
            "unit_type": unit.unit_type,
            "value_amount": ""
            if unit.value_amount is None
            else f"{unit.value_amount.normalize():f}",
            "value_unit": unit.value_unit,
            "value_period": unit.value_period,
            "figures": json.dumps(unit.figures, ensure_ascii=False) if unit.figures else "",
            "applicability": json.dumps(unit.applicability or {}, ensure_ascii=False),
            "valid_from": unit.valid_from,
            "valid_to": unit.valid_to,
            "validity_basis": unit.validity_basis or ValidityBasis.OPEN.value,
            "concept": unit.concept.taxonomy_id,
            "evidence_start": unit.evidence_start,
            "evidence_end": unit.evidence_end,
            # The page's text at the offsets (what the browser selects), not the stored quote,
            # which differs when its evidence did not verify.
            "evidence_quote": unit.snapshot.text[unit.evidence_start : unit.evidence_end],
            "version": unit_version(unit),
        }

    def clean_figures(self) -> list:
        raw = self.cleaned_data["figures"].strip()
        if not raw:
            return []
        try:
            figures = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg} at character {exc.pos}") from None
        if not isinstance(figures, list):
            raise forms.ValidationError("a list of figures, [ … ]")
        return figures

    def clean_applicability(self) -> dict:
        raw = self.cleaned_data["applicability"].strip()
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg} at character {exc.pos}") from None

    def clean(self) -> dict:
        data = super().clean()
        start, end = data.get("evidence_start"), data.get("evidence_end")
        selected = data.get("evidence_quote")
        page = self.unit.snapshot.text
        if start is not None and end is not None and selected and page[start:end] != selected:
            raise forms.ValidationError(
                f"evidence: the selection is not the page's text at characters {start}–{end}; "
                "select the quote again"
            )
        return data

    def changes(self) -> dict:
        """The correction service's keyword arguments: every field the form holds (the
        service changes only those that differ from the unit)."""
        data = self.cleaned_data
        fields = [name for name in self.fields if name not in ("evidence_quote", "note", "version")]
        return {name: data[name] for name in fields}


class SplitForm(forms.Form):
    first_text = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
    first_start = forms.IntegerField(min_value=0)
    first_end = forms.IntegerField(min_value=1)
    second_text = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
    second_start = forms.IntegerField(min_value=0)
    second_end = forms.IntegerField(min_value=1)
    second_type = forms.ChoiceField(choices=AtomicUnit.Type.choices)
    note = forms.CharField(required=False, max_length=2000)
    version = forms.CharField(widget=forms.HiddenInput)

    def parts(self) -> list[dict]:
        data = self.cleaned_data
        return [
            {
                "text": data["first_text"],
                "evidence_start": data["first_start"],
                "evidence_end": data["first_end"],
            },
            {
                "text": data["second_text"],
                "evidence_start": data["second_start"],
                "evidence_end": data["second_end"],
                "unit_type": data["second_type"],
            },
        ]


class JoinForm(forms.Form):
    units = forms.TypedMultipleChoiceField(coerce=int, choices=())
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    note = forms.CharField(required=False, max_length=2000)

    def __init__(self, *args, candidates: list[AtomicUnit], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["units"].choices = [(unit.pk, str(unit.pk)) for unit in candidates]

    def versions(self) -> dict[int, str]:
        """Each unit's version as the screen showed it (`version_<id>`), checked again by
        the join so that it does not overwrite a change made since."""
        return {
            int(name.removeprefix("version_")): value
            for name, value in self.data.items()
            if name.startswith("version_") and name.removeprefix("version_").isdigit()
        }
