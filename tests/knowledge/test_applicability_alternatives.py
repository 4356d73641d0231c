"""A list of alternatives ("if any of the following apply: …; …") is one way in per item: what
a single item says of the reader does not narrow the statement, it is kept as one of its ways
in (`any_of`), which names a person it describes and excludes no one (real gov.uk pages, read
as the pipeline reads them)."""

import pytest

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.text.applicability import Applicability, applicability_checked, applicability_read
from tests.knowledge.test_applicability import _of, _read


def test_one_item_naming_a_partner_does_not_make_a_list_of_ways_in_for_couples():
    read = _read("universal-credit.json")
    ways_in = _of(read, "You can make a claim for Universal Credit if any of the following apply")
    assert ways_in.partner is None and Applicability(partner=True) in ways_in.any_of
    assert Applicability(children_min=1) in ways_in.any_of  # "you're responsible for a child"
    assert profile_fit(ways_in, Person(partner=False)).applies is None  # another way may be theirs
    couple = profile_fit(ways_in, Person(partner=True))
    assert couple.applies is True and couple.reason == "for couples"
    # a condition before the lead-in is everyone's: full-time students, whichever item holds
    students = _of(read, "if you're in full-time education and any of the following apply")
    assert students.employment == {"student"} and students.partner is None


def test_one_item_naming_an_age_or_state_pension_age_narrows_nothing():
    another_way = _of(_read("jobseekers-allowance.json"), "You can apply another way if any")
    assert (another_way.age_min, another_way.age_max) == (None, None)
    new_claim = _of(_read("housing-benefit.json"), "if either of the following apply")
    assert new_claim.state_pension_age == ""


def test_items_that_all_say_it_still_narrow_and_benefits_stay_alternatives():
    every_item = applicability_read(
        "You can get it if any of the following apply: you're 18 to 24; you're 60 or over"
    )
    assert (every_item.age_min, every_item.age_max) == (18, None)  # widened, not dropped
    report = _of(_read("widowed-parents-allowance.json"), "if you're getting any of the following")
    assert {"income_support", "universal_credit"} <= report.benefits


def test_an_exclusion_list_item_naming_the_reader_names_them_and_contradicts_no_one():
    # "They cannot be any of the following: your child; …; your partner if you're under 25"
    excluded = _of(_read("adult-dependants-grant.json"), "your partner if you're under 25")
    assert excluded.age_max is None and excluded.any_of == (Applicability(age_max=24),)
    assert profile_fit(excluded, Person(age=22)).applies is True
    assert profile_fit(excluded, Person(age=30)).applies is None


def test_ways_in_are_stored_and_checked_like_the_rest():
    stored = {"any_of": [{"partner": True}, {"age_max": 24}], "employment": ["student"]}
    assert Applicability.from_json(stored).as_json() == stored
    assert applicability_checked(stored) == stored
    with pytest.raises(ValueError, match=r"any_of\[2\]: age_max: a whole number"):
        applicability_checked({"any_of": [{"partner": True}, {"age_max": "x"}]})
    with pytest.raises(ValueError, match="no any_of inside"):
        applicability_checked({"any_of": [{"any_of": []}]})
