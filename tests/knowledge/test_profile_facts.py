"""What users say of themselves, read into profile fields with the words they came from; and a
search for a person, whose analysis says where each field of the profile it used came from."""

import pytest

from knowledge.domain.profile import Profile
from knowledge.domain.questions import ConversationTurn
from knowledge.query.search import question_plan
from knowledge.retrieval import SearchParams
from knowledge.text.profile_facts import (
    children_left_education,
    dependent_children,
    profile_facts,
)


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


@pytest.mark.parametrize(
    ("text", "ages", "counted"),
    [
        ("Our eldest left school last summer and now works full time.", [17, 15], [15]),
        ("My son has just finished his A-levels and got a job.", [18, 12], [12]),
        ("My daughter started an apprenticeship in September.", [16, 9, 4], [9, 4]),
        ("Our 19-year-old is at university now.", [19, 14], [14]),
        ("Our youngest left school and works full time.", [19, 17], [19]),
        # still in approved education, not said, or not certain which child
        ("My son left school and started college.", [16, 12], [16, 12]),
        ("Our eldest has started working part-time.", [17, 12], [17, 12]),
        ("Our eldest hasn't left school yet.", [17, 15], [17, 15]),
        ("If my son left school would we lose it?", [17], [17]),
        ("My daughter got a job.", [17, 16], [17, 16]),
        ("Our eldest left school.", [15, 12], [15, 12]),  # under 16: a child whatever they do
    ],
)
def test_a_child_who_has_left_education_for_work_is_not_counted(text, ages, counted):
    kept, _ = dependent_children(ages, children_left_education([text]))
    assert kept == counted


@pytest.mark.django_db
def test_the_conversation_refines_the_callers_children_and_says_so():
    question = "Our eldest left school last summer and now works full time. How much Child Benefit?"
    params = SearchParams(query=question, profile=Profile(children_ages=[17, 15], partner=True))
    plan = question_plan(params=params, conversation=[])
    assert plan.params.profile.children_ages == [15]
    assert plan.profile_source["children_ages"] == (
        "profile; not counted, as the user says: “Our eldest left school”"
    )
