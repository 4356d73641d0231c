"""POST /suggest: what a person should know before they ask, from their profile, with the
reason for each suggestion; its checks; its log; its tool definition."""

import json

import pytest

from navigator.models import QueryLog

PENSIONER = {"age": 66, "nation": "england", "employment": "employed", "annual_income": 30000}


def test_a_life_stage_brings_its_rules_with_the_reason(kb, api):
    response = api.post("/suggest", {"profile": PENSIONER, "as_of": "2024-12-01"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert "reaching_state_pension_age" in body["life_events"]
    stage = "life stage: Reaching State Pension age or retiring"
    suggested = {s["taxonomy_id"]: s for s in body["suggestions"]}
    by_stage = [s for s in suggested.values() if stage in s["reasons"]]
    assert by_stage, suggested.keys()
    assert any(t.startswith("state_pension") for t in suggested)
    for suggestion in body["suggestions"]:
        units = [u for group in suggestion["sources"] for u in group["units"]]
        assert units and all(u["source_url"].startswith("https://www.gov.uk/") for u in units)
        assert suggestion["reasons"]
        # what this person should know: no unit for other people
        assert all(u["applies"] is not False for u in units)


def test_nothing_in_the_profile_points_to_a_life_stage_for_a_young_adult(kb, api):
    body = api.post("/suggest", {"profile": {"age": 30, "nation": "england"}}).json()
    assert body["life_events"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"profile": {}}, "profile"),
        ({}, "profile"),
        ({"profile": {"age": 40}, "k": 21}, "k"),
        ({"profile": {"age": 40, "postcode": "CF10"}}, "profile.postcode"),
        ({"profile": {"age": 40}, "as_of": "1800-01-01"}, "as_of"),
        ({"profile": {"age": 40}, "postcode": "CF10"}, "postcode"),
    ],
)
def test_a_request_it_cannot_use_is_refused_naming_the_field(kb, api, body, field):
    response = api.post("/suggest", body)
    assert response.status_code == 422
    assert field in {f["field"] for f in response.json()["fields"]}


def test_the_log_keeps_the_profile_fields_not_their_values(kb, api):
    api.post("/suggest", {"profile": PENSIONER})
    row = QueryLog.objects.filter(endpoint__endswith="/suggest").latest("pk")
    assert row.params["profile_fields"] == ["age", "annual_income", "employment", "nation"]
    measured = {"id", "timings_ms", "created_at", "last_repeat_at", "token_id"}  # not the user's
    stored = json.dumps(
        {
            f.attname: getattr(row, f.attname)
            for f in QueryLog._meta.concrete_fields
            if f.attname not in measured
        },
        default=str,
    )
    assert "30000" not in stored and '"england"' not in stored


def test_agents_get_the_suggest_tool_and_the_profile_in_search(kb, client):
    tools = {
        t["function"]["name"]: t["function"] for t in client.get("/api/v1/tools").json()["tools"]
    }
    suggest = tools["knowledgeBaseSuggest"]["parameters"]
    assert set(suggest["properties"]) == {"profile", "as_of", "k"}
    assert suggest["properties"]["k"]["maximum"] == 20
    profile = tools["knowledgeBaseSearch"]["parameters"]["properties"]["profile"]
    assert {"age", "nation", "annual_income", "benefits"} <= set(profile["properties"])
