"""Experts correct units in place: every field, split, join, undo, the stale-form refusal,
permissions and every bad input (nothing changes when a correction is refused)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied

from curation.models import AuditEvent
from curation.services.audit import RevertRefused
from curation.services.taxonomy import units_move
from curation.services.unit_checks import CorrectionRefused
from curation.services.units import (
    unit_correct,
    unit_correction_undo,
    unit_join,
    unit_split,
    unit_version,
)
from knowledge.models import AtomicUnit, Concept
from tests.factories import ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db

PAGE = (
    "The charge is 1% of your Child Benefit for every £200 of income over £60,000. "
    "You can opt out of getting Child Benefit payments. "
    "From 6 April 2025 the allowance is £20,000 a year."
)


@pytest.fixture
def snapshot():
    return SnapshotFactory(text=PAGE)


@pytest.fixture
def unit(snapshot):
    return UnitFactory(
        snapshot=snapshot,
        evidence_quote="The charge is 1% of your Child Benefit",
        unit_type=AtomicUnit.Type.DEFINITION,
        provider=AtomicUnit.Provider.HEURISTIC,
        value_amount=Decimal("1"),
        value_unit="percent",
    )


def fresh(unit) -> AtomicUnit:
    return AtomicUnit.objects.get(pk=unit.pk)


def span(text: str) -> tuple[int, int]:
    start = PAGE.index(text)
    return start, start + len(text)


def test_each_field_is_corrected_in_one_audited_event_that_keeps_the_machine_version(unit, expert):
    start, end = span(
        "The charge is 1% of your Child Benefit for every £200 of income over £60,000."
    )
    target = ConceptFactory(category=unit.concept.category)
    event = unit_correct(
        unit_id=unit.pk,
        user=expert,
        note="the machine dropped the threshold",
        text="The charge is 1% of Child Benefit for every £200 of income over £60,000.",
        unit_type="threshold",
        value_amount="60000",
        value_unit="GBP",
        value_period="year",
        figures=[{"amount": "1", "unit": "percent", "role": "rate"}],
        valid_from="2024-04-06",
        valid_to=None,
        validity_basis="set by an expert",
        concept=target.taxonomy_id,
        evidence_start=start,
        evidence_end=end,
    )
    corrected = fresh(unit)
    assert corrected.text.startswith("The charge is 1% of Child Benefit")
    assert (corrected.unit_type, corrected.value_amount, corrected.value_unit) == (
        "threshold",
        Decimal("60000"),
        "GBP",
    )
    assert corrected.value_period == "year" and corrected.valid_from == dt.date(2024, 4, 6)
    assert corrected.figures[0]["role"] == "rate"
    assert corrected.concept == target and corrected.ordinal == 1
    assert corrected.evidence_quote == PAGE[start:end] and corrected.evidence_verified
    assert (corrected.corrected_by, corrected.review_status) == (expert, "approved")
    assert corrected.machine_version["text"] == "The charge is 1% of your Child Benefit"
    assert corrected.machine_version["unit_type"] == "definition"
    assert corrected.machine_version["concept"] == unit.concept.taxonomy_id
    assert event.action == "correction.unit" and event.note == "the machine dropped the threshold"
    assert event.before["unit"][str(unit.pk)]["unit_type"] == "definition"
    assert event.after["unit"][str(unit.pk)]["value_amount"] == "60000.0000"
    assert event.after["unit"][str(unit.pk)]["concept"] == target.pk


def test_undo_puts_back_exactly_what_the_correction_changed(unit, expert):
    event = unit_correct(unit_id=unit.pk, user=expert, unit_type="rule", valid_to="2026-04-05")
    unit_correction_undo(event_id=event.pk, user=expert)
    undone = fresh(unit)
    assert (undone.unit_type, undone.valid_to, undone.review_status) == (
        "definition",
        None,
        "pending",
    )
    assert undone.corrected_by is None and undone.machine_version == {}
    with pytest.raises(RevertRefused, match="reverted already"):
        unit_correction_undo(event_id=event.pk, user=expert)


def test_a_second_correction_keeps_the_first_machine_version(unit, expert):
    unit_correct(unit_id=unit.pk, user=expert, unit_type="rule")
    unit_correct(unit_id=unit.pk, user=expert, unit_type="threshold")
    assert fresh(unit).machine_version["unit_type"] == "definition"


def test_a_form_read_before_someone_elses_correction_is_refused_naming_them(
    unit, expert, django_user_model
):
    other = django_user_model.objects.create_user("expert2", password="pw-123456")
    other.groups.set(expert.groups.all())
    seen = unit_version(unit)
    unit_correct(unit_id=unit.pk, user=other, unit_type="rule", version=seen)
    with pytest.raises(CorrectionRefused, match=r"changed by expert2 at \d{4}-\d\d-\d\d"):
        unit_correct(unit_id=unit.pk, user=expert, unit_type="threshold", version=seen)
    assert fresh(unit).unit_type == "rule"
    unit_correct(
        unit_id=unit.pk, user=expert, unit_type="threshold", version=unit_version(fresh(unit))
    )
    assert fresh(unit).unit_type == "threshold"


BAD_INPUTS = [
    ({"valid_from": "2025-04-06", "valid_to": "2024-04-05"}, "valid_to: 2024-04-05 is before"),
    ({"valid_from": "6 April"}, "valid_from: '6 April' is not a date"),
    ({"evidence_start": 10, "evidence_end": 5000}, "not inside the page"),
    ({"evidence_start": "x", "evidence_end": 20}, "evidence_start: 'x' is not a character"),
    ({"value_amount": "25.60", "value_unit": ""}, "value_unit: an amount needs its unit"),
    ({"value_amount": "lots"}, "value_amount: 'lots' is not a number"),
    ({"value_amount": None}, "value_amount: a unit or period needs an amount"),
    ({"unit_type": "fact"}, "unit_type: 'fact' is not one of"),
    ({"value_period": "fortnight"}, "value_period: 'fortnight' is not one of"),
    ({"validity_basis": "guess"}, "validity_basis: 'guess' is not one of"),
    ({"text": "   "}, "text: the statement cannot be empty"),
    ({"figures": [{"amount": "1", "unit": "apples", "role": "x"}]}, "figures: figure 1"),
    ({"concept": "no.such_concept"}, "concept: no concept 'no.such_concept'"),
    ({"colour": "red"}, "colour: not a field"),
    ({"applicability": {"nation": ["scotland"]}}, "applicability: nation: not a key"),
    ({"applicability": {"nations": ["france"]}}, "applicability: nations: a list of england"),
    ({"applicability": {"age_min": "eighteen"}}, "applicability: age_min: a whole number"),
    ({"applicability": [1]}, "applicability: must be an object"),
    ({}, "nothing to change"),
]


@pytest.mark.parametrize(("changes", "message"), BAD_INPUTS)
def test_bad_input_names_the_field_and_changes_nothing(unit, expert, changes, message):
    before = fresh(unit)
    with pytest.raises(CorrectionRefused, match=message):
        unit_correct(unit_id=unit.pk, user=expert, **changes)
    after = fresh(unit)
    assert (after.text, after.valid_from, after.updated_at, after.review_status) == (
        before.text,
        before.valid_from,
        before.updated_at,
        "pending",
    )
    assert not AuditEvent.objects.filter(action__startswith="correction.").exists()


def test_a_retired_concept_is_refused(unit, expert):
    retired = ConceptFactory(status=Concept.Status.RETIRED)
    with pytest.raises(CorrectionRefused, match=f"concept: {retired.taxonomy_id} is retired"):
        unit_correct(unit_id=unit.pk, user=expert, concept=retired.taxonomy_id)
    assert fresh(unit).concept_id == unit.concept_id


def test_a_quote_is_trimmed_to_the_page_text_it_selects(unit, expert):
    start, end = span("You can opt out of getting Child Benefit payments.")
    unit_correct(unit_id=unit.pk, user=expert, evidence_start=start - 1, evidence_end=end + 1)
    corrected = fresh(unit)
    assert corrected.evidence_quote == "You can opt out of getting Child Benefit payments."
    assert (corrected.evidence_start, corrected.evidence_end) == (start, end)


def test_editors_api_users_and_strangers_may_not_change_facts(unit, editor, django_user_model):
    stranger = django_user_model.objects.create_user("someone", password="pw-123456")
    for user in (editor, stranger):
        with pytest.raises(PermissionDenied, match="domain experts"):
            unit_correct(unit_id=unit.pk, user=user, unit_type="rule")
    target = ConceptFactory()
    units_move(unit_ids=[unit.pk], concept_id=target.pk, user=editor)  # but editors move units
    assert fresh(unit).concept == target and fresh(unit).unit_type == "definition"


def test_split_makes_one_unit_per_part_each_with_its_own_quote(unit, expert):
    first = span("The charge is 1% of your Child Benefit for every £200 of income over £60,000.")
    second = span("You can opt out of getting Child Benefit payments.")
    event = unit_split(
        unit_id=unit.pk,
        user=expert,
        parts=[
            {
                "text": PAGE[first[0] : first[1]],
                "evidence_start": first[0],
                "evidence_end": first[1],
            },
            {
                "text": "You can opt out of Child Benefit payments.",
                "evidence_start": second[0],
                "evidence_end": second[1],
                "unit_type": "procedure",
                "value_amount": None,
                "value_unit": "",
            },
        ],
    )
    kept = fresh(unit)
    new = AtomicUnit.objects.exclude(pk=unit.pk).get()
    assert kept.evidence_quote == PAGE[first[0] : first[1]]
    assert (new.text, new.unit_type, new.value_amount) == (
        "You can opt out of Child Benefit payments.",
        "procedure",
        None,
    )
    assert new.evidence_quote == PAGE[second[0] : second[1]] and new.evidence_verified
    assert (new.concept, new.ordinal, new.provider) == (unit.concept, 2, "manual")
    assert (new.corrected_by, new.review_status) == (expert, "approved")
    unit_correction_undo(event_id=event.pk, user=expert)
    assert list(AtomicUnit.objects.values_list("pk", flat=True)) == [unit.pk]
    assert fresh(unit).evidence_quote == "The charge is 1% of your Child Benefit"


def test_a_split_with_a_bad_part_creates_nothing(unit, expert):
    with pytest.raises(CorrectionRefused, match="part 2: evidence_start"):
        unit_split(
            unit_id=unit.pk,
            user=expert,
            parts=[
                {"text": "a", "evidence_start": 0, "evidence_end": 10},
                {"text": "b", "evidence_start": 5, "evidence_end": 9999},
            ],
        )
    assert AtomicUnit.objects.count() == 1 and fresh(unit).review_status == "pending"


def test_join_makes_adjacent_units_of_one_statement_one(snapshot, expert):
    concept = ConceptFactory()
    rate = UnitFactory(
        snapshot=snapshot,
        concept=concept,
        evidence_quote="The charge is 1% of your Child Benefit",
        value_amount=Decimal("1"),
        value_unit="percent",
    )
    above = UnitFactory(
        snapshot=snapshot,
        concept=concept,
        evidence_quote="for every £200 of income over £60,000.",
        value_amount=Decimal("60000"),
        value_unit="GBP",
    )
    event = unit_join(unit_ids=[above.pk, rate.pk], user=expert)
    kept = fresh(rate)
    assert kept.evidence_quote == PAGE[: PAGE.index("£60,000.") + len("£60,000.")]
    assert [(f["amount"], f["unit"]) for f in kept.figures] == [("60000", "GBP")]
    assert fresh(above).deleted_at is not None and fresh(above).ordinal is None
    unit_correction_undo(event_id=event.pk, user=expert)
    assert fresh(above).deleted_at is None and fresh(rate).figures == []


def test_units_far_apart_or_on_different_pages_do_not_join(snapshot, expert):
    near = UnitFactory(snapshot=snapshot, evidence_quote="The charge is 1%")
    other_page = UnitFactory()
    with pytest.raises(CorrectionRefused, match="one version of one page"):
        unit_join(unit_ids=[near.pk, other_page.pk], user=expert)
    long_page = SnapshotFactory(text="First fact here." + " filler" * 100 + " Second fact here.")
    a = UnitFactory(snapshot=long_page, evidence_quote="First fact here.")
    b = UnitFactory(snapshot=long_page, evidence_quote="Second fact here.")
    with pytest.raises(CorrectionRefused, match="characters apart on the page"):
        unit_join(unit_ids=[a.pk, b.pk], user=expert)
    assert AtomicUnit.objects.alive().count() == 4


def test_a_concept_merge_keeps_the_correction_and_its_undo(unit, expert, editor):
    from curation.services.taxonomy import concept_merge

    event = unit_correct(unit_id=unit.pk, user=expert, unit_type="threshold", valid_to="2026-04-05")
    into = ConceptFactory(category=unit.concept.category)
    concept_merge(concept_id=unit.concept.pk, into_id=into.pk, user=editor)
    merged = fresh(unit)
    assert (merged.concept, merged.unit_type, merged.corrected_by) == (into, "threshold", expert)
    assert merged.machine_version["unit_type"] == "definition"
    unit_correction_undo(event_id=event.pk, user=expert)
    assert (fresh(unit).concept, fresh(unit).unit_type) == (into, "definition")


def test_an_amount_correction_is_undone(unit, expert):
    event = unit_correct(unit_id=unit.pk, user=expert, value_amount="2")
    assert fresh(unit).value_amount == Decimal("2")
    unit_correction_undo(event_id=event.pk, user=expert)
    assert fresh(unit).value_amount == Decimal("1")


def test_new_dates_are_the_experts_unless_they_name_another_basis(unit, expert):
    AtomicUnit.objects.filter(pk=unit.pk).update(validity_basis="capture of a yearly figure")
    unit_correct(
        unit_id=unit.pk,
        user=expert,
        valid_to="2024-12-31",
        validity_basis="capture of a yearly figure",  # as the form posts it, unchanged
    )
    assert fresh(unit).validity_basis == "set by an expert"
    unit_correct(unit_id=unit.pk, user=expert, valid_to="2025-04-05", validity_basis="stated year")
    assert fresh(unit).validity_basis == "stated year"


def test_a_split_is_undone_after_its_new_part_got_its_vector(unit, expert):
    first = span("The charge is 1% of your Child Benefit")
    second = span("You can opt out of getting Child Benefit payments.")
    event = unit_split(
        unit_id=unit.pk,
        user=expert,
        parts=[
            {"text": "a", "evidence_start": first[0], "evidence_end": first[1]},
            {"text": "b", "evidence_start": second[0], "evidence_end": second[1]},
        ],
    )
    # what the embedding task does once the split is committed
    AtomicUnit.objects.exclude(pk=unit.pk).update(embedding_model="m", embedding_text_hash="h")
    unit_correction_undo(event_id=event.pk, user=expert)
    assert list(AtomicUnit.objects.values_list("pk", flat=True)) == [unit.pk]


def test_a_join_read_before_another_change_is_refused(snapshot, expert):
    concept = ConceptFactory()
    a = UnitFactory(snapshot=snapshot, concept=concept, evidence_quote="The charge is 1%")
    b = UnitFactory(snapshot=snapshot, concept=concept, evidence_quote="of your Child Benefit")
    seen = {a.pk: unit_version(a), b.pk: unit_version(b)}
    unit_correct(unit_id=b.pk, user=expert, unit_type="threshold")
    with pytest.raises(CorrectionRefused, match=f"unit {b.pk} was changed by expert1"):
        unit_join(unit_ids=[a.pk, b.pk], user=expert, versions=seen)
    assert AtomicUnit.objects.alive().count() == 2


def test_a_change_by_the_machine_is_named_as_the_machines(unit, expert):
    from django.utils import timezone

    seen = unit_version(unit)
    AtomicUnit.objects.filter(pk=unit.pk).update(updated_at=timezone.now())  # a page check
    with pytest.raises(CorrectionRefused, match="by the machine"):
        unit_correct(unit_id=unit.pk, user=expert, unit_type="rule", version=seen)


def test_a_sign_off_is_not_undone_under_a_later_correction(unit, expert):
    from curation.services.signoff import SignoffRefused, unit_signoff, unit_signoff_revert

    signed = unit_signoff(unit_id=unit.pk, user=expert)
    unit_correct(unit_id=unit.pk, user=expert, unit_type="rule")
    with pytest.raises(SignoffRefused, match="undo the correction first"):
        unit_signoff_revert(event_id=signed.pk, user=expert)
    assert fresh(unit).review_status == "approved"


def test_an_editor_given_the_permission_may_correct(unit, editor):
    from django.contrib.auth.models import Permission

    editor.user_permissions.add(Permission.objects.get(codename="change_atomicunit"))
    editor = type(editor).objects.get(pk=editor.pk)  # permissions are cached per instance
    unit_correct(unit_id=unit.pk, user=editor, unit_type="rule")
    assert fresh(unit).corrected_by == editor


def test_who_a_unit_is_for_is_corrected_and_outlives_the_machines_next_reading(unit, expert):
    """The machine read nothing narrowing the unit; the expert says it is for people with
    an income over £60,000; reading the page again leaves the expert's value."""
    from knowledge.services.applicability import snapshot_applicability_read

    unit_correct(unit_id=unit.pk, user=expert, applicability={"income_min": 60000})
    corrected = fresh(unit)
    assert corrected.applicability == {"income_min": "60000"}
    assert corrected.machine_version["applicability"] == {}
    snapshot_applicability_read(corrected.snapshot)
    assert fresh(unit).applicability == {"income_min": "60000"}
    event = AuditEvent.objects.get(action="correction.unit")
    unit_correction_undo(event_id=event.pk, user=expert)
    assert fresh(unit).applicability == {}
