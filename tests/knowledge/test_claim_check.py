"""Checking one claim against hand-built evidence: another figure contradicts a claim only
when it is the figure of the same thing (a word beside it is beside the claim's figure) and
of the same period."""

import datetime as dt
from decimal import Decimal

from knowledge.models import AtomicUnit
from knowledge.reading.aboutness import Cuts
from knowledge.reading.claims import answer_claims
from knowledge.reading.unit_figures import figure_context
from knowledge.verification.check import claim_verify
from knowledge.verification.evidence import Evidence


def _evidence(text: str, amount: str, period: str = "week", similarity: float = 0.8):
    unit = AtomicUnit(
        unit_type="threshold",
        text=text,
        value_amount=Decimal(amount),
        value_unit="GBP",
        value_period=period,
    )
    return [Evidence(unit, similarity, "current")]


# The units here are taken to be about the claim as much as their similarity says; the cuts
# are those a reading could choose.
CUTS = Cuts(about=0.5, margin=0.05, meaning=0.6)
TODAY = dt.date(2026, 12, 7)


def _verdict(answer: str, evidence, day=None) -> tuple[str, str]:
    (claim,) = answer_claims(answer)
    for found in evidence:
        found.about = found.similarity
    about = sorted(evidence, key=lambda e: -e.about)
    found = claim_verify(claim, about, evidence, cuts=CUTS, cited=set(), day=day or TODAY)
    return found.verdict, found.reason


def test_another_figure_of_the_same_thing_contradicts():
    evidence = _evidence("Voluntary Class 3 contributions cost £17.45 a week.", "17.45")
    assert _verdict("Class 3 contributions cost £15.85 a week.", evidence) == (
        "contradicted",
        "value_differs",
    )


def test_a_figure_of_something_else_on_the_page_does_not_contradict():
    earnings_limit = _evidence(
        "If you earn less than £123 a week from one job, you can choose to pay voluntary "
        "Class 3 contributions.",
        "123",
    )
    assert _verdict("Voluntary Class 3 contributions cost £17.45 a week.", earnings_limit) == (
        "unsupported",
        "no_fact_found",
    )


def test_a_weekly_figure_is_not_another_value_of_a_monthly_one():
    weekly = _evidence("Couples: personal allowance £142.25 a week", "142.25")
    assert _verdict("A couple gets a personal allowance of £498.89 a month.", weekly) == (
        "unsupported",
        "no_fact_found",
    )


def test_figure_context_reads_the_words_and_numbers_beside_a_figure():
    text = "National Minimum Wage: 18 to 20: £10.00 an hour from April 2025"
    start = text.index("£")
    context = figure_context(text, start, start + len("£10.00"))
    assert {"18", "20", "minim", "wage", "april"} <= context
    assert "hour" not in context  # the period is compared on its own


def test_the_digits_of_other_amounts_are_not_what_a_figure_is_about():
    text = "Income over £125,140 is taxed at 45% in the additional rate band"
    start = text.index("45%")
    context = figure_context(text, start, start + 3)
    assert "125" not in context and "140" not in context
    assert {"taxed", "addit"} <= context


def test_a_figure_of_another_numbered_variant_does_not_contradict():
    class_2 = _evidence("Class 2 contributions cost £3.45 a week.", "3.45")
    assert _verdict("Class 3 contributions cost £17.45 a week.", class_2) == (
        "unsupported",
        "no_fact_found",
    )
    class_3 = _evidence("Class 3 contributions cost £17.45 a week.", "17.45")
    assert _verdict("Class 3 contributions cost £3.45 a week.", class_3)[0] == "contradicted"


def _count_evidence(text: str):
    unit = AtomicUnit(unit_type="rule", text=text)
    return [Evidence(unit, 0.8, "current")]


def test_lengths_of_time_compare_whatever_they_are_counted_in():
    days = _count_evidence("New Style Jobseeker's Allowance is paid for up to 182 days.")
    assert (
        _verdict("New Style Jobseeker's Allowance is paid for up to 26 weeks.", days)[0]
        == "supported"
    )
    assert _verdict("New Style Jobseeker's Allowance is paid for up to 12 months.", days) == (
        "contradicted",
        "value_differs",
    )


def test_how_often_a_payment_comes_compares_in_any_words():
    four_weekly = _count_evidence("PIP is usually paid every 4 weeks into your bank account.")
    for said in (
        "PIP is paid every four weeks.",
        "PIP is paid four-weekly.",
        "PIP is paid 4 weekly.",
    ):
        assert _verdict(said, four_weekly)[0] == "supported", said
    for said in ("PIP is paid monthly.", "PIP is paid once a month.", "PIP is paid fortnightly."):
        assert _verdict(said, four_weekly) == ("contradicted", "value_differs"), said
    weekly = _count_evidence("Child Benefit can be paid weekly if you're a single parent.")
    assert _verdict("Child Benefit is paid every week.", weekly)[0] == "supported"


def test_an_amount_a_week_is_not_a_frequency():
    (claim,) = answer_claims("Child Benefit is £25.60 a week.")
    assert [f.unit for f in claim.figures] == ["GBP"]


def test_ages_on_the_two_sides_of_one_boundary_agree():
    over = _count_evidence("Jobseeker's Allowance: age 25 or over gets the higher amount.")
    assert _verdict("Jobseeker's Allowance pays the lower amount if you're 24 or under.", over)[
        0
    ] == ("supported")
    assert _verdict("Jobseeker's Allowance pays the higher amount if you're 23 or over.", over)[
        0
    ] == ("contradicted")


def test_a_unit_its_page_no_longer_states_neither_supports_nor_dates_a_figure():
    (gone,) = _evidence("Claim the extra 20% relief in your Self Assessment return.", "20")
    gone = Evidence(gone.unit, gone.similarity, "unconfirmed")
    verdict, reason = _verdict(
        "You claim the extra 20% relief in your Self Assessment return.", [gone]
    )
    assert (verdict, reason) == ("unsupported", "no_fact_found")


def test_a_condition_before_a_comma_stays_with_its_rule():
    answer = "If you pay Income Tax at 40%, you claim the extra 20% relief in your tax return."
    assert [c.text for c in answer_claims(answer)] == [answer.rstrip(".")]


def test_a_unit_further_away_supports_a_figure_printed_beside_the_claims_words():
    further = CUTS.about + 0.02  # about the claim, but no more than just
    loan = _evidence(
        "Budgeting Loans: You could get up to £812 if you or your partner claim Child Benefit.",
        "812",
        period="",
        similarity=further,
    )
    claim = "A Budgeting Loan can be up to £812 if you or your partner claim Child Benefit."
    assert _verdict(claim, loan) == ("supported", "value_matches")
    elsewhere = _evidence("Funeral costs: £812 is the most.", "812", period="", similarity=further)
    assert _verdict(claim, elsewhere) == ("unsupported", "no_fact_found")


GRANT = "Adult Dependants' Grant of up to: £3,438 for the 2024 to 2025 academic year; £3,354 for the 2023 to 2024 academic year"


def test_up_to_is_a_bound_not_a_rounding():
    grant = _evidence("The maximum Adult Dependants' Grant is up to £3,438.", "3438", period="")
    assert _verdict("The Adult Dependants' Grant is up to £3,354.", grant)[0] == "contradicted"
    assert _verdict("The Adult Dependants' Grant is about £3,400.", grant)[0] == "supported"


def test_a_figure_printed_for_another_years_span_is_not_in_force():
    both_years = _evidence(GRANT, "3438", period="")
    claim = "An Adult Dependants' Grant can give up to £3,354 for 2024-25."
    # the figure in force that day is the 2024 to 2025 one, and it is another
    assert _verdict(claim, both_years, day=dt.date(2024, 10, 1)) == (
        "contradicted",
        "value_differs",
    )
    assert _verdict(claim, both_years, day=dt.date(2024, 2, 1))[0] == "supported"  # 2023 to 2024
    open_span = _evidence(
        "The charge starts over £50,000 for tax years up to and including 2023 to 2024.",
        "50000",
        period="",
    )
    assert _verdict("The charge starts over £50,000.", open_span, day=dt.date(2019, 10, 1))[0] == (
        "supported"
    )


def test_a_structured_value_the_text_does_not_print_is_not_a_fact():
    slipped = _evidence("The maximum Adult Dependants' Grant is £3,438.", "3354", period="")
    assert _verdict("The maximum Adult Dependants' Grant is £3,354.", slipped)[0] == "contradicted"


def test_a_figure_in_force_far_less_about_the_claim_than_the_years_held_does_not_decide():
    """SSP's rate for a year the knowledge base does not hold: the rates of the years it does
    hold are what the claim is about; the eligibility rule's £123 earnings, in force, is not."""
    held = []
    for start, amount, about in (
        (dt.date(2020, 4, 6), "95.85", 0.78),
        (dt.date(2024, 4, 6), "116.75", 0.77),
    ):
        (found,) = _evidence(f"Statutory Sick Pay is £{amount} per week.", amount)
        found.unit.valid_from, found.unit.valid_to = start, start.replace(year=start.year + 1)
        found.temporal_status = "outdated" if start.year < 2022 else "upcoming"
        found.about = found.similarity = about
        held.append(found)
    (earnings,) = _evidence(
        "To get Statutory Sick Pay you must earn at least £123 per week.", "123"
    )
    earnings.about = earnings.similarity = 0.55
    evidence = [*held, earnings]
    (claim,) = answer_claims("Statutory Sick Pay for 2022-23 is £99.35 a week.")
    day = dt.date(2022, 10, 1)
    for behind, expected in ((1.0, "value_differs"), (0.2, "not_held")):
        cuts = Cuts(about=0.5, margin=0.05, meaning=0.6, behind=behind)
        found = claim_verify(claim, evidence, evidence, cuts=cuts, cited=set(), day=day)
        assert found.reason == expected
    assert found.verdict == "unsupported" and "2022" in found.explanation
    assert "£95.85" in found.explanation and "£116.75" in found.explanation
