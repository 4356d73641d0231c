"""Claim checking's parts on their own: what a claim is split into, the ages a clause bounds,
the comparison of a figure with a unit's, the run of a stable figure, and the day a claim's
sentence names. No database: units are built in memory."""

import datetime as dt
from decimal import Decimal

from knowledge.models import AtomicUnit
from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import answer_claims, masked
from knowledge.reading.compare import (
    DIFFERS,
    NOT_COMPARABLE,
    SAME,
    figure_compared,
    unit_clause,
)
from knowledge.text.ages_incomes import age_bounds
from knowledge.text.question_dates import date_in_words
from knowledge.verification.holdings import stable

TODAY = dt.date(2026, 12, 7)


def _unit(text: str, **fields) -> AtomicUnit:
    return AtomicUnit(unit_type=fields.pop("unit_type", "threshold"), text=text, **fields)


def _compared(claim_text: str, unit_text: str, day=None, **fields):
    (claim,) = answer_claims(claim_text)
    return figure_compared(claim, claim.figures[0], _unit(unit_text, **fields), day)


def test_a_yes_or_no_claim_is_a_claim_and_joined_statements_are_two():
    assert [c.text for c in answer_claims("Yes, you can open a Lifetime ISA.")] == [
        "Yes, you can open a Lifetime ISA"
    ]
    joined = answer_claims(
        "You can only pay into one cash ISA per tax year, and the total allowance is £20k."
    )
    assert [c.text for c in joined] == [
        "You can only pay into one cash ISA per tax year",
        "the total allowance is £20k",
    ]
    assert [c.text for c in answer_claims("I hope this helps!")] == []
    # "while" leads a condition in, it does not join a second statement
    condition = "You keep the full Personal Allowance while you earn under £100,000."
    assert [c.text for c in answer_claims(condition)] == [condition.rstrip(".")]


def test_a_claim_is_searched_without_its_figures():
    assert masked("The ISA allowance is £15,000 a year.") == "The ISA allowance is a year."


def test_ages_are_read_as_the_bounds_of_their_clause():
    assert age_bounds("18 or over but under 40 for a Lifetime ISA") == (18, 39)
    assert age_bounds("for people aged 18 to 49") == (18, 49)
    assert age_bounds("under 16") == (None, 15)
    assert age_bounds("for up to 39 weeks") is None


def test_ages_compare_by_the_lines_they_draw():
    lifetime = "You must be: 16 or over for a cash ISA; 18 or over but under 40 for a Lifetime ISA"
    wider = _compared("A Lifetime ISA is for people aged 18 to 49.", lifetime)
    assert (wider.relation, wider.shown) == (DIFFERS, "aged 18 to 39")
    one_line = _compared("You must be under 40 to open a Lifetime ISA.", lifetime)
    assert one_line.relation == SAME


def test_a_units_clause_about_the_claim_is_whole_and_its_figures_too():
    (claim,) = answer_claims("A Lifetime ISA is for people aged 18 to 49.")
    lists = _unit(
        "Who can open an ISA: You must be: 16 or over for a cash ISA; 18 or over but under 40 "
        "for a Lifetime ISA. Rates: the eldest child gets £25.60 a week"
    )
    assert unit_clause(claim, lists) == "18 or over but under 40 for a Lifetime ISA"
    (rate,) = answer_claims("The eldest child gets £25.60 a week.")
    assert unit_clause(rate, lists) == "the eldest child gets £25.60 a week"


def test_a_figure_is_compared_with_the_unit_figure_said_of_the_same_thing():
    row = "Who the allowance is for: Eldest or only child £25.60; Additional children £16.95"
    assert _compared("The eldest child gets £25.60 a week.", row).relation == SAME
    eldest = _compared("The eldest child gets £26.05 a week.", row)
    assert (eldest.relation, eldest.shown) == (DIFFERS, "£25.60")


def test_what_a_unit_does_not_say_of_the_claims_thing_is_not_compared():
    income = "If you or your partner earn over £60,000: High Income Child Benefit Charge applies."
    assert _compared("Child Benefit is £26.05 a week for the eldest child.", income).relation == (
        NOT_COMPARABLE
    )
    example = "Example: you could save £11,000 in a cash ISA and £9,000 in a Lifetime ISA."
    assert _compared("You can save £20,000 in a cash ISA.", example).relation == NOT_COMPARABLE


def test_a_figure_printed_for_another_year_is_not_the_days():
    grant = "Adult Dependants' Grant: £3,438 for the 2024 to 2025 academic year; £3,354 for the 2023 to 2024 academic year"
    claim = "The Adult Dependants' Grant is £3,354 for an academic year."
    assert _compared(claim, grant, day=dt.date(2023, 10, 1)).relation == SAME
    assert _compared(claim, grant, day=dt.date(2024, 10, 1)).relation == DIFFERS


def _held(amount: str, start: int, end: int) -> Evidence:
    unit = _unit(
        f"You can save up to £{amount}.",
        value_amount=Decimal(amount),
        valid_from=dt.date(start, 4, 6),
        valid_to=dt.date(end, 4, 5),
    )
    return Evidence(unit, 0.8, "historical")


def test_a_figure_the_same_over_three_years_or_more_is_stable():
    run = stable([_held("20000", 2017, 2024), _held("20000", 2024, 2025)])
    assert run == (dt.date(2017, 4, 6), dt.date(2025, 4, 5))
    assert stable([_held("25.60", 2024, 2025)]) is None
    assert stable([_held("20000", 2017, 2018), _held("20000", 2020, 2021)]) is None  # a gap


def test_a_claims_day_is_a_year_its_sentence_names_not_a_date_in_its_rule():
    said = date_in_words("For 2023-24 you got £24.00.", today=TODAY, kinds=("span", "relative"))
    assert said.day == dt.date(2023, 10, 1)
    rule = "You can claim if your partner died before 6 April 2017."
    assert date_in_words(rule, today=TODAY, kinds=("span", "relative")) is None


def test_a_unit_about_the_quantity_printing_the_claims_very_figure_states_it():
    # No word beside the claim's figure is beside the unit's: its very figure is still the
    # claim's; a figure it does not print is never supported by it.
    pay = "How much you pay > If you're employed: Your pay: £242 to £967 a week (£1,048 to £4,189 a month); 8%"
    claim = "Employees pay 8% on earnings between £242 and £967 a week."
    (read,) = answer_claims(claim)
    lower = next(f for f in read.figures if f.printed == "£242")
    assert figure_compared(read, lower, _unit(pay)).relation == SAME
    other = "Employees pay 8% on earnings between £250 and £967 a week."
    (read,) = answer_claims(other)
    lower = next(f for f in read.figures if f.printed == "£250")
    assert figure_compared(read, lower, _unit(pay)).relation != SAME


def test_a_year_a_later_claim_of_the_sentence_names_is_that_claims():
    from knowledge.verification.check import _claim_day

    answer = "The higher rate of income tax is 40%, and the same rates apply for 2025-26."
    first, second = answer_claims(answer)
    assert _claim_day(first, answer, TODAY, later=[second]) == TODAY
    assert _claim_day(second, answer, TODAY) == dt.date(2025, 10, 1)
    leading = "In 2024-25 employees pay 8% between £242 and £967 a week, and 2% above £967."
    first, second = answer_claims(leading)
    assert _claim_day(first, leading, TODAY, later=[second]) == dt.date(2024, 10, 1)
    assert _claim_day(second, leading, TODAY) == dt.date(2024, 10, 1)


def test_several_figures_of_one_measure_are_compared_as_the_best_pairing_of_them_all():
    home = (
        "How Inheritance Tax works > Passing on a home: your tax-free threshold can increase "
        "to £500,000 if you leave it to your children and your estate is worth less than "
        "£2 million."
    )
    claim = (
        "If you leave your home to your children, your tax-free threshold can rise to "
        "£500,000, as long as the estate is worth less than £2 million."
    )
    (read,) = answer_claims(claim)
    assert [figure_compared(read, f, _unit(home)).relation for f in read.figures] == [SAME, SAME]
    swapped = (
        "If you leave your home to your children, your tax-free threshold can rise to "
        "£2 million, as long as the estate is worth less than £500,000."
    )
    (read,) = answer_claims(swapped)
    compared = [figure_compared(read, f, _unit(home)) for f in read.figures]
    assert [(c.relation, c.shown) for c in compared] == [
        (DIFFERS, "£500,000"),
        (DIFFERS, "£2 million"),
    ]


def test_an_example_of_a_kind_of_thing_does_not_make_a_units_figures_an_example():
    abroad = (
        "Going abroad for a short time: Reason for leaving: Any other reason, for example "
        "holidays or business; How long you can get Child Benefit payments for: Up to 8 weeks"
    )
    claim = "You keep getting Child Benefit for up to 8 weeks if you go abroad on holiday."
    assert _compared(claim, abroad).relation == SAME
    given = "You pay tax on your savings interest, for example £200 if you earn £1,200 interest."
    assert _compared("You pay £200 tax on your savings interest.", given).relation == (
        NOT_COMPARABLE
    )
