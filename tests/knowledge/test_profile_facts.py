"""What users say of themselves, read into profile fields with the words they came from; and a
search for a person, whose analysis says where each field of the profile it used came from."""

import pytest

from knowledge.domain.questions import ConversationTurn
from knowledge.query.search import question_plan
from knowledge.retrieval import SearchParams
from knowledge.retrieval.params import Profile
from knowledge.text.profile_facts import profile_facts


def _facts(*texts):
    return {fact.field: fact.value for fact in profile_facts(list(texts))}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm 45 and we live in Glasgow.", {"age": 45, "nation": "scotland"}),
        (
            "I'm self-employed and I earn about £32,000 a year",
            {"employment": "self_employed", "annual_income": 32000},
        ),
        ("I'm on £2,500 a month", {"annual_income": 30000}),
        (
            "We're on Universal Credit and expecting our first baby",
            {"benefits": ["universal_credit"]},
        ),
        ("My husband died last month", {"partner": False}),
        ("My partner and I moved in together", {"partner": True}),
        ("I've just lost my job", {"employment": "unemployed"}),
        ("We moved to Cardiff last year", {"nation": "wales"}),
        # a child's age, a supposition and a question are not facts about the user
        ("My son is 16 and at college", {}),
        ("If I earned £60,000 would I pay it back?", {}),
        ("Can I get Universal Credit?", {}),
        ("Does that change if we live in Scotland?", {}),
    ],
)
def test_the_users_own_statements_become_profile_fields(text, expected):
    assert _facts(text) == expected


def test_the_latest_statement_of_a_field_wins():
    assert _facts("I'm 29.", "Actually I'm 30 now.") == {"age": 30}


@pytest.mark.django_db
def test_stated_facts_fill_only_the_fields_the_caller_did_not_send():
    turns = [
        ConversationTurn("user", "I'm 45 and we live in Glasgow."),
        ConversationTurn("assistant", "Thanks."),
    ]
    params = SearchParams(query="Can I open a Lifetime ISA?", profile=Profile(nation="wales"))
    plan = question_plan(params=params, conversation=turns)
    assert plan.params.profile.nation == "wales" and plan.params.profile.age == 45
    assert plan.profile_source == {"nation": "profile", "age": "conversation: “I'm 45”"}
    # without a profile the search is the same for everyone: nothing stated is applied
    plain = question_plan(
        params=SearchParams(query="Can I open a Lifetime ISA?"), conversation=turns
    )
    assert plain.params.profile is None and plain.profile_source == {}
