"""The heuristic extractor on the failure patterns a unit audit found, each on a real corpus
page: a table row keeps its row's cells, column heads and lead-in; a list of conditions is
eligibility with its figures in its text; a unit names what "this" or "the cap" is; a bare
"Example" and a sentence about a form's notes are no units; a list keeps the sentence after it
that narrows it; a heading that narrows where or for whom ("If you live in Scotland") stays with
the facts under it."""

from knowledge.extraction.lines import with_row_years
from knowledge.extraction.navigation import is_navigation
from knowledge.extraction.sentences import leans_back, qualifies_before, states_conditions
from knowledge.extraction.subjects import (
    condition_headings,
    names_subject,
    shortened_name,
    shortens_a_name,
)
from knowledge.extraction.units import finished_text
from knowledge.parsing import linearise_row
from tests.knowledge.test_extraction_context import corpus_units, page_input_from_file


def _units(units, fragment):
    return [u for u in units if fragment in u.text]


def test_a_table_cell_of_several_paragraphs_stays_in_its_row():
    page = page_input_from_file("guidance--new-style-jobseekers-allowance.json")
    row = next(line for line in page.text.splitlines() if "more than £16,000 in savings" in line)
    assert row.startswith("Your situation: You're unemployed")
    assert "; New Style JSA: You can apply for New Style JSA." in row
    assert "; Universal Credit: You're unlikely to get Universal Credit" in row
    # a cell's single line break leaves its row short of cells: the next line completes it
    page = page_input_from_file("guidance--new-style-employment-and-support-allowance.json")
    assert "Your situation: Your pension income" not in page.text


def test_a_row_of_sentences_is_one_unit_with_its_heads_and_lead_in_and_no_value():
    for name, benefit in (
        ("guidance--new-style-jobseekers-allowance.json", "JSA"),
        ("guidance--new-style-employment-and-support-allowance.json", "ESA"),
    ):
        units = corpus_units(name)
        [row] = _units(units, "Between you, you and your partner have more than £16,000")
        assert row.value_amount is None and row.unit_type in ("eligibility", "rule")
        assert f"New Style {benefit}: You can " in row.text and "Universal Credit: " in row.text
        assert "table shows what you may be able to claim" in row.text
        assert not [u for u in units if u.value_amount == 16000]


def test_a_dates_table_row_keeps_its_lead_in_and_each_date_its_year():
    units = corpus_units("child-benefit-payment-dates.json")
    [row] = _units(units, "Due date: 21 April 2025")
    assert "Payment date: 17 April 2025" in row.text
    assert "paid on a different date than usual if it's due on a bank holiday" in row.text
    assert row.evidence_quote == "Due date: 21 April 2025; Payment date: 17 April"
    # brought forward over new year, a payment stays in the old year
    assert with_row_years("Due: 1 January 2025; Paid: 31 December") == (
        "Due: 1 January 2025; Paid: 31 December 2024"
    )
    assert linearise_row(["Due date"], ["5 May 2025"]) == "Due date: 5 May 2025"


def test_a_list_of_conditions_with_figures_is_eligibility_without_a_value():
    units = corpus_units("options-for-dealing-with-your-debts.json")
    [criteria] = _units(units, "eligible if you meet all of these criteria")
    assert criteria.unit_type == "eligibility" and criteria.value_amount is None
    assert "£75 a month spare income" in criteria.text and "£4,000 or more" in criteria.text
    assert not [u for u in units if u.value_amount and "these criteria" in u.evidence_quote]

    units = corpus_units("benefit-cap.json")
    [exempt] = _units(units, "You're not affected by the cap if you or your partner:")
    assert exempt.unit_type == "eligibility" and exempt.value_amount is None
    assert "£793 or more a month" in exempt.text
    assert not [u for u in units if u.value_amount == 0]
    assert states_conditions("You'll get the grace period if all of the following are true:")
    assert not states_conditions("You can get up to:")


def test_a_lead_in_pointing_back_is_stated_with_the_sentence_it_points_to():
    units = corpus_units(
        "guidance--find-out-about-money-taken-off-your-universal-credit-payment.json"
    )
    [unit] = _units(units, "You may be considered for this if you have money taken")
    assert unit.text.startswith("If you're struggling, you can ask for a financial hardship")
    assert unit.evidence_quote.startswith("If you're struggling")


def test_a_shortened_name_is_stated_with_the_sentence_giving_it_in_full():
    units = corpus_units("employment-support-allowance.json")
    [unit] = _units(units, "The cap will not affect you if you're in the support group.")
    assert "The benefit cap may affect the total amount" in unit.text
    assert shortens_a_name("The charge is 1%.", "the High Income Child Benefit Charge")
    assert not shortens_a_name("The amount depends on it.", "the total amount you get")


def test_a_bare_example_label_and_a_forms_notes_are_no_units():
    units = corpus_units("benefit-cap.json")
    assert not [u for u in units if u.text.rstrip().endswith("Example")]
    [example] = [u for u in units if "Your 9 month grace period starts on 1 February" in u.text]
    assert example.unit_type == "example" and "will end on 31 October" in example.text

    units = corpus_units("housing-benefit.json")
    assert not [u for u in units if u.value_amount == 100]  # the example's eligible rent
    assert not _units(corpus_units("maternity-allowance.json"), "The form has notes")
    assert is_navigation("The form has notes to help you fill it in.")
    assert not is_navigation("The form must be signed by your employer.")
    # a signpost to "other benefits" with nothing about which, or who gets them
    assert is_navigation("If you get Universal Credit, you could be eligible for other benefits.")
    assert not is_navigation("You could be eligible for other benefits if you care for someone.")


def test_a_list_keeps_the_sentence_after_it_that_narrows_it():
    units = corpus_units("guidance--universal-credit-advances.json")
    [unit] = _units(units, "Repayments can be delayed for:")
    assert unit.text.endswith("This is only allowed in exceptional circumstances.")
    assert unit.evidence_quote.endswith("This is only allowed in exceptional circumstances.")
    assert qualifies_before("This is only allowed in exceptional circumstances.")
    assert not qualifies_before("This guide is also available in Welsh.")


def test_a_fact_under_a_heading_that_narrows_it_keeps_the_heading():
    units = corpus_units("pip.json")
    [unit] = _units(units, "You need to apply for Adult Disability Payment (ADP) instead of PIP.")
    assert unit.text.startswith("If you live in Scotland: ")
    assert not _units(units, "Personal Independence Payment (PIP) > You need to apply for ADP")

    heading = "What you'll get > If you or your partner earn over £60,000"
    stated = "You may have to pay the charge if your adjusted net income is over £60,000."
    assert condition_headings(heading, stated) == []  # the text states it: not twice
    assert condition_headings("Eligibility > Northern Ireland", "You can claim by phone.") == [
        "Northern Ireland"
    ]
    assert condition_headings("How to claim > Claim by post", "You can claim by post.") == []


def test_a_name_shortened_further_on_is_stated_in_full():
    before = "The benefit cap limits the total amount of benefit you can get."
    sentence = "If you're affected by the cap, you'll still get your Child Benefit."
    assert shortened_name(sentence, before) == "benefit cap"
    assert shortened_name("You pay it at the end of the tax year.", "Income Tax is due.") == ""
    assert shortened_name("The benefit cap will not affect you.", before) == ""

    [unit] = _units(corpus_units("child-benefit.json"), "If you're affected by the cap")
    assert unit.text.startswith("benefit cap: If you're affected by the cap")
    assert unit.evidence_quote.startswith("If you're affected by the cap")  # the page's words


def test_a_sentence_pointing_back_to_a_list_or_an_earlier_figure_leans_back():
    assert leans_back("No more payments will be made after that.")
    assert leans_back("If you do not have these, you can call the helpline.")
    assert leans_back("You may get it if you get one of the benefits above.")
    assert leans_back("You do not need to pay the difference.")
    assert not leans_back("Income above £100,000 is taxed at 45%.")
    assert not leans_back("You can claim if you're aged 16 or over.")


def test_a_cut_off_page_loses_its_unfinished_last_sentence_only():
    name = "tax-on-your-private-pension--pension-tax-relief--undated-earlier.json"
    page = page_input_from_file(name)
    assert page.cut_off and page.text.endswith("at 20% when som")
    texts = [unit.text for unit in corpus_units(name)]
    assert not [text for text in texts if "when som" in text]
    assert [text for text in texts if "You can't claim tax relief if your pension provider" in text]

    assert finished_text("A rule.\nYou get 20% when som") == "A rule."
    assert finished_text("A rule.\nThis is one. If it is, the calcul") == "A rule.\nThis is one."
    assert finished_text("A rule.\nA whole one.") == "A rule.\nA whole one."


def test_a_short_name_is_named_by_its_words_together_not_scattered():
    text = "Council rent: How much you get depends on your income, including benefits"
    assert not names_subject(f"social housing {text}", "Housing Benefit")
    assert names_subject("You can get Housing Benefit to help pay your rent", "Housing Benefit")
    assert names_subject("You may get UC if you're on a low income", "Universal Credit (UC)")
    units = _units(corpus_units("housing-benefit.json"), "How much you get depends on")
    assert units and all(unit.text.startswith("Housing Benefit > ") for unit in units)


def test_a_sentence_saying_do_this_leans_back():
    assert leans_back("There's no Inheritance Tax to pay if you do this.")
    assert leans_back("You can apply for this.")
    assert not leans_back("You can apply online.")


def test_a_paragraph_after_an_example_line_is_an_example():
    units = _units(corpus_units("national-minimum-wage-rates.json"), "An apprentice aged 21")
    assert units and all(unit.unit_type == "example" for unit in units)


def test_conditions_that_hold_together_under_an_eligibility_heading_say_who_qualifies():
    [unit] = _units(corpus_units("advanced-learner-loan.json"), "be living in the UK on the first")
    assert unit.unit_type == "eligibility"


def test_a_figure_printed_with_its_period_elsewhere_on_the_page_keeps_it():
    units = corpus_units("child-benefit--what-youll-get--2024-25.json")
    [unit] = _units(units, "you'll get £16.95 a week for each child")
    assert unit.value_period == "week"

    # "one-off" is read from a statement's words, not its figure: a stray "one-off payments"
    # item makes one £6,000 unit one-off, and the other £6,000 units stay without a period
    units = _units(corpus_units("employment-support-allowance.json"), "£6,000 or more")
    assert [unit.value_period for unit in units if "one-off" not in unit.text] == [None, None]
