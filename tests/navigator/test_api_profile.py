"""Searching for a person: the profile's checks, units labelled for them, a refusal when the
facts held are for other people only, and a query log that keeps no profile value."""

import json

import pytest

from knowledge.models import AtomicUnit
from navigator.models import QueryLog

LIFETIME_ISA = "Who can open a Lifetime ISA?"


def _units(body) -> list[dict]:
    return [u for c in body["concepts"] for g in c["sources"] for u in g["units"]]


@pytest.mark.parametrize(
    ("profile", "field", "words"),
    [
        ({"postcode": "G1 1AA"}, "profile.postcode", "Extra inputs are not permitted"),
        ({"age": -1}, "profile.age", "greater than or equal to 0"),
        (
            {"annual_income": 150_000_000},
            "profile.annual_income",
            "less than or equal to 100000000",
        ),
        ({"nation": "france"}, "profile.nation", "england"),
        ({"children_ages": [4, 40]}, "profile.children_ages", "40 is not a child's age"),
        ({"benefits": ["Universal Credit"]}, "profile.benefits", "not a benefit code"),
    ],
)
def test_a_profile_the_api_cannot_use_is_refused_naming_the_field(kb, api, profile, field, words):
    for path in ("/search", "/analyze"):
        response = api.post(path, {"query": LIFETIME_ISA, "profile": profile})
        assert response.status_code == 422, response.content
        body = response.json()
        assert body["outcome"] == "invalid"
        fields = {f["field"]: f["message"] for f in body["fields"]}
        assert field in fields and words in fields[field], fields


def test_units_outside_the_persons_age_are_kept_labelled_and_ranked_after(kb, api):
    """/lifetime-isa: "You must be 18 or over but under 40 to open a Lifetime ISA"."""
    bounded = AtomicUnit.objects.filter(
        source__url__endswith="/lifetime-isa", applicability__age_min=18, applicability__age_max=39
    )
    assert bounded.exists(), "the Lifetime ISA's age bounds were not read"
    answer = api.search(
        query="Can I open a Lifetime ISA?",
        as_of="2024-06-01",
        profile={"age": 45, "nation": "wales"},
    ).json()
    # the rule that leaves a 45-year-old out is their answer: not a refusal
    assert answer["reasons"] != ["not_for_this_profile"] and answer["concepts"]
    too_old = _units(api.search(query=LIFETIME_ISA, profile={"age": 45}).json())
    labelled = [u for u in too_old if u["id"] in set(bounded.values_list("pk", flat=True))]
    assert labelled and all(u["applies"] is False for u in labelled)
    assert labelled[0]["applies_reason"] == "for people aged 18 to 39"
    assert labelled[0]["applies_to"]["age_min"] == 18
    # in each concept, a unit for someone else never ranks above one for everyone
    for concept in api.search(query=LIFETIME_ISA, profile={"age": 45}).json()["concepts"]:
        order = [u["applies"] for g in concept["sources"] for u in g["units"]]
        assert order == sorted(order, key=lambda applies: {True: 0, None: 1, False: 2}[applies])
    right_age = _units(api.search(query=LIFETIME_ISA, profile={"age": 30}).json())
    assert any(u["applies"] is True for u in right_age if u["id"] in {x["id"] for x in labelled})
    # without a profile nothing is labelled, and the bounds are still shown
    plain = _units(api.search(query=LIFETIME_ISA).json())
    assert all(u["applies"] is None and u["applies_reason"] == "" for u in plain)


def test_facts_only_for_other_nations_are_refused_for_this_person(kb, api):
    """/income-tax-rates: "These rates apply in England, Wales and Northern Ireland"."""
    question = "What are the Income Tax rates and bands?"
    day = "2024-06-01"  # the fixture pages' year
    english = api.search(query=question, as_of=day, profile={"nation": "england"}).json()
    assert english["outcome"] == "ok"
    scottish = api.search(query=question, as_of=day, profile={"nation": "scotland"}).json()
    assert scottish["outcome"] == "no_match"
    assert scottish["reasons"] == ["not_for_this_profile"]
    assert scottish["concepts"] == [] and scottish["context"] == ""


def test_the_query_log_keeps_which_profile_fields_were_sent_never_their_values(kb, api):
    profile = {"age": 47, "nation": "wales", "annual_income": 61234.5, "benefits": ["pip"]}
    api.search(query=LIFETIME_ISA, profile=profile)
    api.analyze(query=LIFETIME_ISA, profile=profile)
    rows = list(QueryLog.objects.order_by("-pk")[:2])
    measured = {"id", "timings_ms", "created_at", "last_repeat_at", "token_id"}  # not the user's
    for row in rows:
        assert row.params["profile_fields"] == ["age", "annual_income", "benefits", "nation"]
        stored = json.dumps(
            {
                f.attname: getattr(row, f.attname)
                for f in QueryLog._meta.concrete_fields
                if f.attname not in measured
            },
            default=str,
        )
        for value in ("47", "wales", "61234", "pip"):
            assert value not in stored.lower(), value
