"""A page's line saying who cannot get what it offers, by age or income, narrows the page's
other statements of it to the people who can (real gov.uk pages, read as the pipeline reads
them)."""

from decimal import Decimal

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.text.exclusions import exclusions_read
from tests.knowledge.test_applicability import _of, _read

SAVINGS = "apply-tax-free-interest-on-savings--how-much-tax-you-pay--2021-22-or-later.json"


def test_a_named_allowance_someone_is_not_eligible_for_narrows_its_sections_statements():
    read = _read(SAVINGS)
    five_thousand = _of(read, "This is your starting rate for savings")
    # "£17,570 or more" excludes £17,570 itself
    assert five_thousand.income_max == Decimal("17569.99")
    fit = profile_fit(five_thousand, Person(annual_income=Decimal(17_570)))
    assert fit.applies is False and fit.reason == "for incomes up to £17,569.99 a year"
    # a statement naming the allowance only in the heading written before it is not narrowed
    assert _of(read, "Starting rate for savings: Your Personal Allowance is").income_max is None
    # the line itself keeps its own reading (the sub-heading above it is no unit)
    assert _of(read, "You're not eligible for the starting rate").income_min == Decimal(17570)
    # another allowance on the page, which the line does not name, is not narrowed
    assert _of(read, "get up to £1,000 of interest").income_max is None


def test_a_line_naming_nothing_narrows_what_its_page_offers():
    read = _read("check-eligible-free-childcare-if-youre-working.json")
    assert _of(read, "you can get 30 hours per week").income_max == Decimal(100_000)
    # what another scheme offers, or a statement offering nothing, is not the page's subject
    assert _of(read, "under a separate scheme").income_max is None
    assert _of(read, "Over the next 3 months you and your partner").income_max is None


def test_an_age_exclusion_narrows_only_the_section_that_states_it():
    read = _read("student-finance.json")
    section = (
        "If your course starts on or after 1 August 2018 > Maintenance Loan for living costs: "
    )
    part_time = {
        text.split(section, 1)[1]: applies
        for text, applies in read
        if section in text and "not eligible" not in text
    }
    naming = [t for t in part_time if "Maintenance Loan" in t]
    assert naming and all(part_time[t].age_max == 59 for t in naming)
    # "You have to pay the loan back." names it only by the section's heading: not narrowed
    assert part_time["You have to pay the loan back."].age_max is None
    # full-time students' Maintenance Loan statements are another section's
    assert _of(read, "New full-time students > Maintenance Loan for living costs").age_max is None
    # and a Tuition Fee Loan has no upper age limit
    assert (
        _of(read, "Part-time students > If your course starts on or after 1 August").age_max is None
    )


def test_only_a_lone_age_or_income_bound_is_read_as_an_exclusion():
    lines = [
        (["Eligibility"], "You will not be eligible if your child does not usually live with you."),
        (["Eligibility"], "You cannot get it if you're under 18 and live in Scotland."),
        (["Rates"], "You're not eligible for a grant if you earn over £40,000."),
    ]
    [found] = exclusions_read(lines)
    assert (found.subject, found.bound, found.value) == ("grant", "income_max", Decimal(40_000))
