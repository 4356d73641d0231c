"""The public API over a real extracted knowledge base (the project's fixture pages)."""

import datetime as dt
import json

import pytest
from django.db import connection

from knowledge.models import AtomicUnit, Source
from navigator.models import QueryLog
from navigator.services import api_token_create, api_token_revoke


def test_search_answers_with_concepts_units_by_source_and_citations(kb, api):
    response = api.search(query="How much can I save in an ISA each tax year?", as_of="2024-06-01")
    assert response.status_code == 200
    body = response.json()
    assert body["outcome"] == "ok" and body["reasons"] == []
    top = body["concepts"][0]
    assert top["category"]["slug"] == "isa"
    units = [unit for group in top["sources"] for unit in group["units"]]
    assert any(unit["value"] and unit["value"]["amount"] == 20000 for unit in units)
    for group in top["sources"]:
        assert all(unit["source_url"] == group["source_url"] for unit in group["units"])
    unit = units[0]
    assert unit["evidence"]["verified"] and unit["evidence"]["end"] > unit["evidence"]["start"]
    assert set(body["sources"]) >= {group["source_url"] for group in top["sources"]}
    assert {"embed", "sql", "rank", "units", "assemble", "total", "http"} <= set(body["timings_ms"])
    assert "https://www.gov.uk/individual-savings-accounts" in body["context"]


def test_context_stays_within_the_token_budget(kb, api):
    body = api.search(query="Child Benefit rates", token_budget=120).json()
    assert 0 < body["context_tokens"] <= 120
    assert body["context"]


def test_below_quality_results_top_up_to_min_results(kb, api):
    body = api.search(
        query="Child Benefit weekly rate for the eldest child", quality=0.99, min_results=3
    ).json()
    assert len(body["concepts"]) == 3
    assert all(concept["below_quality"] for concept in body["concepts"])
    assert body["outcome"] == "low_confidence" and body["reasons"] == ["below_quality"]


def test_out_of_scope_question_is_no_match(kb, api):
    body = api.search(query="What is the VAT registration threshold for a limited company?").json()
    assert body["outcome"] == "no_match" and body["reasons"] == ["out_of_scope"]


def test_superseded_unit_leaves_default_results_and_returns_inside_its_validity(kb, api):
    """Real units from the two versions of /new-state-pension."""
    older = AtomicUnit.objects.get(value_amount=203.85, unit_type="threshold")
    newer = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")
    query = "What is the full new State Pension per week?"

    def amounts(**extra):
        body = api.search(query=query, **extra).json()
        return {
            u["value"]["amount"]
            for c in body["concepts"]
            for g in c["sources"]
            for u in g["units"]
            if u["value"]
        }

    assert 203.85 in amounts(as_of="2024-01-15")
    AtomicUnit.objects.filter(pk=older.pk).update(
        superseded_by=newer, superseded_date=dt.date(2024, 1, 1)
    )
    try:
        assert 203.85 not in amounts(as_of="2024-01-15")  # superseded from 1 January 2024
        assert 203.85 in amounts(as_of="2023-10-01")  # inside its validity, before superseding
        assert 221.20 in amounts(as_of="2024-10-01")
        historical = api.search(query=query, include_historical=True).json()
        statuses = {
            u["temporal_status"]
            for c in historical["concepts"]
            for g in c["sources"]
            for u in g["units"]
        }
        assert "historical" in statuses
    finally:
        AtomicUnit.objects.filter(pk=older.pk).update(superseded_by=None, superseded_date=None)


def test_an_expert_approval_and_its_revert_reach_the_api(kb, api, expert):
    """Approve "£221.20 replaces £203.85" through the service, then revert it."""
    from curation.models import AuditEvent
    from curation.services.superseding import candidate_approve, decision_revert
    from tests.factories import CandidateFactory

    older = AtomicUnit.objects.get(value_amount=203.85, unit_type="threshold")
    newer = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")
    query = "What is the full new State Pension per week?"

    def amounts(**extra):
        body = api.search(query=query, **extra).json()
        return {
            u["value"]["amount"]: u["temporal_status"]
            for c in body["concepts"]
            for g in c["sources"]
            for u in g["units"]
            if u["value"]
        }

    today = dt.date.today().isoformat()
    before = amounts(as_of=today), amounts(include_historical=True)
    candidate = CandidateFactory(older=older, newer=newer, concept=older.concept)
    candidate_approve(candidate_id=candidate.pk, user=expert)
    older.refresh_from_db()
    assert older.superseded_date == newer.valid_from
    assert 203.85 not in amounts()
    assert amounts(include_historical=True)[203.85] == "historical"
    inside = older.valid_from or (newer.valid_from - dt.timedelta(days=30))
    assert amounts(as_of=inside.isoformat()).get(203.85) == "current"
    decision_revert(event_id=AuditEvent.objects.get(action="candidate.approved").pk, user=expert)
    assert (amounts(as_of=today), amounts(include_historical=True)) == before


def test_units_say_which_other_pages_state_them(kb, api):
    from knowledge.models import UnitSighting

    unit = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")
    other = Source.objects.exclude(pk=unit.source_id).order_by("url").first()
    UnitSighting.objects.create(
        unit=unit, source=other, snapshot=other.snapshots.first(), evidence_quote="£221.20"
    )
    body = api.search(
        query="What is the full new State Pension per week?", include_historical=True
    ).json()
    shown = [
        u for c in body["concepts"] for g in c["sources"] for u in g["units"] if u["id"] == unit.pk
    ]
    assert shown and shown[0]["also_found_in"] == [other.url]
    assert other.url in body["sources"]
    assert api.get(f"/units/{unit.pk}").json()["also_found_in"] == [other.url]


def test_each_unit_links_to_the_innermost_page_part_holding_its_quote(kb, api):
    """The search finds part URLs in SQL; they must agree with knowledge.text.sections.section_at."""
    from navigator.presenters import unit_part_url

    body = api.search(query="Who can get Statutory Sick Pay and how much is it?", k=10).json()
    shown = {
        u["id"]: u["part_url"] for c in body["concepts"] for g in c["sources"] for u in g["units"]
    }
    units = AtomicUnit.objects.select_related("source", "snapshot").in_bulk(list(shown))
    assert len(shown) >= 5
    assert shown == {pk: unit_part_url(unit) for pk, unit in units.items()}
    assert any(url != units[pk].source.url for pk, url in shown.items())  # parts, not just pages


def test_date_with_no_rule_in_force(kb, api):
    body = api.search(
        query="How much is the full new State Pension a week?", as_of="2012-06-01"
    ).json()
    assert body["outcome"] == "no_match"
    assert body["reasons"] == ["no_rule_in_force_on_date"]


@pytest.mark.parametrize(
    "body,field",
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x" * 10_000}, "query"),
        ({"query": "isa", "k": 0}, "k"),
        ({"query": "isa", "k": 1000}, "k"),
        ({"query": "isa", "floor": 0.6, "quality": 0.5}, "floor"),
        ({"query": "isa", "floor": 1.5}, "floor"),
        ({"query": "isa", "quality": -0.1}, "quality"),
        ({"query": "isa", "as_of": "next tuesday"}, "as_of"),
        ({"query": "isa", "as_of": "0001-01-01"}, "as_of"),
        ({"query": "isa", "as_of": "9999-12-31"}, "as_of"),
        ({"query": "isa", "min_results": 9, "k": 5}, "min_results"),
        ({"query": "isa", "token_budget": 5}, "token_budget"),
        ({"query": "isa", "categories": ["no_such_category"]}, "categories"),
        ({"query": "isa", "categories": ["isa\x00"]}, "categories"),
        ({"query": "isa\x00 allowance"}, "query"),
        ({"query": "isa", "min_results": 4, "k": 2}, "min_results"),
        ({}, "query"),
    ],
)
def test_bad_input_gets_a_4xx_naming_the_field_and_is_logged(kb, api, body, field):
    response = api.search(**body)
    assert 400 <= response.status_code < 500
    payload = response.json()
    assert payload["outcome"] == "invalid"
    assert field in payload["detail"]
    log = QueryLog.objects.latest("created_at")
    assert log.status_code == response.status_code and log.outcome == "invalid"


def test_min_results_defaults_to_k_when_k_is_below_three(kb, api):
    response = api.search(query="ISA allowance", k=2, quality=0.99)
    assert response.status_code == 200, response.json()
    assert len(response.json()["concepts"]) == 2


@pytest.mark.parametrize(
    "path,field",
    [
        ("/concepts/isa%00allowance", "taxonomy_id"),
        ("/units/99999999999999999999", "unit_id"),
        ("/units/-1", "unit_id"),
    ],
)
def test_bad_path_values_get_a_4xx_naming_the_field_and_are_logged(kb, api, path, field):
    before = QueryLog.objects.count()
    response = api.get(path)
    assert 400 <= response.status_code < 500
    assert field in response.json()["detail"]
    assert QueryLog.objects.count() == before + 1
    assert QueryLog.objects.latest("pk").status_code == response.status_code


def test_a_body_larger_than_a_search_needs_is_refused_unread(kb, api):
    response = api.search(query="isa " * 10_000)
    assert response.status_code == 413
    assert "body" in response.json()["detail"]
    assert QueryLog.objects.latest("pk").status_code == 413


def test_a_log_row_keeps_what_postgresql_cannot_store_as_text(db):
    from navigator.services import query_log_write

    row = query_log_write(
        endpoint="/api/v1/concepts/a\x00b",
        status_code=404,
        query="a\x00b\ud800",
        params={"categories": ["x\x00"]},
        outcome="invalid",
        error="taxonomy_id: 'a\\x00b'",
    )
    row.refresh_from_db()
    assert row.query == "a\ufffdb\ufffd" and row.params == {"categories": ["x\ufffd"]}


def test_tokens_missing_wrong_or_revoked_are_refused_and_logged(kb, client, token):
    url, body = "/api/v1/search", json.dumps({"query": "isa"})
    assert client.post(url, body, content_type="application/json").status_code == 401
    wrong = {"HTTP_AUTHORIZATION": "Bearer nav_not-a-real-token"}
    assert client.post(url, body, content_type="application/json", **wrong).status_code == 401
    api_token_revoke(token=token[0])
    revoked = {"HTTP_AUTHORIZATION": f"Bearer {token[1]}"}
    assert client.post(url, body, content_type="application/json", **revoked).status_code == 401
    # Failed authentications from one address within a window share a row and count.
    assert sum(QueryLog.objects.filter(status_code=401).values_list("repeats", flat=True)) == 3


def test_every_search_is_logged_with_its_token_outcome_and_stages(kb, api, token):
    api.search(query="Statutory Sick Pay weekly rate")
    log = QueryLog.objects.latest("created_at")
    assert log.token_id == token[0].pk and log.status_code == 200
    assert log.outcome in ("ok", "low_confidence", "no_match") and log.result_concepts
    assert "sql" in log.timings_ms


def test_a_search_says_where_its_time_went_stage_by_stage(kb, api, token):
    """The endpoint's own stages beside the search's: they add up to no more than the
    request's time inside Django; the header adds rendering, the log row keeps it too."""
    response = api.search(query="What is the ISA allowance?")
    timings = response.json()["timings_ms"]

    endpoint_stages = ("routing", "auth", "throttle", "parse", "present")
    assert all(timings[stage] >= 0 for stage in endpoint_stages)
    assert sum(timings[s] for s in endpoint_stages) + timings["total"] <= timings["http"] + 0.1
    header = dict(
        part.split(";dur=") for part in response["Server-Timing"].replace(" ", "").split(",")
    )
    assert {*endpoint_stages, "search", "render", "total"} <= set(header)
    assert float(header["total"]) >= timings["http"]
    log = QueryLog.objects.latest("created_at")
    assert log.timings_ms["render"] == float(header["render"])


def test_search_answers_exactly_in_its_documented_schema(kb, api):
    """The endpoint sends the presenter's body without ninja validating it again."""
    from ninja.responses import NinjaJSONEncoder

    from navigator.schemas.search import SearchOut

    body = api.search(query="State Pension weekly amount", include_historical=True).json()
    assert body["concepts"] and body["concepts"][0]["sources"]
    validated = SearchOut.model_validate(body).model_dump()
    assert json.loads(json.dumps(validated, cls=NinjaJSONEncoder)) == body


def test_tokens_are_stored_hashed(token):
    model, raw = token
    assert raw.startswith("nav_") and raw not in (model.token_hash, model.token_prefix)


def test_concept_by_alias_answers_with_the_current_concept(kb, api):
    body = api.get("/concepts/isa.allowance").json()
    assert body["taxonomy_id"] == "isa.annual_allowance"
    assert body["resolved_from_alias"] == "isa.allowance"
    assert api.get("/concepts/isa.no_such_thing").status_code == 404


def test_categories_units_health_tool_and_schema(kb, api, client):
    categories = api.get("/categories").json()
    assert len(categories) == 23 and sum(c["concepts"] for c in categories) >= 200
    unit = AtomicUnit.objects.first()
    assert api.get(f"/units/{unit.pk}").json()["id"] == unit.pk
    assert api.get("/units/999999").status_code == 404
    health = client.get("/api/v1/health").json()
    assert health["database"].startswith("ok (pgvector") and health["status"] == "ok"
    tool = client.get("/api/v1/tool").json()
    assert tool["function"]["name"] == "knowledgeBaseSearch"
    assert "Child Benefit" in tool["function"]["description"]
    schema = client.get("/api/v1/openapi.json").json()
    assert "/api/v1/search" in schema["paths"]


def test_admin_creates_a_token_shown_once_and_revokes(admin_client, db):
    import re

    from navigator.models import ApiToken
    from navigator.services import api_token_authenticate

    response = admin_client.post("/admin/navigator/apitoken/add/", {"name": "calculator"})
    token = ApiToken.objects.get(name="calculator")
    # Shown on the page that created it, never through the messages cookie (signed, not
    # encrypted) nor a cache that might keep the page.
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    raw = re.search(r"nav_[\w-]{40,}", response.content.decode()).group(0)
    assert all("nav_" not in str(message) for message in response.context["messages"])
    assert "nav_" not in response.cookies.get("messages", type("", (), {"value": ""})).value

    assert api_token_authenticate(raw=raw) == token
    admin_client.post(
        "/admin/navigator/apitoken/", {"action": "revoke", "_selected_action": [token.pk]}
    )
    assert api_token_authenticate(raw=raw) is None


def test_create_api_token_command_prints_a_working_token(db):
    from io import StringIO

    from django.core.management import CommandError, call_command

    from navigator.services import api_token_authenticate

    out = StringIO()
    call_command("create_api_token", "assistant", stdout=out)
    raw = out.getvalue().split()[-1]
    assert api_token_authenticate(raw=raw).name == "assistant"
    with pytest.raises(CommandError, match="exists already"):
        call_command("create_api_token", "assistant")


def test_each_token_is_throttled_on_its_own(kb, client, monkeypatch):
    from django.core.cache import cache

    from navigator.api import TOKEN_THROTTLE as throttle

    monkeypatch.setattr(throttle, "num_requests", 2)
    cache.clear()
    first, second = api_token_create(name="busy app")[1], api_token_create(name="quiet app")[1]

    def categories(raw):
        return client.get("/api/v1/categories", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code

    assert [categories(first) for _ in range(3)] == [200, 200, 429]
    assert categories(second) == 200
    assert QueryLog.objects.filter(status_code=429).exists()


# --- experts' sign-off --------------------------------------------------------------------


def test_an_experts_sign_off_and_its_revert_reach_the_api(kb, api, expert):
    """Each unit says whether it is signed off and, when it is, by whom and when."""
    from django.utils.dateparse import parse_datetime

    from curation.services.signoff import unit_signoff, unit_signoff_revert
    from navigator.schemas.search import SearchOut

    query = "What is the full new State Pension per week?"
    unit = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold")

    def shown():
        body = api.search(query=query, include_historical=True).json()
        SearchOut.model_validate(body)
        units = [u for c in body["concepts"] for g in c["sources"] for u in g["units"]]
        return next(u for u in units if u["id"] == unit.pk)

    def signoff_fields(payload):
        at = payload["signed_off_at"] and parse_datetime(payload["signed_off_at"])
        return payload["review_status"], payload["signed_off_by"], at

    assert signoff_fields(shown()) == ("pending", None, None)
    event = unit_signoff(unit_id=unit.pk, user=expert)
    at = event.created_at.replace(microsecond=event.created_at.microsecond // 1000 * 1000)
    assert signoff_fields(shown()) == ("approved", "expert1", at)
    assert signoff_fields(api.get(f"/units/{unit.pk}").json()) == ("approved", "expert1", at)
    concept = api.get(f"/concepts/{unit.concept.taxonomy_id}?include_historical=true").json()
    in_concept = concept["units"]
    assert signoff_fields(next(u for u in in_concept if u["id"] == unit.pk))[1] == "expert1"
    unit_signoff_revert(event_id=event.pk, user=expert)
    assert signoff_fields(shown()) == ("pending", None, None)


def test_a_concepts_sign_offs_are_read_in_one_query_however_many_are_signed(kb, api, expert):
    from django.test.utils import CaptureQueriesContext

    from curation.services.signoff import unit_signoff, unit_signoff_revert

    concept = AtomicUnit.objects.get(value_amount=221.20, unit_type="threshold").concept
    units = list(concept.units.filter(deleted_at=None).order_by("ordinal")[:3])
    assert len(units) >= 2

    def queries_for_the_concept() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = api.get(f"/concepts/{concept.taxonomy_id}?include_historical=true")
        assert response.status_code == 200
        return len(captured)

    queries_for_the_concept()  # the token's first call of the minute also records its use
    events = [unit_signoff(unit_id=units[0].pk, user=expert)]
    with_one = queries_for_the_concept()
    events += [unit_signoff(unit_id=unit.pk, user=expert) for unit in units[1:]]
    assert queries_for_the_concept() == with_one
    for event in reversed(events):
        unit_signoff_revert(event_id=event.pk, user=expert)


def test_a_unit_states_its_other_figures_with_their_roles(kb, api):
    """One statement, one unit: the HICBC charge of the fixture's Child Benefit page."""
    body = api.search(query="High Income Child Benefit Charge rate", as_of="2024-06-01").json()
    units = [u for c in body["concepts"] for g in c["sources"] for u in g["units"]]
    [charge] = [u for u in units if "for every £200 of income over £60,000" in u["text"]]
    assert charge["value"]["amount"] == 1 and charge["value"]["unit"] == "percent"
    assert [(f["printed"], f["role"], f["amount"]) for f in charge["figures"]] == [
        ("£200", "per", 200),
        ("£60,000", "above", 60000),
    ]
    assert all(u["figures"] == [] for u in units if u["value"] is None)


def test_the_units_a_search_serves_are_loaded_whole_with_their_hits(kb, api):
    """Every field a served unit shows comes with the search's one query for the shown units:
    none is fetched unit by unit afterwards (a deferred field would cost a query each)."""
    from django.test.utils import CaptureQueriesContext

    api.search(query="warm up")  # the token's first call of the minute also records its use
    with CaptureQueriesContext(connection) as captured:
        body = api.search(query="High Income Child Benefit Charge rate", k=5).json()
    assert [u for c in body["concepts"] for g in c["sources"] for u in g["units"]]
    one_by_one = [q["sql"] for q in captured if 'FROM "knowledge_atomicunit"' in q["sql"]]
    assert one_by_one == []
