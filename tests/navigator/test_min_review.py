"""`min_review: "signed_off"` serves only the units an expert signed off or corrected, and says
`not_reviewed` when facts are held but none of them is reviewed; every unit says who corrected
it and when."""

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.dateparse import parse_datetime
from ninja.responses import NinjaJSONEncoder

from curation.services.signoff import unit_signoff
from knowledge.models import AtomicUnit
from knowledge.retrieval import SearchParams
from navigator.models import QueryLog
from navigator.schemas.search import SearchOut

PENSION = "What is the full new State Pension per week?"
ISA = "How much can I save in an ISA each tax year?"
CORRECTED_AT = dt.datetime(2025, 3, 1, 10, 30, tzinfo=dt.UTC)


def _units(body) -> dict[int, dict]:
    return {u["id"]: u for c in body["concepts"] for g in c["sources"] for u in g["units"]}


def _schema_round_trip(body) -> dict:
    validated = SearchOut.model_validate(body).model_dump()
    return json.loads(json.dumps(validated, cls=NinjaJSONEncoder))


@pytest.fixture
def pension_rate(kb):
    return AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")


def test_a_signed_off_search_serves_only_the_units_signed_off(kb, api, expert, pension_rate):
    everything = _units(api.search(query=PENSION, as_of="2024-10-01").json())
    assert pension_rate.pk in everything
    assert {u["review_status"] for u in everything.values()} == {"pending"}

    before = api.search(query=PENSION, as_of="2024-10-01", min_review="signed_off").json()
    assert before["outcome"] == "not_reviewed" and _units(before) == {}

    unit_signoff(unit_id=pension_rate.pk, user=expert)
    body = api.search(query=PENSION, as_of="2024-10-01", min_review="signed_off").json()
    shown = _units(body)
    assert list(shown) == [pension_rate.pk]
    assert shown[pension_rate.pk]["review_status"] == "approved"
    assert shown[pension_rate.pk]["signed_off_by"] == "expert1"
    assert body["outcome"] == "ok"
    assert "£221.20" in body["context"]
    assert _schema_round_trip(body) == body


def test_facts_held_but_none_reviewed_is_not_reviewed_and_serves_nothing_unreviewed(
    kb, api, expert, pension_rate
):
    """A unit of another topic is signed off: the ISA question still has no reviewed fact."""
    assert api.search(query=ISA, as_of="2024-06-01").json()["outcome"] == "ok"
    unit_signoff(unit_id=pension_rate.pk, user=expert)

    body = api.search(query=ISA, as_of="2024-06-01", min_review="signed_off").json()
    assert body["outcome"] == "not_reviewed" and body["reasons"] == ["only_unreviewed"]
    # a refusal serves nothing, not the signed-off unit of another topic weakly alike
    assert body["concepts"] == [] and _units(body) == {} and body["context"] == ""
    assert "unreviewed" in body["timings_ms"]
    assert _schema_round_trip(body) == body
    log = QueryLog.objects.latest("created_at")
    assert log.outcome == "not_reviewed" and log.params["min_review"] == "signed_off"


def test_nothing_held_for_the_question_is_no_match_not_not_reviewed(kb, api):
    question = "What is the VAT registration threshold for a limited company?"
    body = api.search(query=question, min_review="signed_off").json()
    assert body["outcome"] == "no_match" and body["reasons"] == ["out_of_scope"]
    assert _units(body) == {}


def test_a_date_with_no_rule_in_force_stays_no_match(kb, api):
    body = api.search(
        query="How much is the full new State Pension a week?",
        as_of="2012-06-01",
        min_review="signed_off",
    ).json()
    assert body["outcome"] == "no_match" and body["reasons"] == ["no_rule_in_force_on_date"]


@pytest.mark.parametrize("mode", ["units", "both", "concept"])
def test_the_top_up_to_min_results_counts_reviewed_units(kb, api, expert, mode):
    """Below-quality concepts fill the minimum from those holding a reviewed unit, not from
    the nearer concepts that hold none, whichever similarity scores them."""
    question = "Child Benefit weekly rate for the eldest child"
    search = {"query": question, "k": 50, "include_historical": True, "mode": mode}
    nearest = api.search(**search, quality=0.99, min_results=50).json()["concepts"]
    later = [c for c in nearest[3:] if c["sources"]][:3]
    assert len(later) == 3
    signed = set()
    for concept in later:
        unit_id = concept["sources"][0]["units"][0]["id"]
        unit_signoff(unit_id=unit_id, user=expert)
        signed.add(unit_id)

    body = api.search(**search, quality=0.99, min_results=3, min_review="signed_off").json()
    assert len(body["concepts"]) == 3
    assert {c["taxonomy_id"] for c in body["concepts"]} == {c["taxonomy_id"] for c in later}
    assert all(c["below_quality"] and c["sources"] for c in body["concepts"])
    assert set(_units(body)) == signed


def test_min_review_defaults_to_none_and_is_logged(kb, api):
    body = api.search(query=ISA, as_of="2024-06-01").json()
    assert body["outcome"] == "ok" and _units(body)
    assert QueryLog.objects.latest("created_at").params["min_review"] == "none"


@pytest.mark.parametrize("value", ["approved", "", None, True, ["signed_off"]])
def test_a_bad_min_review_is_refused_naming_the_field(kb, api, value):
    response = api.search(query=ISA, min_review=value)
    assert response.status_code == 422
    body = response.json()
    assert body["outcome"] == "invalid" and body["detail"].startswith("min_review")
    assert [f["field"] for f in body["fields"]] == ["min_review"]
    assert QueryLog.objects.latest("created_at").status_code == 422


# --- experts' corrections -----------------------------------------------------------------


@pytest.fixture
def corrected(kb, expert, pension_rate):
    """The State Pension rate as an expert's correction leaves it."""
    AtomicUnit.objects.filter(pk=pension_rate.pk).update(
        corrected_by=expert, corrected_at=CORRECTED_AT, review_status="approved"
    )
    return pension_rate


def _correction(payload) -> tuple:
    at = payload["corrected_at"] and parse_datetime(payload["corrected_at"])
    return payload["review_status"], payload["corrected_by"], at, payload["provider"]


def test_a_corrected_unit_says_who_corrected_it_and_when_everywhere(kb, api, corrected):
    provider = corrected.provider
    assert provider
    expected = ("approved", "expert1", CORRECTED_AT, provider)
    body = api.search(query=PENSION, include_historical=True).json()
    shown = _units(body)
    assert _correction(shown[corrected.pk]) == expected
    others = [u for pk, u in shown.items() if pk != corrected.pk]
    assert others and all(u["corrected_by"] is None for u in others)
    assert all(u["corrected_at"] is None for u in others)
    assert _schema_round_trip(body) == body

    reviewed = api.search(query=PENSION, include_historical=True, min_review="signed_off")
    assert _correction(_units(reviewed.json())[corrected.pk]) == expected
    assert _correction(api.get(f"/units/{corrected.pk}").json()) == expected
    taxonomy_id = corrected.concept.taxonomy_id
    in_concept = api.get(f"/concepts/{taxonomy_id}?include_historical=true").json()["units"]
    by_id = {u["id"]: u for u in in_concept}
    assert _correction(by_id[corrected.pk]) == expected
    assert {u["corrected_by"] for pk, u in by_id.items() if pk != corrected.pk} == {None}


def test_an_uncorrected_unit_has_no_corrector(kb, api, pension_rate):
    payload = api.get(f"/units/{pension_rate.pk}").json()
    assert (payload["corrected_by"], payload["corrected_at"]) == (None, None)


def test_a_search_reads_the_correctors_with_its_units(kb, api, corrected):
    api.search(query="warm up")  # the token's first call of the minute also records its use
    with CaptureQueriesContext(connection) as captured:
        body = api.search(query=PENSION, include_historical=True).json()
    assert _units(body)[corrected.pk]["corrected_by"] == "expert1"
    assert [q["sql"] for q in captured if 'FROM "auth_user"' in q["sql"]] == []


def test_a_concept_reads_its_correctors_in_its_own_queries(kb, api, expert, corrected):
    concept = corrected.concept
    path = f"/concepts/{concept.taxonomy_id}?include_historical=true"
    api.get(path)  # the token's first call of the minute also records its use

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert api.get(path).status_code == 200
        return len(captured)

    with_one = queries()
    concept.units.filter(deleted_at=None).exclude(pk=corrected.pk).update(
        corrected_by=expert, corrected_at=CORRECTED_AT
    )
    assert queries() == with_one


# --- the tools ------------------------------------------------------------------------------


def test_the_tool_definitions_offer_min_review(kb, api, client):
    described = SearchParams.model_fields["min_review"].description
    for tool in (client.get("/api/v1/tool").json(), client.get("/api/v1/tools").json()["tools"][0]):
        assert tool["function"]["name"] == "knowledgeBaseSearch"
        assert tool["function"]["parameters"]["properties"]["min_review"] == {
            "type": "string",
            "enum": ["none", "signed_off"],
            "description": described,
        }
        assert "not_reviewed" in tool["function"]["description"]
        assert "min_review" not in tool["function"]["parameters"]["required"]
    schema = client.get("/api/v1/openapi.json").json()
    search_in = schema["components"]["schemas"]["SearchIn"]["properties"]["min_review"]
    assert search_in["enum"] == ["none", "signed_off"] and search_in["default"] == "none"
    outcome = schema["components"]["schemas"]["SearchOut"]["properties"]["outcome"]
    assert "not_reviewed" in outcome["enum"] and "not_reviewed" in outcome["description"]
