"""The heuristic extractor on real corpus pages: a unit states its subject, is typed by what
its text does, and carries its fact's main figure (a worked example's figures stay in an
example unit)."""

from decimal import Decimal

import pytest

from knowledge.extraction.sentences import (
    is_eligibility,
    is_fragment,
    leans_back,
    sentence_kind,
)
from knowledge.text.amounts import rate_period
from tests.knowledge.test_extraction_context import corpus_units


def _unit(units, fragment, unit_type=None):
    found = [u for u in units if fragment in u.text and unit_type in (None, u.unit_type)]
    assert found, fragment
    return found[0]


def test_a_sentence_pointing_back_is_stated_with_the_sentence_it_points_to():
    units = corpus_units("inheritance-tax--overview--c2015-17.json")
    unit = _unit(units, "This means their threshold can be as much as £650,000.", "threshold")
    assert "any unused threshold can be added to your partner's threshold" in unit.text
    assert unit.evidence_quote.endswith("This means their threshold can be as much as £650,000.")
    assert unit.evidence_quote.startswith("If you're married or in a civil partnership")

    units = corpus_units("jobseekers-allowance.json")
    unit = _unit(units, "This agreement is called a 'Claimant Commitment'.", "definition")
    assert unit.text.startswith("When you apply to claim JSA, your work coach will make")


def test_this_money_is_resolved_back_to_the_sentence_naming_it():
    units = corpus_units("employment-support-allowance.json")
    unit = _unit(units, "You do not need to pay this money back")
    assert "continue to get the amount of ESA you currently receive" in unit.text


def test_a_short_sentence_is_stated_with_its_page_and_section():
    units = corpus_units("cold-weather-payment.json")
    unit = _unit(units, "You do not need to apply.")
    assert unit.text == "Cold Weather Payment > What you need to do: You do not need to apply."
    assert unit.evidence_quote == "You do not need to apply."


def test_a_worked_example_keeps_its_figures_in_an_example_unit():
    units = corpus_units("individual-savings-accounts--how-isas-work--2016-17.json")
    assert not [u for u in units if u.unit_type == "threshold" and "£10,240" in u.text]
    unit = _unit(units, "You could save £10,240 in a cash ISA", "example")
    assert unit.value_amount is None


def test_a_percentage_rate_in_a_table_of_weekly_and_monthly_bands_has_no_period():
    units = corpus_units("national-insurance-rates-letters.json")
    rates = [u for u in units if u.value_unit == "percent"]
    assert rates and all(u.value_period is None for u in rates)
    assert rate_period(" a year on your savings") == "year"
    assert rate_period(" (£533 to £1,048 a month)") == ""


def test_a_sentence_broken_by_a_line_break_stays_whole():
    units = corpus_units("child-benefit.json")
    unit = _unit(
        units, "(for example, your ex-partner), you'll each get £25.60 a week.", "threshold"
    )
    assert unit.text.startswith(
        "Child Benefit > What you'll get > If families split up: If you have 2 children and one "
        "lives with you"
    )
    assert unit.value_period == "week"


def test_a_presupposed_eligibility_is_not_typed_eligibility():
    units = corpus_units("cold-weather-payment.json")
    unit = _unit(units, "If you're eligible, you'll get these payments automatically.")
    assert unit.unit_type == "rule"
    assert "You may get Cold Weather Payments if you're getting" in unit.text
    unit = _unit(units, "You may get Cold Weather Payments if you're getting certain benefits")
    assert unit.unit_type == "eligibility"


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("If you're eligible, you'll get these payments automatically.", "rule"),
        ("You'll be sent a letter if you are eligible for Universal Credit instead.", "rule"),
        ("You can apply for a Tuition Fee Loan.", "rule"),
        ("You can get a hardship payment if you cannot pay for rent.", "eligibility"),
        ("You're not eligible if you live in Scotland.", "eligibility"),
        ("To qualify, you must have paid National Insurance.", "eligibility"),
        ("The 'adjusted net income' is your total taxable income.", "definition"),
        ("You can also apply by post if you're unable to apply online.", "rule"),
        ("You will not get a sanction if you're in the support group.", "rule"),
        ("Claiming Child Benefit helps you qualify for National Insurance credits.", "rule"),
        ("You can claim if you're aged 16 or over.", "eligibility"),
        ("You can make a claim for Universal Credit if any of the following apply:", "eligibility"),
        ("You can make a claim online.", "rule"),
        ("To get Guardian's Allowance all of the following must apply:", "eligibility"),
        ("To claim, you must fill in form SSP1.", "rule"),
        # how often, between the verb and its subject, still a rule
        ("PIP is usually paid every 4 weeks.", "rule"),
        ("You do not usually pay tax when you sell your home.", "rule"),
    ],
)
def test_a_sentence_is_typed_by_what_it_does(sentence, kind):
    assert sentence_kind(sentence) == kind
    assert is_eligibility(sentence) == (kind == "eligibility")


def test_a_sentence_leans_back_when_it_names_its_subject_by_a_pronoun():
    assert leans_back("This is your yearly ISA allowance.")
    assert leans_back("Your Universal Credit payments will be lower until it's repaid.")
    assert not leans_back("You can save in this tax year.")
    assert not leans_back("You must tell HMRC about a change of address.")


def test_a_table_row_without_figures_is_a_unit_stated_with_its_section():
    units = corpus_units("national-insurance-rates-letters.json")
    [unit] = [
        u
        for u in units
        if u.evidence_quote.startswith("Category letter: H; Employee group: Apprentices")
    ]
    assert unit.text.startswith(
        "National Insurance rates and categories > Category letters: Category letter: H; "
        "Employee group: "
    )
    assert unit.unit_type == "rule"


def test_a_sentence_that_does_not_name_its_page_subject_is_stated_after_it():
    units = corpus_units("statutory-sick-pay--what-youll-get--2018-19.json")
    [unit] = [
        u for u in units if u.evidence_quote == "Tax and National Insurance will be deducted."
    ]
    assert unit.text.startswith("Statutory Sick Pay (SSP) > ")
    named = [u for u in units if u.evidence_quote.startswith("You can get £")]
    assert named and all(not u.text.startswith("Statutory Sick Pay (SSP) >") for u in named)


def test_a_reply_to_the_sentence_before_joins_it():
    units = corpus_units("employment-support-allowance.json")
    [unit] = [u for u in units if "you might have to pay some of the money back" in u.text]
    assert unit.evidence_quote.index("If you are, you might") > 0


@pytest.mark.parametrize(
    ("sentence", "fragment"),
    [
        ("You may also have tax-free allowances for:", True),
        ("If you pay 40% Income Tax", True),
        ("If you're 60 or over you cannot get a Maintenance Loan.", False),
        ("If you pay 40% Income Tax, you can claim back 20%.", False),
        ("For your first child £277.08 (born before 6 April 2017)", False),
        ("If you're getting less than £221.20 a week", True),
        ("If your other income is £17,570 or more", True),  # a figure's comma ends nothing
        ("If you earn £17,570, you pay tax", False),
    ],
)
def test_a_lead_in_without_its_list_or_a_bare_condition_is_no_unit(sentence, fragment):
    assert is_fragment(sentence) is fragment


def test_a_lead_in_that_states_a_figure_keeps_it():
    units = corpus_units("new-state-pension--what-youll-get--2024-25.json")
    assert any(u.value_amount == Decimal("221.20") and u.value_period == "week" for u in units)


def test_a_date_about_what_a_person_did_is_not_a_rules_validity():
    from knowledge.text.dates import find_validities

    assert find_validities("if you joined the scheme on or before 4 October 2018") == []
    assert find_validities("if you started your course before 1 August 2016") == []
    assert find_validities("Rates before 1 April 2021")[0].valid_to.isoformat() == "2021-03-31"


def test_a_plain_text_pages_condition_sub_heading_is_no_unit():
    units = corpus_units(
        "apply-tax-free-interest-on-savings--how-much-tax-you-pay--2021-22-or-later.json"
    )
    texts = [unit.text for unit in units]
    assert not [
        text for text in texts if text.endswith("If your other income is less than £17,570")
    ]
    assert not [text for text in texts if text.endswith("If your other income is £17,570 or more")]
    # the statements under them are still units
    assert any("maximum of £5,000" in text for text in texts)
