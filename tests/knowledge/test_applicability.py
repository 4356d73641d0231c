"""Who a unit is for, read from real gov.uk pages as the pipeline reads it (the unit's words,
its heading path in the page's sections, the page), and compared with a person's profile."""

import datetime as dt
from decimal import Decimal

import pytest

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.text.applicability import Applicability, applicability_read
from knowledge.text.evidence import locate_quote
from knowledge.text.exceptions import page_reading, statement_applicability
from knowledge.text.nations import page_lines, page_nations_read
from knowledge.text.sections import section_at
from tests.knowledge.test_extraction_context import corpus_units, page_input_from_file


def _read(name: str) -> list[tuple[str, Applicability]]:
    """(unit text, applicability) of each unit the heuristic extractor makes of the page, read
    as the pipeline reads it (knowledge.services.applicability)."""
    page = page_input_from_file(name)
    reading = page_reading(page.title, page_lines(page.text, page.sections))
    read = []
    for unit in corpus_units(name):
        start = locate_quote(unit.evidence_quote, page.text).start
        heading_path = (section_at(page.sections, start) or {}).get("heading_path") or []
        applies = statement_applicability(
            unit.text, heading_path=heading_path, page=reading, unit_type=unit.unit_type
        )
        read.append((unit.text, applies))
    return read


def _of(read, fragment: str) -> Applicability:
    found = [applies for text, applies in read if fragment in text]
    assert found, f"no unit holds {fragment!r}"
    return found[0]


def test_a_heading_naming_a_nation_narrows_the_units_under_it():
    read = _read("universal-credit.json")
    assert _of(read, "You can get paid once or twice a month").nations == {"scotland"}
    # a nation named inside a sentence about everyone does not narrow it
    assert (
        _of(read, "It's paid monthly - or twice a month for some people in Scotland").nations
        == set()
    )


def test_a_page_whose_subject_one_nation_cannot_get_is_for_the_others():
    read = _read("sure-start-maternity-grant.json")
    scotland_sentence = _of(
        read, "If you live in Scotland you cannot get a Sure Start Maternity Grant"
    )
    assert scotland_sentence.nations == {"scotland"}
    amount = _of(read, "Grant if you have twins: £500")
    assert amount.nations == {"england", "wales", "northern_ireland"}
    read = _read("pip.json")
    assert _of(
        read, "You need to apply for Adult Disability Payment (ADP) instead of PIP"
    ).nations == {"scotland"}
    assert "scotland" not in _of(read, "you're 16 or over").nations


def test_a_page_about_everyone_stays_uk_wide_but_for_a_section_different_elsewhere():
    """Only the statement that names a nation itself is narrowed to it, and the section that
    says it is different there ("How to claim": "There's a different way to apply in
    Northern Ireland.") is for the other nations."""
    read = _read("employment-support-allowance.json")
    assert _of(read, "If you're in Northern Ireland contact").nations == {"northern_ireland"}
    great_britain = {"england", "scotland", "wales"}
    assert _of(read, "You cannot apply online if you're applying as an appointee").nations == (
        great_britain
    )
    assert _of(read, "DWP will contact you within 10 working days").nations == great_britain
    assert not _of(read, "You can apply if you're employed, self-employed or unemployed").nations
    assert not _of(read, "more than £85 a week from a private pension").nations


def test_a_section_different_for_a_nation_or_for_the_self_employed_is_for_the_others():
    """Sure Start Maternity Grant, "How to claim > Claim by post": "There's a different form
    and postal address if you live in Northern Ireland." (the page is already for all but
    Scotland); Universal Credit, "How your wages affect your payments": "There are different
    rules if you're self-employed." A statement naming its own group keeps its reading."""
    grant = _read("sure-start-maternity-grant.json")
    by_post = _of(grant, "You will get a letter about whether your claim is successful")
    assert by_post.nations == {"england", "wales"}
    assert _of(grant, "Grant if you have twins: £500").nations == {
        "england",
        "wales",
        "northern_ireland",
    }
    credit = _read("universal-credit.json")
    taper = _of(credit, "your Universal Credit payment goes down by 55p")
    assert taper.employment == {"employed", "unemployed", "retired", "student"}
    self_employed = Person(employment="self_employed")
    fit = profile_fit(taper, self_employed)
    assert fit.applies is False and fit.reason == "not for people who are self-employed"
    assert profile_fit(taper, Person(employment="employed")).applies is True
    assert _of(
        credit, "only need to report monthly earnings if you're self-employed"
    ).employment == {"self_employed"}


def test_a_rate_tables_age_band_and_a_cells_income_bound():
    nmw = applicability_read(
        "Rates before 1 April 2021: April 2018 to March 2019; Under 18: £4.20 an hour"
    )
    assert (nmw.age_min, nmw.age_max) == (None, 17)
    band = applicability_read("April 2020 to March 2021; 18 to 20: £6.45 an hour")
    assert (band.age_min, band.age_max) == (18, 20)
    cell = applicability_read("Household income: £20,000 or less and you get maximum tax credits")
    assert cell.income_max == Decimal("20000")


def test_age_bounds_of_the_reader_not_of_their_children():
    read = _read("universal-credit.json")
    under = _of(read, "If you're single and under 25; Monthly standard allowance")
    over = _of(read, "If you're single and 25 or over; Monthly standard allowance")
    assert (under.age_min, under.age_max, under.partner) == (None, 24, False)
    assert (over.age_min, over.age_max, over.partner) == (25, None, False)
    # "18 or over (there are some exceptions if you're 16 to 17)": the exception widens it
    eligibility = _of(read, "be aged 18 or over")
    assert (eligibility.age_min, eligibility.age_max, eligibility.state_pension_age) == (
        16,
        None,
        "under",
    )
    ssmg = _read("sure-start-maternity-grant.json")
    assert _of(ssmg, "you must have no other children under 16").age_max is None
    esa = _read("employment-support-allowance.json")
    assert _of(esa, "up to £71.70 a week if you're aged under 25").age_max == 24


def test_an_age_bound_includes_its_number_when_the_page_says_or_under():
    uc = _read("universal-credit.json")
    assert _of(uc, "if you're 21 or under, studying any qualification").age_max == 21


def test_a_worked_examples_figures_are_not_who_it_is_for():
    read = _read("tax-on-dividends--overview--2024-25.json")
    assert _of(read, "8.75% tax on £2,500 of dividends").is_everyone()
    # but a worked example of one loan plan is for that plan's borrowers
    plan_1 = applicability_read(
        "Repay your student loan > Example: You're paid monthly and your income changes each "
        "month. This month your income was £2,000, which is over the Plan 1 monthly threshold "
        "of £1,682.",
        unit_type="example",
    )
    assert plan_1 == Applicability(student_loan_plans=frozenset({"plan_1"}))
    assert profile_fit(plan_1, Person(student_loan_plan="plan_2")).applies is False


def test_one_clause_bounds_narrow_each_other():
    applies = applicability_read("You must be 18 or over but under 40 to open a Lifetime ISA.")
    assert (applies.age_min, applies.age_max) == (18, 39)
    # a count of months or hours is not an age
    assert applicability_read(
        "You expect the difficulties to last for at least 12 months."
    ).is_everyone()


def test_income_bounds_are_yearly_and_read_the_negation():
    esa = _read("employment-support-allowance.json")
    work = _of(esa, "you do not earn more than £183.50 a week")
    assert (work.income_min, work.income_max) == (None, Decimal("183.50") * 52)
    assert _of(esa, "savings worth £6,000 or more").income_min is None  # savings, not income
    charge = applicability_read(
        "If you or your partner earn more than £60,000 a year, you'll have to pay some of "
        "your Child Benefit back."
    )
    assert charge.income_min == Decimal("60000")


def test_benefit_and_work_conditions():
    read = _read("cold-weather-payment.json")
    assert any("universal_credit" in applies.benefits for _, applies in read)
    # "(if you have a partner)" qualifies a condition; it does not make the rule a couple's
    on_credit = _of(read, "You'll usually get Cold Weather Payments if you get Universal Credit")
    assert on_credit.partner is None and on_credit.benefits == {"universal_credit"}
    # a lead-in's list of benefits: any of them
    assert _of(read, "You may get Cold Weather Payments if you're getting:").benefits >= {
        "pension_credit",
        "income_support",
        "income_based_jsa",
        "income_related_esa",
        "universal_credit",
    }
    # "(if you have a partner)" qualifies a condition; it does not make the rule a couple's
    on_credit = _of(read, "You'll usually get Cold Weather Payments if you get Universal Credit")
    assert on_credit.partner is None and on_credit.benefits == {"universal_credit"}
    grant = _read("childcare-grant.json")  # a list of conditions on the reader
    assert _of(grant, "all the following must apply: you're a full-time student").employment == {
        "student"
    }
    assert _of(grant, "if you: are a full-time higher education student").employment == {"student"}
    esa = _read("employment-support-allowance.json")
    assert _of(esa, "You can apply if you're employed, self-employed or unemployed").employment == {
        "employed",
        "self_employed",
        "unemployed",
    }
    uc = _read("universal-credit.json")
    assert _of(uc, "only need to report monthly earnings if you're self-employed").employment == {
        "self_employed"
    }


def test_the_stored_form_round_trips():
    applies = applicability_read(
        "If you live in Wales and earn more than £50,000 a year and you're aged 18 to 39"
    )
    stored = applies.as_json()
    assert stored == {"nations": ["wales"], "age_min": 18, "age_max": 39, "income_min": "50000"}
    assert Applicability.from_json(stored) == applies
    assert applicability_read("The ISA allowance is £20,000.").as_json() == {}


@pytest.mark.parametrize(
    ("applies", "person", "expected", "reason"),
    [
        (
            Applicability(nations=frozenset({"england", "wales"})),
            Person(nation="scotland"),
            False,
            "for people living in England or Wales",
        ),
        (
            Applicability(nations=frozenset({"scotland"})),
            Person(nation="scotland"),
            True,
            "for people living in Scotland",
        ),
        (Applicability(age_max=24), Person(age=23), True, "for people aged under 25"),
        (Applicability(age_min=25), Person(age=23), False, "for people aged 25 or over"),
        (
            Applicability(income_min=Decimal(60000)),
            Person(annual_income=Decimal(65000)),
            True,
            "for incomes over £60,000 a year",
        ),
        (
            Applicability(income_min=Decimal(80000)),
            Person(annual_income=Decimal(65000)),
            False,
            "for incomes over £80,000 a year",
        ),
        (
            Applicability(state_pension_age="under"),
            Person(age=68),
            False,
            "for people under State Pension age",
        ),
        (
            Applicability(employment=frozenset({"employed"})),
            Person(employment="self_employed"),
            False,
            "for people who are employed",
        ),
        (
            Applicability(student_loan_plans=frozenset({"plan_1"})),
            Person(student_loan_plan="plan_2"),
            False,
            "for Plan 1 loans",
        ),
        # a benefit the profile does not list may be about to be claimed: no contradiction
        (
            Applicability(benefits=frozenset({"universal_credit"})),
            Person(benefits=frozenset()),
            None,
            "",
        ),
        # the profile does not say: nothing to compare
        (Applicability(nations=frozenset({"wales"})), Person(age=30), None, ""),
        (Applicability(), Person(nation="scotland", age=30), None, ""),
    ],
)
def test_a_unit_applies_to_a_person_by_what_both_say(applies, person, expected, reason):
    fit = profile_fit(applies, person)
    assert fit.applies is expected
    assert fit.reason == reason


def test_how_many_children_a_rate_is_for():
    read = _read("universal-credit.json")
    one = _of(read, "£1,014.63 for one child")
    several = _of(read, "for 2 or more children")
    assert (one.children_min, one.children_max) == (1, 1)
    assert (several.children_min, several.children_max) == (2, None)
    two_children = Person(children_ages=(1, 4))
    assert profile_fit(one, two_children).applies is False
    assert profile_fit(several, two_children).reason == "for people with 2 or more children"


def test_a_condition_of_having_lived_in_a_nation_narrows_a_list_of_criteria():
    read = _read("options-for-dealing-with-your-debts.json")
    criteria = _of(read, "you've lived or worked in England and Wales within the last 3 years")
    assert criteria.nations == {"england", "wales"}
    assert profile_fit(criteria, Person(nation="northern_ireland")).applies is False
    # the scheme's eligibility part narrows all of its section: its limits, how to get one
    england_and_wales = {"england", "wales"}
    assert _of(read, "Debt Relief Orders (DROs) are one way").nations == england_and_wales
    assert _of(read, "You do not need to pay for a DRO").nations == england_and_wales
    # but not the other schemes on the page
    assert not _of(read, "A Debt Management Plan is an agreement").nations


def test_a_part_for_people_from_elsewhere_makes_the_page_one_nations():
    page = page_input_from_file("student-finance.json")
    nations, basis = page_nations_read(page.title, page_lines(page.text, page.sections))
    assert nations == {"england"}
    assert "If you're not from England" in basis
    # a different way to apply somewhere is not a page for that nation alone
    page = page_input_from_file("employment-support-allowance.json")
    assert page_nations_read(page.title, page_lines(page.text, page.sections)) == (set(), "")


def test_units_naming_more_of_what_singles_the_person_out_come_first():
    from knowledge.models import AtomicUnit
    from knowledge.retrieval.applies import profile_label
    from knowledge.retrieval.hits import ConceptHit, UnitHit

    def hit(text, applicability):
        return UnitHit(AtomicUnit(text=text, applicability=applicability), 0.7, "current", "")

    partner = hit("£464 if you have a partner", {"partner": True})
    benefit = hit(
        "£812 if you or your partner claim Child Benefit", {"benefits": ["child_benefit"]}
    )
    single = hit("£348 if you're single", {"partner": False})
    everyone = hit("The lowest amount you can borrow is £100.", {})
    concept = ConceptHit(None, 0.7, 0.7, 0.7, 0.0, False, [single, partner, everyone, benefit])
    person = Person(partner=True, benefits=frozenset({"child_benefit"}))
    profile_label([concept], person)
    assert [u.unit.text[:4] for u in concept.units] == ["£812", "£464", "The ", "£348"]
    assert concept.units[-1].fit.reason == "for single people"


def test_units_read_beyond_those_shown_join_only_when_they_single_the_person_out():
    from knowledge.models import AtomicUnit
    from knowledge.retrieval.applies import profile_label
    from knowledge.retrieval.hits import ConceptHit, UnitHit

    def hit(text, applicability):
        return UnitHit(AtomicUnit(text=text, applicability=applicability), 0.7, "current", "")

    nearest = [hit(f"rule {n} for everyone", {}) for n in range(3)]
    over_60 = hit(
        "You're not eligible for a Maintenance Loan if you're 60 or over", {"age_min": 60}
    )
    also_everyone = hit("You can apply online.", {})
    adults = hit("You must be 18 or over.", {"age_min": 18})  # names the person, not few
    concept = ConceptHit(
        None, 0.7, 0.7, 0.7, 0.0, False, [*nearest, adults, also_everyone, over_60]
    )
    profile_label([concept], Person(age=63), shown=3)
    assert [u.unit.text for u in concept.units] == [
        over_60.unit.text,
        *(u.unit.text for u in nearest),
    ]


def test_a_bound_in_brackets_or_on_savings_does_not_narrow_the_statement():
    loan = applicability_read(
        "have savings of more than £1,000 (£2,000 if you or your partner are 63 or over); "
        "are paying back an existing Budgeting Loan"
    )
    assert loan.is_everyone()
    support = applicability_read(
        "you have no income or a low income, and no more than £16,000 in savings"
    )
    assert (support.income_min, support.income_max) == (None, None)


def test_a_question_whose_nearest_facts_are_for_others_is_refused_unless_theirs_is_there():
    """The units nearest "where do I post the form?" are the section for England, Wales (and
    Scotland): refused for a Northern Ireland reader, answered for a Welsh one; a unit for
    their own nation in the concept (the way they claim instead) is their answer."""
    from knowledge.models import AtomicUnit
    from knowledge.retrieval.applies import nothing_for_this_person, profile_label
    from knowledge.retrieval.hits import ConceptHit, UnitHit

    grant = _read("sure-start-maternity-grant.json")
    by_post = [
        _of(grant, "You will get a letter about whether your claim is successful"),
        _of(grant, "You can send your form without the evidence"),
    ]
    everyone_read = Applicability()

    def concept(*units):
        hits = [
            UnitHit(AtomicUnit(text=str(n), applicability=a.as_json()), s, "current", "")
            for n, (a, s) in enumerate(units)
        ]
        return ConceptHit(None, 0.7, 0.7, 0.7, 0.0, False, hits)

    def refused(person, *units):
        hits = [concept(*units)]
        profile_label(hits, person)
        return nothing_for_this_person(hits)

    nearest_by_post = [(by_post[0], 0.8), (by_post[1], 0.78), (everyone_read, 0.6)]
    assert refused(Person(nation="northern_ireland"), *nearest_by_post)
    assert not refused(Person(nation="wales"), *nearest_by_post)
    assert not refused(
        Person(nation="northern_ireland"), *nearest_by_post[::-1][:1], *nearest_by_post[:1]
    )
    own_way = Applicability(nations=frozenset({"northern_ireland"}))
    assert not refused(Person(nation="northern_ireland"), *nearest_by_post, (own_way, 0.5))


def test_a_page_saying_whom_its_subject_is_for_by_birth_date_narrows_its_statements():
    """The new State Pension (the project's own sample page): "You can get the new State
    Pension if you're eligible and:" then "a man born on or after 6 April 1951", "a woman born
    on or after 6 April 1953". Its rate is for them; an 80-year-old reached State Pension age
    under the old rules."""
    from pathlib import Path

    from knowledge.text.exceptions import page_births_read
    from tests.knowledge.test_extraction_context import page_input_from_path

    fixture = Path(__file__).resolve().parents[2] / "fixtures/govuk/new-state-pension--2024-25.json"
    page = page_input_from_path(fixture)
    lines = page_lines(page.text, page.sections)
    births = page_births_read(page.title, lines)
    assert births.born_from == dt.date(1951, 4, 6) and births.born_before is None
    rate = statement_applicability(
        "The full rate of new State Pension is £221.20 a week.",
        heading_path=["What you'll get"],
        page=page_reading(page.title, lines),
    )
    assert rate.born_from == dt.date(1951, 4, 6)
    day = dt.date(2024, 10, 1)
    eighty = profile_fit(rate, Person(age=80, age_on=day))
    assert eighty.applies is False and "born on or after 6 April 1951" in eighty.reason
    assert profile_fit(rate, Person(age=70, age_on=day)).applies is not False
    # a statement with an age condition of its own keeps it
    own = statement_applicability(
        "You must be over State Pension age to claim.",
        heading_path=[],
        page=page_reading(page.title, lines),
    )
    assert own.born_from is None


def test_a_guides_part_stored_as_a_page_takes_the_guides_dates_of_birth(db):
    from knowledge.models import AtomicUnit
    from knowledge.services.applicability import snapshot_applicability_read
    from tests.factories import SnapshotFactory, SourceFactory, UnitFactory

    guide = SourceFactory(url="https://www.gov.uk/new-state-pension", title="The new State Pension")
    lead = "You can get the new State Pension if you're eligible and:"
    guide.current_snapshot = SnapshotFactory(
        source=guide,
        text=f"{lead}\n- a man born on or after 6 April 1951\n- a woman born on or after 6 April 1953",
    )
    guide.save()
    part = SnapshotFactory(
        source=SourceFactory(
            url="https://www.gov.uk/new-state-pension/what-youll-get", title="The new State Pension"
        ),
        text="The full rate of new State Pension is £221.20 a week.",
    )
    unit = UnitFactory(snapshot=part, evidence_quote=part.text)
    elsewhere = UnitFactory(text="The full rate is £221.20 a week.")  # a page of its own

    for snapshot in (part, elsewhere.snapshot):
        snapshot_applicability_read(snapshot)

    assert AtomicUnit.objects.get(pk=unit.pk).applicability == {"born_from": "1951-04-06"}
    assert AtomicUnit.objects.get(pk=elsewhere.pk).applicability == {}


def test_a_scheme_whose_eligibility_requires_another_nation_is_not_this_persons():
    """Debt Relief Orders: "you've lived or worked in England and Wales within the last 3
    years". Someone in Northern Ireland is refused (their own scheme is not in the page); a
    Scot is answered when the page gives their own way beside it ("In Scotland you can arrange
    a Debt Payment Programme"); a line that people elsewhere cannot get a grant is no
    requirement of where to live."""
    from knowledge.models import AtomicUnit
    from knowledge.retrieval.applies import nothing_for_this_person, profile_label
    from knowledge.retrieval.hits import ConceptHit, UnitHit

    debts = _read("options-for-dealing-with-your-debts.json")
    texts = {text: applies for text, applies in debts}

    def unit(fragment, unit_type="rule", page=1):
        text = next(t for t in texts if fragment in t)
        stored = AtomicUnit(
            text=text, unit_type=unit_type, source_id=page, applicability=texts[text].as_json()
        )
        return UnitHit(stored, 0.7, "current", "")

    def refused(person, *units):
        hits = [ConceptHit(None, 0.7, 0.7, 0.7, 0.0, False, list(units))]
        profile_label(hits, person)
        return nothing_for_this_person(hits)

    overview = unit("You can apply for a Debt Relief Order or Bankruptcy Order")
    eligibility = unit("you've lived or worked in England and Wales", "eligibility")
    assert refused(Person(nation="northern_ireland"), overview, eligibility)
    assert not refused(Person(nation="wales"), overview, eligibility)
    scottish_way = unit("In Scotland you can arrange a Debt Payment Programme")
    assert not refused(Person(nation="scotland"), overview, eligibility, scottish_way)
    grant = _read("sure-start-maternity-grant.json")
    not_in_scotland = next(a for t, a in grant if "you cannot get a Sure Start" in t)
    cannot = UnitHit(
        AtomicUnit(
            text="If you live in Scotland you cannot get a Sure Start Maternity Grant.",
            unit_type="eligibility",
            source_id=2,
            applicability=not_in_scotland.as_json(),
        ),
        0.7,
        "current",
        "",
    )
    assert not refused(Person(nation="england"), overview, cannot)


def test_a_parent_is_read_in_the_contracted_form_too():
    read = _read("child-benefit.json")
    assert _of(read, "if you're responsible for a child under 16").children_min == 1


def test_a_statements_own_first_sentence_is_read_after_the_heading_written_before_it():
    # "Tax credits overpayments > If you do not repay HMRC: Your debt will be passed to the
    # Department for Communities (DfC) if you're in Northern Ireland. … This might be by: …"
    read = _read("tax-credits-overpayments.json")
    assert _of(read, "DWP or DfC will arrange").nations == {"northern_ireland"}


def test_work_one_way_in_of_several_on_other_grounds_does_not_narrow_the_statement():
    # "employed or have recently stopped working", "unemployed or work less than 16 hours":
    # the other way in is not a kind of work the profile names, so nobody is left out.
    maternity = _read("maternity-allowance.json")
    assert not _of(maternity, "if you're employed or have recently stopped working").employment
    jsa = _read("guidance--new-style-jobseekers-allowance.json")
    assert not _of(jsa, "If you're unemployed or work less than 16 hours").employment
    assert not applicability_read(
        "The credits can fill gaps in your record if you're not working or do not earn enough."
    ).employment
    # a list of kinds of work is still each of them
    assert applicability_read(
        "If you're employed or you're self-employed, you can claim."
    ).employment == {"employed", "self_employed"}


def test_a_plan_or_benefit_the_reader_does_not_have_is_not_who_the_statement_is_for():
    grant = _read("childcare-grant.json")
    conditions = _of(grant, "you're not getting a Postgraduate Loan")
    assert conditions.student_loan_plans == frozenset() and conditions.employment == {"student"}
    pip = _read("pip.json")  # Constant Attendance Allowance is a benefit of its own
    assert _of(pip, "If you get Constant Attendance Allowance").benefits == {"pip"}


def test_bounds_in_the_heading_written_before_a_statement_narrow_its_own():
    national_insurance = _read("national-insurance.json")
    class_4 = _of(national_insurance, "If your profits are more than £12,570 a year")
    assert class_4.employment == {"self_employed"}
    assert class_4.income_min == Decimal("12570")
    read = applicability_read(
        "Student finance > If you're 60 or over: Aged 18 to 64: up to £4,221 a year"
    )
    assert (read.age_min, read.age_max) == (60, 64)


def test_ages_listed_after_a_lead_in_about_children_are_the_childrens():
    costs = _of(_read("help-with-childcare-costs.json"), "childcare costs for children: under 15")
    assert (costs.age_min, costs.age_max) == (None, None)
    assert costs.employment == {"student"}
    junior = _read("junior-individual-savings-accounts--overview--2023-24.json")
    assert _of(junior, "Your child must be both: under 18").age_max is None
    # a rate table's age band is still the reader's
    assert applicability_read("Rates from 1 April 2024: Under 18: £6.40 an hour").age_max == 17


def test_earnings_over_a_stretch_of_months_are_read_at_a_yearly_pace():
    advance = _of(_read("universal-credit.json"), "you've earned more than £2,600")
    assert advance.income_min == Decimal("5200")


def test_a_statement_naming_one_of_its_headings_nations_narrows_to_it():
    read = _read("help-with-childcare-costs.json")  # under "If you live in England or Scotland"
    assert _of(read, "If you live in England and get free childcare").nations == {"england"}


def test_either_lists_and_or_if_conditions_are_ways_in_not_requirements():
    advance = _of(_read("universal-credit.json"), "6 months; you've not paid off any previous")
    assert advance.income_min is None and advance.any_of[0].income_min == Decimal("5200")
    online = _of(
        _read("jobseekers-allowance.json"), "under 18 or if you're applying as an appointee"
    )
    assert online.age_max is None  # an appointee of any age cannot apply online either
    national_insurance = _read("national-insurance.json")
    mandatory = _of(national_insurance, "from one job; self-employed and making a profit of more")
    assert mandatory.employment == {"employed", "self_employed"} and mandatory.age_min == 16


def test_a_concept_for_others_is_no_refusal_when_the_one_shown_first_is_theirs_on_that_ground():
    """Asked how to stop gaps in their National Insurance record by someone out of work: the
    nearest concept, who pays, is the employees' and the self-employed's; the voluntary Class 3
    contributions shown first are for people not working, theirs."""
    from knowledge.models import AtomicUnit
    from knowledge.retrieval.applies import nothing_for_this_person, profile_label
    from knowledge.retrieval.hits import ConceptHit, UnitHit

    national_insurance = _read("national-insurance.json")
    who_pays = [
        _of(national_insurance, "from one job; self-employed and making a profit of more"),
        _of(national_insurance, "If you're employed, you stop paying Class 1"),
    ]
    class_3 = _of(_read("national-insurance.json"), "If you're not working: You can choose")

    def concept(score, *readings):
        units = [
            UnitHit(AtomicUnit(text=str(n), applicability=a.as_json()), score, "current", "")
            for n, a in enumerate(readings)
        ]
        return ConceptHit(None, score, score, score, 0.0, False, units)

    out_of_work = Person(age=42, employment="unemployed")
    hits = [concept(0.46, class_3), concept(0.50, *who_pays)]
    profile_label(hits, out_of_work)
    assert hits[0].units[0].fit.applies is True
    assert not nothing_for_this_person(hits)
    # without theirs shown first, the question is answered only for other people
    hits = [concept(0.50, *who_pays), concept(0.46, Applicability())]
    profile_label(hits, out_of_work)
    assert nothing_for_this_person(hits)
