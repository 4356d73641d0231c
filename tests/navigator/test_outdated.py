"""Past the newest period the knowledge base holds, a search says so: the `outdated`
outcome, over the project's fixture pages with the State Pension's two weekly rates given
the tax years they were stated for."""

import pytest

from knowledge.models import AtomicUnit
from tests.factories import tax_year

QUESTION = "What is the full new State Pension per week?"


@pytest.fixture
def yearly_rates(kb):
    """£203.85 for 2023 to 2024 and £221.20 for 2024 to 2025, nothing newer held."""
    older = AtomicUnit.objects.get(value_amount=203.85, unit_type="threshold")
    newer = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")
    saved = {u.pk: (u.valid_from, u.valid_to) for u in (older, newer)}
    for unit, year in ((older, 2023), (newer, 2024)):
        unit.valid_from, unit.valid_to = tax_year(year)
        unit.save(update_fields=["valid_from", "valid_to"])
    later = AtomicUnit.objects.filter(
        concept=newer.concept, deleted_at=None, valid_from__gt=newer.valid_to
    )
    assert not later.exists()  # else a newer period would be held
    yield older, newer
    for pk, (valid_from, valid_to) in saved.items():
        AtomicUnit.objects.filter(pk=pk).update(valid_from=valid_from, valid_to=valid_to)


def _units(body) -> dict[int, dict]:
    return {u["id"]: u for c in body["concepts"] for g in c["sources"] for u in g["units"]}


def test_after_the_newest_period_the_search_answers_outdated_with_the_unit_marked(
    yearly_rates, api
):
    older, newer = yearly_rates
    body = api.search(query=QUESTION, as_of="2026-12-01").json()
    assert body["outcome"] == "outdated" and body["reasons"] == ["newest_period_ended"]
    shown = _units(body)
    assert shown[newer.pk]["temporal_status"] == "outdated"
    assert shown[newer.pk]["valid_from"] == "2024-04-06"
    assert shown[newer.pk]["valid_to"] == "2025-04-05"
    assert shown[newer.pk]["ended_on"] == "2025-04-05"
    assert older.pk not in shown  # historical: a newer period is held
    said = "newest figure held: for 6 April 2024 to 5 April 2025; ended 5 April 2025"
    assert said in body["context"]


def test_inside_the_period_the_same_question_answers_ok_with_the_figure(yearly_rates, api):
    _, newer = yearly_rates
    body = api.search(query=QUESTION, as_of="2024-10-01").json()
    assert body["outcome"] == "ok"
    shown = _units(body)
    assert shown[newer.pk]["temporal_status"] == "current"
    assert shown[newer.pk]["ended_on"] is None


def test_the_older_figure_is_historical_when_history_is_asked_for(yearly_rates, api):
    older, newer = yearly_rates
    body = api.search(query=QUESTION, as_of="2026-12-01", include_historical=True).json()
    shown = _units(body)
    assert shown[older.pk]["temporal_status"] == "historical"
    assert shown[newer.pk]["temporal_status"] == "outdated"


def test_a_rule_without_a_year_is_unaffected(kb, api):
    """The same facts held open-ended (no year): answered `ok` on any later day."""
    newer = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")
    units = AtomicUnit.objects.filter(concept=newer.concept)
    saved = list(units.values_list("pk", "valid_to"))
    units.update(valid_to=None)
    try:
        body = api.search(query=QUESTION, as_of="2026-12-01").json()
        assert body["outcome"] == "ok"
        assert _units(body)[newer.pk]["temporal_status"] == "current"
    finally:
        for pk, valid_to in saved:
            AtomicUnit.objects.filter(pk=pk).update(valid_to=valid_to)
