"""Who a statement is for by their date of birth: read from real gov.uk pages (PIP's DLA
rule, the new State Pension's eligibility, bereavement's Winter Fuel Payment), never from a
child's date of birth, and compared with a person's age on the search's day."""

import datetime as dt

import pytest

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.text.applicability import Applicability, applicability_checked, applicability_read
from knowledge.text.birth_dates import birth_range_of_age, births_read
from tests.knowledge.test_applicability import _of, _read
from tests.knowledge.test_extraction_context import page_input_from_file

SEARCH_DAY = dt.date(2024, 12, 15)


def test_the_dla_rule_on_the_pip_page_is_for_people_born_on_or_before_8_april_1948():
    page = page_input_from_file("pip.json")
    start = page.text.index("You'll keep getting DLA if:")
    lead_in, *items = page.text[start : page.text.index("Eligibility", start)].splitlines()[:3]
    keeps = applicability_read(f"{lead_in} {'; '.join(i.lstrip('- ') for i in items)}")
    assert keeps.born_before == dt.date(1948, 4, 9) and keeps.born_from is None
    assert keeps.age_max == 15  # "you're under 16": the other way of being kept on DLA
    invited = applicability_read(
        page.text[page.text.index("If you were born after 8 April 1948") :].split(".")[0]
    )
    assert invited.born_from == dt.date(1948, 4, 9) and invited.born_before is None


def test_the_new_state_pensions_men_and_women_are_read_as_their_union():
    read = _read("new-state-pension--overview--2016-17.json")
    eligible = _of(read, "born on or after 6 April 1951")
    assert (eligible.born_from, eligible.born_before) == (dt.date(1951, 4, 6), None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "If you were born between 6 April 2006 and 5 April 2008, you can open one cash ISA",
            (dt.date(2006, 4, 6), dt.date(2008, 4, 6)),
        ),
        (
            "You can get a Winter Fuel Payment if you were born on or before 5 July 1952",
            (None, dt.date(1952, 7, 6)),
        ),
        # either of two people, one list item's own condition, a bracket's
        (
            "If you or your partner were born before 6 April 1935, you might benefit more",
            (None, None),
        ),
        (
            "You may also be able to apply for: Winter Fuel Payment - if you were born on or "
            "before 5 July 1952; Cold Weather Payment - if you get Pension Credit",
            (None, None),
        ),
        ("For your first child £277.08 a month (born before 6 April 2017)", (None, None)),
        # a child's date of birth is a condition on the child
        (
            "You get the child element for all your children if they were born before 6 April 2017",
            (None, None),
        ),
        ("the child element for children born before 6 April 2017", (None, None)),
        # both sides of one date: the statement narrows no one
        (
            "If you were born on or before 8 April 1948 you keep DLA. If you were born after "
            "8 April 1948, you will be invited to apply.",
            (None, None),
        ),
    ],
)
def test_dates_of_birth_in_gov_uk_words(text, expected):
    assert births_read(text) == expected


def test_an_age_is_a_range_of_dates_of_birth_on_the_day():
    assert birth_range_of_age(78, SEARCH_DAY) == (dt.date(1945, 12, 16), dt.date(1946, 12, 15))


@pytest.mark.parametrize(
    ("age", "applies"),
    [(78, True), (63, False), (76, None)],  # 76 on 15 Dec 2024: born 1947-48, either side
)
def test_a_person_is_inside_or_outside_a_birth_range_by_their_age(age, applies):
    statement = Applicability(born_before=dt.date(1948, 4, 9))
    fit = profile_fit(statement, Person(age=age, age_on=SEARCH_DAY))
    assert fit.applies is applies
    if applies is not None:
        assert (fit.matched or fit.contradicted) == ["for people born on or before 8 April 1948"]


def test_an_age_bound_and_a_date_of_birth_are_alternatives():
    keeps_dla = Applicability(age_max=15, born_before=dt.date(1948, 4, 9))
    assert profile_fit(keeps_dla, Person(age=78, age_on=SEARCH_DAY)).applies is True
    assert profile_fit(keeps_dla, Person(age=12, age_on=SEARCH_DAY)).applies is True
    refused = profile_fit(keeps_dla, Person(age=40, age_on=SEARCH_DAY))
    assert refused.applies is False
    assert refused.contradicted == ["for people aged under 16, or born on or before 8 April 1948"]


def test_the_stored_form_keeps_dates_of_birth_and_checks_them():
    stored = Applicability(born_from=dt.date(1951, 4, 6)).as_json()
    assert stored == {"born_from": "1951-04-06"}
    assert Applicability.from_json(stored).born_from == dt.date(1951, 4, 6)
    assert applicability_checked({"born_before": "1948-04-09"}) == {"born_before": "1948-04-09"}
    with pytest.raises(ValueError, match="born_from: a date of birth"):
        applicability_checked({"born_from": "6 April 1951"})


def test_the_day_of_the_age_is_not_a_field_the_person_gave():
    assert Person(age=40, age_on=SEARCH_DAY).fields_present() == ["age"]


def test_a_birth_range_singles_out_only_those_an_age_bound_would():
    """ "Born on or before 8 April 1948" names the old, as "75 or over" would; "born on or
    after 6 April 1951" is everyone under about 70: it names no one in particular, so it does
    not make a young person's suggestions about the State Pension."""
    day = dt.date(2024, 10, 1)
    old_rules = Applicability(born_before=dt.date(1948, 4, 9))
    assert profile_fit(old_rules, Person(age=80, age_on=day)).singling_out
    new_pension = Applicability(born_from=dt.date(1951, 4, 6))
    young = profile_fit(new_pension, Person(age=25, age_on=day))
    assert young.applies is True and not young.singling_out
    assert profile_fit(new_pension, Person(age=80, age_on=day)).applies is False
