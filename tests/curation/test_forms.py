"""The editors' forms: what each POST's fields become, and how a refusal is worded."""

import pytest
from django.http import QueryDict

from curation.forms.taxonomy import (
    BootstrapProposeForm,
    FlagFilterForm,
    FlagResolveForm,
    MoveUnitsForm,
    form_problem,
)
from tests.factories import ConceptFactory


def post(**fields) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, value in fields.items():
        data.setlist(name, value if isinstance(value, list) else [value])
    return data


@pytest.mark.django_db
def test_moving_units_names_the_first_wrong_field_in_form_order():
    ConceptFactory(taxonomy_id="isa.allowance")
    form = MoveUnitsForm(post(unit=["3", "x"], to="isa.nowhere"))
    assert not form.is_valid()
    assert form_problem(form) == "units: choose units by their checkboxes"

    form = MoveUnitsForm(post(unit=["3", " 4 ", ""], to=" isa.allowance ", note=" why "))
    assert form.is_valid()
    data = form.cleaned_data
    assert (data["unit"], data["to"].taxonomy_id, data["note"]) == ([3, 4], "isa.allowance", "why")


@pytest.mark.django_db
def test_a_target_concept_must_be_given_and_known():
    form = MoveUnitsForm(post(unit="1", to="isa.nowhere"))
    assert not form.is_valid()
    assert form_problem(form) == "to: no concept or old id 'isa.nowhere'"
    form = MoveUnitsForm(post(unit="1"))
    assert not form.is_valid()
    assert form_problem(form) == "to: give the taxonomy id of a concept"


def test_resolving_flags_needs_a_decision_then_ticked_flags():
    assert form_problem(_invalid(FlagResolveForm(post(flag="1")))) == (
        "decision: choose accept or dismiss"
    )
    assert form_problem(_invalid(FlagResolveForm(post(decision="accept")))) == (
        "flags: tick at least one flag"
    )
    form = FlagResolveForm(post(decision="dismiss", flag=["7", "8"]))
    assert form.is_valid() and not form.accept and form.cleaned_data["flag"] == [7, 8]


def test_a_flag_filter_that_is_not_a_kind_filters_nothing():
    filters = FlagFilterForm(post(kind="nonsense", category=" isa ")).filters()
    assert (filters.kind, filters.category, filters.query()) == ("", "isa", "category=isa")


def test_bootstrap_limit_defaults_and_must_be_a_whole_number():
    form = BootstrapProposeForm(post(url_prefixes="https://a\n\n https://b \n"))
    assert form.is_valid()
    assert (form.cleaned_data["limit"], form.cleaned_data["prefix"]) == (15, None)
    assert form.url_prefix_list() == ["https://a", "https://b"]
    assert form_problem(_invalid(BootstrapProposeForm(post(limit="ten")))) == (
        "limit: a whole number"
    )


def _invalid(form):
    assert not form.is_valid()
    return form
