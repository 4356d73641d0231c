"""Dates by rule, on real corpus pages: academic years are not tax years, a figure takes the
period stated beside it, a rule takes a date only when its sentence opens with it, and a
page that says what period its rates are in gives that period to its figures."""

import datetime as dt

from tests.knowledge.test_extraction_context import corpus_units


def _day(value):
    return dt.date.fromisoformat(value) if value else None


def test_an_academic_year_runs_from_august_to_july():
    units = corpus_units("student-finance.json")
    by_year = {
        int(u.value_amount): (_day(u.valid_from), _day(u.valid_to))
        for u in units
        if u.value_amount is not None and "outside London" in u.text and "Maintenance" in u.text
    }
    assert by_year[9978] == (dt.date(2023, 8, 1), dt.date(2024, 7, 31))
    assert by_year[10227] == (dt.date(2024, 8, 1), dt.date(2025, 7, 31))
    loans = [u for u in units if u.value_amount in (9978, 10227) and "Maintenance" in u.text]
    assert {u.value_period for u in loans} == {"year"}  # an academic year's amount


def test_each_figure_takes_the_period_stated_beside_it():
    units = corpus_units("benefit-cap.json")
    # "The threshold was £722 up to 7 April 2024 and is £793 from 8 April 2024.": two facts,
    # each quoted by its own clause of the sentence
    clauses = ("The threshold was £722 up to 7 April 2024", "£793 from 8 April 2024.")
    by_value = {int(u.value_amount): u for u in units if u.evidence_quote.endswith(clauses)}
    assert (by_value[722].valid_from, by_value[722].valid_to) == (None, "2024-04-07")  # "up to"
    assert (by_value[793].valid_from, by_value[793].valid_to) == ("2024-04-08", None)


def test_a_date_inside_a_rule_is_not_its_start():
    units = corpus_units("marriage-allowance--how-it-works--2017-18.json")
    [unit] = [u for u in units if "any tax year since 5 April 2015" in u.evidence_quote]
    assert (unit.valid_from, unit.valid_to) == (None, None)


def test_a_rule_does_not_take_a_date_from_the_sentence_before_it():
    units = corpus_units("benefit-cap.json")
    rules = [u for u in units if u.unit_type != "threshold" and "grace period" in u.text]
    assert rules
    assert all(u.valid_to is None for u in rules if "7 April 2024" not in u.evidence_quote[:40])


def test_a_page_that_states_its_rates_per_hour_gives_its_table_figures_that_period():
    units = corpus_units("national-minimum-wage-rates.json")
    rows = [u for u in units if u.unit_type == "threshold" and "21 and over: £" in u.text]
    assert rows and {u.value_period for u in rows} == {"hour"}


def test_a_figure_with_its_period_before_it_keeps_it():
    units = corpus_units("student-finance.json")
    [unit] = [u for u in units if u.evidence_quote.endswith("£6,935 in an academic year.")][:1]
    assert unit.value_period == "year"


def test_a_row_for_one_day_holds_for_that_day():
    units = corpus_units("child-benefit-payment-dates.json")
    rows = [u for u in units if u.evidence_quote.startswith("Due date: 5 May 2025")]
    assert rows and {(u.valid_from, u.valid_to) for u in rows} == {("2025-05-05", "2025-05-05")}


def test_a_plain_text_table_row_takes_its_period_from_the_column_heads_above():
    units = corpus_units("child-benefit--what-youll-get--2024-25.json")
    [row] = [u for u in units if u.evidence_quote == "Eldest or only child £25.60"]
    assert row.value_period == "week"  # "Who the allowance is for Rate (weekly)"


def test_a_figure_for_a_named_tax_year_is_yearly():
    from knowledge.text.amounts import period_in

    assert period_in("You can save up to £20,000 in ISAs in the 2024 to 2025 tax year.") == "year"
    assert period_in("You can save £20,000 until the end of the tax year") == ""
    assert period_in("The maximum is £3,354 for the 2023 to 2024 academic year.") == "year"


def test_before_excludes_its_day_and_up_to_includes_it():
    from knowledge.text.dates import find_validities

    [before] = find_validities("the rate before 8 April 2024")
    [up_to] = find_validities("the rate up to 7 April 2024")
    assert before.valid_to == up_to.valid_to == dt.date(2024, 4, 7)


def test_a_tax_year_onwards_has_no_end():
    from knowledge.text.dates import find_validities

    [onwards] = find_validities("From tax year 2024 to 2025 onwards: if you earn more than £60,000")
    assert (onwards.valid_from, onwards.valid_to) == (dt.date(2024, 4, 6), None)
    [closed] = find_validities("In the 2024 to 2025 tax year you can save £20,000")
    assert closed.valid_to == dt.date(2025, 4, 5)


def test_a_limit_with_no_period_on_a_page_that_counts_no_years_stays_open():
    units = corpus_units("options-for-dealing-with-your-debts.json")
    limits = [u for u in units if u.value_amount is not None and "less than £5,000" in u.text]
    assert limits and {(u.valid_from, u.valid_to) for u in limits} == {(None, None)}
    # a figure whose sentence names its year takes it ("over £60,000 for the tax year 2024 to
    # 2025"); one that names none gets no period from the page's last update date, which never
    # dates a figure (a yearly one is dated by its capture where it is stored: test_dating)
    hicbc = [u for u in corpus_units("child-benefit-tax-charge.json") if u.value_amount]
    assert any(u.valid_from for u in hicbc)
    uc = corpus_units("universal-credit.json")
    [disabled_child] = [u for u in uc if str(u.value_amount) == "487.58"]
    assert disabled_child.valid_from is None


def test_a_date_in_the_clause_of_what_a_claimant_did_is_not_the_figures_period():
    units = corpus_units("universal-credit.json")
    found = [u for u in units if "3 April 2017" in u.evidence_quote and u.value_amount]
    assert found and {str(u.value_amount) for u in found} == {"156.11"}
    # the claim's start is a condition on the claimant
    assert not [u for u in found if u.valid_to == "2017-04-02"]
