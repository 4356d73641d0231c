"""Income Tax bands: who a statement is for by the rate they pay, read from real gov.uk pages,
and the band a person's income falls in, read from the knowledge base's own band table."""

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest

from knowledge.band_table import income_bands, person_on
from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person, Profile
from knowledge.retrieval import SearchParams, concept_search
from knowledge.text.applicability import Applicability, applicability_checked, applicability_read
from knowledge.text.exceptions import alternatives_governing, page_reading, statement_applicability
from knowledge.text.tax_bands import tax_bands_read
from tests.factories import ConceptFactory, UnitFactory, axis_vector
from tests.knowledge.test_applicability import _of, _read

BOTH_ABOVE = {"higher", "additional"}


def test_capital_gains_tax_rates_are_read_by_the_band_their_section_is_for():
    read = _read("capital-gains-tax--rates--2024-25.json")
    assert _of(read, "If you're a higher or additional rate taxpayer").tax_bands == BOTH_ABOVE
    # Under "Gains from 30 October 2024 onwards", a plain-text heading that can only be a
    # subsection of "If you pay higher rate Income Tax": the next heading is its alternative.
    assert _of(read, "24% on your gains from other chargeable assets").tax_bands == BOTH_ABOVE
    # The amount the reader works out (income plus gain) is in their band.
    assert _of(read, "within the basic Income Tax band, you'll pay 18%").tax_bands == {"basic"}
    # A slice of that amount above the band is paid by whoever's amount reaches it: no band,
    # not even the heading's ("If you pay basic rate Income Tax").
    assert _of(read, "For any amount above the basic Income Tax band").tax_bands == set()
    # After the last alternative no heading is read as its subsection.
    assert _of(read, "You make a gain on or after 30 October 2024").tax_bands == set()


def test_pension_tax_relief_is_read_by_the_rate_of_income_tax_paid():
    read = _read("tax-on-your-private-pension--pension-tax-relief--undated-earlier.json")
    assert _of(read, "if you pay Income Tax at the 40% rate").tax_bands == {"higher"}
    assert _of(read, "if you pay Income Tax at the 45% rate").tax_bands == {"additional"}
    # one item of a list of alternatives ("… if: you pay Income Tax at a rate above 20% …;
    # your pension scheme is not set up …; someone else pays …"): one way in, not everyone's
    relief = _of(read, "you pay Income Tax at a rate above 20%")
    assert relief.tax_bands == set()
    assert relief.any_of == (Applicability(tax_bands=frozenset(BOTH_ABOVE)),)  # one way in


def test_a_band_tables_rows_give_the_rate_of_a_slice_of_income_not_whom_it_is_for():
    read = _read("tax-on-dividends--overview--2024-25.json")
    rows = [applies for text, applies in read if "Tax band:" in text]
    assert rows and all(applies.tax_bands == set() for applies in rows)
    assert _of(read, "Basic rate").tax_bands == set()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Only higher or additional rate taxpayers pay tax on dividends.", BOTH_ABOVE),
        ("You can claim it if you pay Income Tax at a rate above 20%.", BOTH_ABOVE),
        ("You can claim if: you pay tax at the 40% rate; you pay tax at the 45% rate", BOTH_ABOVE),
        ("You'll pay 24% on any amount above the basic rate band.", set()),
        ("If you pay 40% Income Tax, claim the rest.", {"higher"}),
        ("Relief for 45% taxpayers is claimed on a return.", {"additional"}),
        ("Your pension provider claims 20% tax relief for you.", set()),
        ("You can get it if your partner is a basic rate taxpayer.", set()),
        ("If you or your partner pay higher rate tax, you may have to pay.", set()),
        ("If you or your partner are higher rate taxpayers, you may have to pay.", {"higher"}),
        ("If you're in the higher rate band you get £500.", {"higher"}),
        ("Higher rate £3,500 £350", set()),  # a benefit's rate, not a tax band
        ("You'll get the higher rate if you get Child Benefit.", set()),
    ],
)
def test_a_band_counts_only_as_the_readers(text, expected):
    assert tax_bands_read(text) == expected


def test_a_heading_naming_the_higher_rate_loosely_also_heads_additional_rate_taxpayers():
    heading = ["If you pay higher rate Income Tax"]
    assert tax_bands_read("You'll pay 28% on carried interest.", heading) == BOTH_ABOVE
    # the statement's own words come first
    assert tax_bands_read("If you pay Income Tax at the 40% rate, claim it.", heading) == {"higher"}


def test_only_flat_headings_between_two_alternatives_are_read_as_the_first_ones():
    flat = [
        (["If you live in England"], "a"),
        (["How to apply"], "b"),
        (["If you live in Scotland"], "c"),
        (["Help with costs"], "d"),
    ]
    assert alternatives_governing(flat) == {"How to apply": "If you live in England"}
    nested = [(["If you live in England"], "a"), (["If you live in England", "Apply"], "b")]
    assert alternatives_governing(nested) == {}
    # a heading met twice cannot be told apart by its name: nothing is read
    twice = [*flat[:3], (["How to apply"], "e")]
    assert alternatives_governing(twice) == {}
    # alternatives on different grounds are not a pair
    mixed = [(["If you live in Scotland"], "a"), (["Rates"], "b"), (["If you're employed"], "c")]
    assert alternatives_governing(mixed) == {}


@pytest.mark.parametrize(
    "statement, person, expected",
    [
        ({"basic"}, {"basic"}, True),
        (BOTH_ABOVE, {"basic"}, False),
        (BOTH_ABOVE, {"additional"}, True),
        ({"higher"}, BOTH_ABOVE, None),  # the income may be in either: undecided
        ({"basic"}, BOTH_ABOVE, False),
    ],
)
def test_a_statements_bands_are_compared_with_those_the_income_may_fall_in(
    statement, person, expected
):
    fit = profile_fit(
        Applicability(tax_bands=frozenset(statement)),
        Person(annual_income=Decimal(1), tax_bands=frozenset(person)),
    )
    assert fit.applies is expected
    if expected is False:
        assert "rate taxpayers" in fit.reason


def test_an_expert_or_a_model_may_only_name_the_three_bands():
    assert applicability_checked({"tax_bands": ["higher", "basic"]}) == {
        "tax_bands": ["basic", "higher"]
    }
    with pytest.raises(ValueError, match="tax_bands: a list of basic, higher, additional"):
        applicability_checked({"tax_bands": ["top"]})


# --- the person's band, from the knowledge base's table -------------------------------------

TABLE = "Band Taxable income Tax rate: {} rate £{} to £{} {}%"


def _band_table(*, valid_from, valid_to=None, nations=("england", "northern_ireland", "wales")):
    concept = ConceptFactory(taxonomy_id=f"income_tax.bands_{valid_from.year}")
    for band, low, high, rate in (
        ("Basic", "12,571", "50,270", 20),
        ("Higher", "50,271", "125,140", 40),
    ):
        UnitFactory(
            concept=concept,
            unit_type="threshold",
            text=TABLE.format(band, low, high, rate),
            applicability={"nations": list(nations)},
            valid_from=valid_from,
            valid_to=valid_to,
        )


@pytest.mark.parametrize(
    "income, bands",
    [(30_000, {"basic"}), (50_270, {"basic"}), (60_000, {"higher"}), (130_000, {"additional"})],
)
def test_the_band_an_income_falls_in_is_read_from_the_table_in_force(db, income, bands):
    _band_table(valid_from=dt.date(2024, 4, 6), valid_to=dt.date(2025, 4, 5))
    assert income_bands(Decimal(income), "england", dt.date(2024, 12, 1)) == bands
    # another day's table, or none, decides nothing
    assert income_bands(Decimal(income), "england", dt.date(2023, 12, 1)) is None


def test_no_band_is_guessed_from_another_nations_table(db):
    _band_table(valid_from=dt.date(2024, 4, 6))
    assert income_bands(Decimal(30_000), "scotland", dt.date(2024, 12, 1)) is None
    assert income_bands(Decimal(30_000), None, dt.date(2024, 12, 1)) == {"basic"}  # England's
    # Scotland's own table (other bands than these three) moves neither England's nor Scotland's
    UnitFactory(
        concept=ConceptFactory(taxonomy_id="income_tax.scotland_bands"),
        unit_type="threshold",
        text="Scottish basic rate £14,877 to £26,561 20%",
        valid_from=dt.date(2024, 4, 6),
    )
    assert income_bands(Decimal(30_000), "england", dt.date(2024, 12, 1)) == {"basic"}
    assert income_bands(Decimal(30_000), "scotland", dt.date(2024, 12, 1)) is None


@pytest.mark.parametrize(
    "text",
    [
        "Band: Basic rate; Taxable income: £12,571 to £50,270; Tax rate: 20%",  # a table row
        "You pay basic rate 20% on taxable income from £12,571 to £50,270.",  # a sentence
    ],
)
def test_a_band_row_is_read_in_the_forms_tables_and_sentences_take(db, text):
    UnitFactory(
        concept=ConceptFactory(taxonomy_id="income_tax.basic_rate"),
        unit_type="threshold",
        text=text,
        valid_from=dt.date(2024, 4, 6),
    )
    assert income_bands(Decimal(50_000), "england", dt.date(2024, 12, 1)) == {"basic"}
    assert income_bands(Decimal(50_271), "england", dt.date(2024, 12, 1)) == BOTH_ABOVE


@pytest.mark.parametrize(
    "other_row",
    [
        "Basic rate £12,571 to £37,700 20%",  # a second table disagreeing: the top is unknown
        "Basic rate £0 to £37,700 20%",  # taxable income after allowances: not compared
        "Higher rate £3,500 £350",  # a benefit's rate, no range, no tax rate
    ],
)
def test_rows_that_disagree_or_are_not_gross_income_bands(db, other_row):
    _band_table(valid_from=dt.date(2024, 4, 6))
    UnitFactory(
        concept=ConceptFactory(taxonomy_id="income_tax.other_table"),
        unit_type="threshold",
        text=other_row,
        valid_from=dt.date(2024, 4, 6),
    )
    found = income_bands(Decimal(40_000), "england", dt.date(2024, 12, 1))
    assert found is None if "12,571 to £37,700" in other_row else found == {"basic"}


def test_without_the_higher_bands_top_an_income_above_the_basic_band_may_be_in_either(db):
    UnitFactory(
        concept=ConceptFactory(taxonomy_id="income_tax.basic_rate"),
        unit_type="threshold",
        text=TABLE.format("Basic", "12,571", "50,270", 20),
        valid_from=dt.date(2024, 4, 6),
    )
    assert income_bands(Decimal(90_000), "wales", dt.date(2024, 12, 1)) == BOTH_ABOVE


def test_the_worked_out_band_is_not_a_field_the_person_gave(db):
    _band_table(valid_from=dt.date(2024, 4, 6))
    person = person_on(Profile(annual_income=60_000, age=40), dt.date(2024, 12, 1))
    assert person.tax_bands == {"higher"}
    assert sorted(person.fields_present()) == ["age", "annual_income"]


def test_the_table_is_held_for_the_vocabularys_interval_then_read_again(db, settings):
    settings.QUERY_VOCABULARY_CHECK_SECONDS = 3600
    day = dt.date(2024, 12, 1)
    assert income_bands(Decimal(30_000), "england", day) is None
    _band_table(valid_from=dt.date(2024, 4, 6))
    assert income_bands(Decimal(30_000), "england", day) is None  # held: no query
    settings.QUERY_VOCABULARY_CHECK_SECONDS = 0
    assert income_bands(Decimal(30_000), "england", day) == {"basic"}


def test_a_search_reads_the_units_for_the_persons_band_from_far_down_their_concept(db):
    """Twenty units nearer the question say nothing of bands; the twenty-first is for higher
    rate taxpayers: someone earning £60,000 sees it first, labelled; someone on £30,000 does
    not see it at all."""
    _band_table(valid_from=dt.date(2024, 4, 6))
    concept = ConceptFactory(embedding=axis_vector(2))
    for n in range(20):
        UnitFactory(concept=concept, text=f"Rule {n}.", embedding=axis_vector(2, 0.01 * n))
    higher = UnitFactory(
        concept=concept,
        text="Claim the extra 20% if you pay Income Tax at the 40% rate.",
        applicability={"tax_bands": ["higher"]},
        embedding=axis_vector(2, 3.0),
    )

    def shown(income):
        params = SearchParams(
            query="Pension tax relief?",
            k=1,
            min_results=1,
            as_of=dt.date(2024, 12, 1),
            profile={"annual_income": income},
        )
        return (
            concept_search(params=params, query_vector=np.array(axis_vector(2))).concepts[0].units
        )

    first = shown(60_000)[0]
    assert first.unit.pk == higher.pk and first.fit.applies is True
    assert first.fit.reason == "for higher rate taxpayers"
    assert higher.pk not in {u.unit.pk for u in shown(30_000)}


def test_a_governed_sections_own_exclusions_still_hold_under_it():
    lines = [
        (["If you pay higher rate Income Tax"], "If you're a higher rate taxpayer, read on."),
        (["Gains"], "You're not eligible for relief if you earn over £200,000."),
        (["Gains"], "You can get relief on 24% of your gains."),
        (["If you pay basic rate Income Tax"], "If you're a basic rate taxpayer, read on."),
    ]
    reading = page_reading("Capital gains", lines)
    read = statement_applicability(
        "You can get relief on 24% of your gains.", heading_path=["Gains"], page=reading
    )
    assert read.tax_bands == BOTH_ABOVE  # the alternative the section sits under
    assert read.income_max == Decimal(200_000)  # the section's own exclusion


def test_a_band_named_by_one_item_of_a_list_of_alternatives_is_one_way_in():
    read = applicability_read(
        "You can claim if: you pay tax at the 40% rate; you're aged 60 or over"
    )
    assert read.tax_bands == set() and read.age_min is None
    assert read.any_of == (
        Applicability(tax_bands=frozenset({"higher"})),
        Applicability(age_min=60),
    )
    every_item = applicability_read(
        "You can claim if: you pay tax at the 40% rate; you pay tax at the 45% rate"
    )
    assert every_item.tax_bands == BOTH_ABOVE and every_item.any_of == ()  # every way names one
