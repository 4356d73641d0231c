"""The unit editor screen: who may open it, each change through it (htmx and plain posts),
the refusals it shows, and the machine's version beside the expert's."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from curation.services.units import unit_version
from knowledge.models import AtomicUnit
from tests.factories import SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PAGE = (
    "Child Benefit rates. Eldest or only child: £25.60 a week. "
    "These rates are for the 2024 to 2025 tax year. Additional children: £16.95 a week."
)


@pytest.fixture
def unit():
    return UnitFactory(
        snapshot=SnapshotFactory(text=PAGE),
        evidence_quote="Eldest or only child: £25.60 a week.",
        unit_type=AtomicUnit.Type.THRESHOLD,
        value_amount=Decimal("25.60"),
        value_unit="GBP",
        value_period="week",
        valid_from=dt.date(2014, 4, 6),
        provider=AtomicUnit.Provider.HEURISTIC,
    )


def edit_url(unit) -> str:
    return reverse("curation:unit-edit", args=[unit.pk])


def posted(unit, **changes) -> dict:
    start = PAGE.index(unit.evidence_quote)
    form = {
        "text": unit.text,
        "unit_type": unit.unit_type,
        "value_amount": "25.60",
        "value_unit": "GBP",
        "value_period": "week",
        "figures": "",
        "valid_from": "2014-04-06",
        "valid_to": "",
        "validity_basis": "open",
        "concept": unit.concept.taxonomy_id,
        "evidence_start": start,
        "evidence_end": start + len(unit.evidence_quote),
        "evidence_quote": unit.evidence_quote,
        "note": "",
        "version": unit_version(unit),
    }
    form.update(changes)
    return form


def test_an_expert_sees_the_unit_its_page_and_the_keys(client, expert, unit):
    client.force_login(expert)
    page = client.get(edit_url(unit)).content.decode()
    assert 'id="page-text"' in page and '<mark id="quote-mark">Eldest or only child' in page
    assert "Heuristic (rule-based, no LLM)" in page  # never shown as an LLM's
    assert "Ctrl</kbd>+<kbd>Enter</kbd>" in page and "unit_edit.js" in page


def test_editors_are_refused_and_anonymous_people_sent_to_sign_in(client, editor, unit):
    assert client.get(edit_url(unit)).status_code == 302
    client.force_login(editor)
    assert client.get(edit_url(unit)).status_code == 403
    response = client.post(edit_url(unit), posted(unit, unit_type="rule"))
    assert (
        response.status_code == 403 and AtomicUnit.objects.get(pk=unit.pk).unit_type == "threshold"
    )


def test_a_correction_through_htmx_answers_the_editor_with_its_diff_and_undo(client, expert, unit):
    client.force_login(expert)
    start = PAGE.index("Eldest")
    end = PAGE.index("tax year.") + len("tax year.")
    response = client.post(
        edit_url(unit),
        posted(
            unit,
            valid_from="2024-04-06",
            valid_to="2025-04-05",
            validity_basis="stated year",
            evidence_start=start,
            evidence_end=end,
            evidence_quote=PAGE[start:end],
        ),
        **HTMX,
    )
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert "Corrected by <strong>expert1</strong>" in page
    assert "The machine said" in page and "2014-04-06" in page and "2025-04-05" in page
    assert 'id="undo-correction"' in page
    corrected = AtomicUnit.objects.get(pk=unit.pk)
    assert corrected.valid_to == dt.date(2025, 4, 5) and corrected.evidence_quote == PAGE[start:end]


def test_bad_input_is_refused_naming_the_field(client, expert, unit):
    client.force_login(expert)
    cases = [
        (
            posted(unit, valid_from="2025-04-06", valid_to="2024-04-05"),
            "valid_to: 2024-04-05 is before",
        ),
        (posted(unit, valid_from="tomorrow"), "valid_from: Enter a valid date"),
        (posted(unit, value_unit=""), "value_unit: an amount needs its unit"),
        (posted(unit, figures="[{"), "figures: not JSON"),
        (posted(unit, concept="no.such"), "concept: no concept"),
        (posted(unit, evidence_quote="something else"), "evidence: the selection is not the page"),
    ]
    for form, message in cases:
        response = client.post(edit_url(unit), form, **HTMX)
        assert response.status_code == 422, message
        assert message in response.content.decode(), message
    assert AtomicUnit.objects.get(pk=unit.pk).corrected_at is None


def test_a_stale_form_is_refused_naming_who_changed_the_unit(client, expert, unit):
    client.force_login(expert)
    stale = posted(unit, unit_type="rule")
    client.post(edit_url(unit), posted(unit, valid_to="2025-04-05"), **HTMX)
    response = client.post(edit_url(unit), stale, **HTMX)
    assert response.status_code == 422
    assert "was changed by expert1 at" in response.content.decode()
    assert AtomicUnit.objects.get(pk=unit.pk).unit_type == "threshold"


def test_undo_split_and_join_through_the_screen(client, expert, unit):
    client.force_login(expert)
    client.post(edit_url(unit), posted(unit, valid_to="2025-04-05"), **HTMX)
    event_id = _last_event_id()
    response = client.post(reverse("curation:unit-correction-undo", args=[event_id]), **HTMX)
    assert response.status_code == 200 and AtomicUnit.objects.get(pk=unit.pk).valid_to is None
    second = PAGE.index("Additional children")
    split = {
        "first_text": unit.text,
        "first_start": unit.evidence_start,
        "first_end": unit.evidence_end,
        "second_text": "Additional children get £16.95 a week.",
        "second_start": second,
        "second_end": len(PAGE),
        "second_type": "threshold",
        "version": unit_version(AtomicUnit.objects.get(pk=unit.pk)),
    }
    response = client.post(reverse("curation:unit-split", args=[unit.pk]), split, **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]
    new = AtomicUnit.objects.exclude(pk=unit.pk).get()
    assert new.evidence_quote == "Additional children: £16.95 a week."
    response = client.post(
        reverse("curation:unit-join", args=[unit.pk]), {"units": [new.pk]}, **HTMX
    )
    assert response.status_code == 200, response.content.decode()[:500]
    assert AtomicUnit.objects.alive().count() == 1
    assert AtomicUnit.objects.get(pk=unit.pk).evidence_quote.endswith("£16.95 a week.")


def _last_event_id() -> int:
    from curation.models import AuditEvent

    return AuditEvent.objects.filter(action="correction.unit").latest("created_at").pk


def test_the_concept_audit_and_review_screens_link_experts_to_the_editor(
    client, expert, editor, unit
):
    from curation.services.units import unit_correct

    unit_correct(unit_id=unit.pk, user=expert, unit_type="rule")
    concept_url = reverse("curation:taxonomy-concept", args=[unit.concept.pk])
    client.force_login(editor)
    page = client.get(concept_url).content.decode()
    assert "corrected by expert1 on" in page and edit_url(unit) not in page
    expert.groups.add(*editor.groups.all())  # an expert who also edits the taxonomy
    client.force_login(expert)
    assert edit_url(unit) in client.get(concept_url).content.decode()


def test_an_api_token_cannot_correct_a_unit(client, unit):
    from navigator.services import api_token_create

    _, token = api_token_create(name="chat assistant")
    response = client.post(
        edit_url(unit), posted(unit, unit_type="rule"), HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert AtomicUnit.objects.get(pk=unit.pk).unit_type == "threshold"


def test_a_unit_whose_quote_did_not_verify_can_still_be_corrected(client, expert, unit):
    AtomicUnit.objects.filter(pk=unit.pk).update(
        evidence_quote="Eldest or only child: £25.60 a week (as the machine misread it)",
        evidence_verified=False,
    )
    unit.refresh_from_db()
    client.force_login(expert)
    page = client.get(edit_url(unit)).content.decode()
    assert 'name="evidence_quote" value="Eldest or only child: £25.60 a week."' in page
