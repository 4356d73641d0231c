"""Input of the editors' screens: each POST's fields, parsed and checked before a service is
called. What a form refuses is said as "field: what is wrong" (`form_problem`), the way the
services say why they refuse a change, so the screen shows either the same way."""

from __future__ import annotations

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from curation.forms.fields import IdListField, whole_number
from curation.selectors.flags import FlagFilters
from curation.selectors.taxonomy import concept_by_taxonomy_id
from knowledge.models import Concept, QualityFlag

DEFAULT_PROPOSALS = "15"


def form_problem(form: forms.Form) -> str:
    """The first thing wrong with a bound, invalid form, in field order."""
    name, errors = next(iter(form.errors.items()))
    if name == NON_FIELD_ERRORS:
        return errors[0]
    return f"{form.fields[name].label or name}: {errors[0]}"


class ConceptField(forms.CharField):
    """A concept typed by its taxonomy id, or by an old id kept as its alias."""

    default_error_messages = {"required": "give the taxonomy id of a concept"}

    def clean(self, value) -> Concept:
        typed = super().clean(value)
        concept = concept_by_taxonomy_id(taxonomy_id=typed)
        if concept is None:
            raise ValidationError(f"no concept or old id {typed!r}", code="unknown")
        return concept


def note_field() -> forms.CharField:
    # Its length is the service's to refuse, so that limit is said in one place.
    return forms.CharField(required=False)


# --- changes to a concept ----------------------------------------------------------------------


class ConceptChangeForm(forms.Form):
    """What every change of a concept carries besides its own fields. The bootstrap page's
    proposal lists post these too (`panel` = "bootstrap") and get their category back, with
    the page addresses they sent."""

    note = note_field()
    panel = forms.CharField(required=False, strip=False)
    url_prefixes = forms.CharField(required=False, strip=False)

    @property
    def from_bootstrap_page(self) -> bool:
        return self.cleaned_data.get("panel") == "bootstrap"


class MoveUnitsForm(ConceptChangeForm):
    unit = IdListField(
        required=False,
        label="units",
        error_messages={"invalid": "choose units by their checkboxes"},
    )
    to = ConceptField()
    field_order = ["unit", "to"]


class RenameForm(ConceptChangeForm):
    # Named as the service names it when it refuses the id, so either refusal reads the same.
    new_id = forms.CharField(required=False, strip=False, label="taxonomy_id")


class MergeForm(ConceptChangeForm):
    into = ConceptField()
    field_order = ["into"]


class EditForm(ConceptChangeForm):
    name = forms.CharField(required=False, strip=False)  # the service says what is wrong
    description = forms.CharField(required=False, strip=False)


class YearlyFiguresForm(ConceptChangeForm):
    yearly_figures = forms.BooleanField(required=False, label="yearly figures")


class TaxonomySearchForm(forms.Form):
    q = forms.CharField(required=False, strip=False, max_length=200)


# --- quality flags -----------------------------------------------------------------------------


class FlagFilterForm(forms.Form):
    kind = forms.ChoiceField(required=False, choices=[("", "all"), *QualityFlag.Kind.choices])
    category = forms.CharField(required=False)

    def filters(self) -> FlagFilters:
        """The valid filters; a kind that is not one filters nothing."""
        self.is_valid()
        return FlagFilters(
            kind=self.cleaned_data.get("kind", ""), category=self.cleaned_data.get("category", "")
        )


class FlagResolveForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("accept", "accept"), ("dismiss", "dismiss")],
        error_messages={
            "required": "choose accept or dismiss",
            "invalid_choice": "choose accept or dismiss",
        },
    )
    flag = IdListField(
        label="flags",
        error_messages={"required": "tick at least one flag", "invalid": "tick at least one flag"},
    )
    note = note_field()

    @property
    def accept(self) -> bool:
        return self.cleaned_data["decision"] == "accept"


# --- triage ------------------------------------------------------------------------------------


class TriageAssignForm(forms.Form):
    concept = ConceptField()
    note = note_field()


class TriageDiscardForm(forms.Form):
    reason = forms.CharField(required=False, strip=False)  # the service says what is wrong


# --- bootstrap ---------------------------------------------------------------------------------


class BootstrapPagesForm(forms.Form):
    """Which pages a category is bootstrapped or re-extracted from: URL prefixes, one a line
    (none: the pages its last extraction placed in it)."""

    url_prefixes = forms.CharField(required=False, strip=False)

    def url_prefix_list(self) -> list[str] | None:
        lines = (self.cleaned_data.get("url_prefixes") or "").splitlines()
        return [line.strip() for line in lines if line.strip()] or None


class BootstrapProposeForm(BootstrapPagesForm):
    prefix = forms.CharField(required=False)
    limit = forms.CharField(required=False)

    def clean_prefix(self) -> str | None:
        return self.cleaned_data["prefix"] or None

    def clean_limit(self) -> int:
        limit = whole_number(self.cleaned_data["limit"] or DEFAULT_PROPOSALS)
        if limit is None:
            raise ValidationError("a whole number", code="invalid")
        return limit


# --- the audit trail ---------------------------------------------------------------------------


class RevertForm(forms.Form):
    next = forms.CharField(required=False, strip=False)  # where a plain form post goes back to
