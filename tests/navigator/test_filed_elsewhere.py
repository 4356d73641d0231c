"""A fact is found wherever it is filed: on the project's fixture pages the High Income Child
Benefit Charge's £60,000 is stated on the Child Benefit page and bound there, while the
taxonomy's concept for the charge's threshold holds no unit. Asked about on a day of the tax
year it is stated for, the search finds it under the concept it sits in."""

import pytest

from knowledge.models import Concept

AS_OF = "2024-12-01"  # in 2024 to 2025, the period the page states its figures for
# and today: the threshold is a limit set by policy, not a figure uprated each year, so
# it stays open and is served as current
DAYS = pytest.mark.parametrize("as_of", [AS_OF, None], ids=["2024-25", "today"])


def _first_units(body, count: int = 3) -> list[str]:
    units = [u for c in body["concepts"] for g in c["sources"] for u in g["units"]]
    return [u["text"] for u in units[:count]]


@pytest.fixture
def empty_threshold_concept(kb):
    concept = Concept.objects.get(taxonomy_id="child_benefit.hicbc_threshold")
    assert not concept.units.filter(deleted_at=None).exists()  # the case this file is about
    return concept


@DAYS
def test_the_income_the_charge_starts_at_is_answered_from_a_sibling_concept(
    empty_threshold_concept, api, as_of
):
    question = "At what income do you start paying the High Income Child Benefit Charge?"
    body = api.search(query=question, **({"as_of": as_of} if as_of else {})).json()

    assert (body["outcome"], body["reasons"]) == ("ok", [])
    assert any("£60,000" in text for text in _first_units(body))


@DAYS
def test_an_abbreviated_question_about_an_empty_topic_is_answered_from_a_sibling(
    empty_threshold_concept, api, as_of
):
    body = api.search(query="HICBC threshold", **({"as_of": as_of} if as_of else {})).json()

    assert (body["outcome"], body["reasons"]) == ("ok", [])
    assert any("£60,000" in text for text in _first_units(body))
