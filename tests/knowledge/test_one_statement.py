"""One statement, one unit (heuristic extraction, on real gov.uk pages): a sentence or table row
stating several figures is one unit whose value is the figure it is about, the others kept
with their roles; figures for different periods are separate units, each quoted by its own
clause or cell; no two units of a page share one evidence quote."""

from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings

from knowledge.extraction.figures import figure_roles, main_figure, period_clauses
from knowledge.extraction.units import extract_proposals
from knowledge.text.amounts import find_amounts
from knowledge.text.evidence import locate_quote
from knowledge.text.normalise import normalise_inline
from tests.knowledge.test_extraction_context import PAGES, corpus_units, page_input_from_path

FIXTURE_PAGES = Path(settings.BASE_DIR) / "fixtures" / "govuk"


def page_units(path: Path):
    page = page_input_from_path(path)
    return page, extract_proposals(page)


def roles(unit) -> list[tuple[str, str]]:
    return [(figure["printed"], figure["role"]) for figure in unit.figures]


def quoting(units, words: str):
    return [u for u in units if words in u.evidence_quote]


def test_the_hicbc_charge_is_one_unit_of_1_percent_per_200_above_60000():
    _, units = page_units(FIXTURE_PAGES / "child-benefit.json")
    [unit] = quoting(units, "for every £200 of income over £60,000")
    assert (unit.unit_type, unit.value_amount, unit.value_unit) == ("threshold", 1, "percent")
    assert roles(unit) == [("£200", "per"), ("£60,000", "above")]
    assert unit.figures[1]["amount"] == "60000" and unit.figures[1]["unit"] == "GBP"


def test_the_corpus_hicbc_rate_keeps_what_it_is_charged_per():
    units = corpus_units(
        "government--publications--changes-to-the-high-income-child-benefit-charge--"
        "information-on---2024-25.json"
    )
    [unit] = quoting(units, "1% of your Child Benefit for every £200")
    assert (unit.value_amount, unit.value_unit, roles(unit)) == (1, "percent", [("£200", "per")])


def test_a_rate_table_row_is_one_unit_of_its_rate_with_its_band():
    units = corpus_units("tax-credits-overpayments.json")
    [unit] = quoting(units, "More than £20,000")
    assert (unit.value_amount, unit.value_unit) == (50, "percent")
    assert roles(unit) == [("£20,000", "above")]
    [band] = quoting(
        corpus_units("income-tax-rates--current-rates-and-allowances--2024-25.json"),
        "Basic rate £12,571",
    )
    assert band.value_amount == 20 and roles(band) == [("£12,571", "from"), ("£50,270", "to")]


def test_a_row_with_an_amount_per_year_column_is_one_unit_per_year_quoted_by_its_cell():
    units = corpus_units("student-finance.json")
    row = [
        u
        for u in units
        if u.evidence_quote.startswith(
            "Living with your parents; 2023 to 2024 academic year: Up to £8,400"
        )
    ]
    assert sorted(u.value_amount for u in row) == [8400, 8610]
    quotes = {u.value_amount: u.evidence_quote for u in row}
    assert quotes[8400] == "Living with your parents; 2023 to 2024 academic year: Up to £8,400"
    assert quotes[8610].endswith("2024 to 2025 academic year: Up to £8,610")
    assert [u.valid_from for u in sorted(row, key=lambda u: u.value_amount)] == [
        "2023-08-01",
        "2024-08-01",
    ]


def test_figures_for_different_periods_are_two_units_quoted_by_their_own_clause():
    units = corpus_units("benefit-cap.json")
    # "The threshold was £722 up to 7 April 2024 and is £793 from 8 April 2024."
    clauses = ("The threshold was £722 up to 7 April 2024", "£793 from 8 April 2024.")
    split = {int(u.value_amount): u for u in units if u.evidence_quote.endswith(clauses)}
    assert split[722].evidence_quote.endswith(clauses[0])  # with the sentence it leans on
    assert split[793].evidence_quote == clauses[1]
    assert split[722].figures == [] and split[793].figures == []
    assert split[722].valid_to == "2024-04-07" and split[793].valid_from == "2024-04-08"


def test_the_role_words_of_gov_uk_english():
    def read(text):
        figures = figure_roles(text, find_amounts(text))
        return [(f.amount.printed, f.role) for f in figures], main_figure(figures)

    assert read("Your Personal Allowance goes down by £1 for every £2 over £100,000.") == (
        [("£1", ""), ("£2", "per"), ("£100,000", "above")],
        0,
    )
    assert read("You can get between £27 and £184.03 a week.") == (
        [("£27", "between"), ("£184.03", "to")],
        0,
    )
    assert read("Pay: £242 to £967 a week (£1,048 to £4,189 a month)")[0] == [
        ("£242", "from"),
        ("£967", "to"),
        ("£1,048", "or"),
        ("£4,189", "to"),
    ]
    assert read("You can put no more than £4,000 a year, up to £20,000 in all.")[0][0] == (
        "£4,000",
        "up to",
    )
    assert read("If you take out £5,000, you pay a charge of £1,250.") == (
        [("£5,000", "if"), ("£1,250", "")],
        1,
    )
    assert read("You need savings of £6,000 or more to pay 5%.")[0][0] == ("£6,000", "at least")


def test_a_sentence_with_figures_for_one_period_is_not_split():
    text = "From 6 April 2024 you pay 8% on £242 to £967 a week."
    assert period_clauses(text, find_amounts(text)) == [(0, len(text))]
    text = "It was £100 in 2023 to 2024, and £120 in 2024 to 2025."
    assert [text[a:b] for a, b in period_clauses(text, find_amounts(text))] == [
        "It was £100 in 2023 to 2024",
        "£120 in 2024 to 2025.",
    ]


@pytest.mark.parametrize("pages", [PAGES, FIXTURE_PAGES], ids=["corpus", "fixtures"])
def test_no_two_units_of_a_page_share_one_evidence_quote(pages):
    files = sorted(pages.glob("*.json"))
    if not files:
        pytest.skip(f"no page files in {pages}")
    shared = []
    for path in files:
        page, units = page_units(path)
        counts = Counter(normalise_inline(u.evidence_quote).lower() for u in units)
        shared += [(path.name, quote) for quote, count in counts.items() if count > 1]
        for unit in units:
            located = locate_quote(unit.evidence_quote, page.text)
            assert located is not None and located.exact, (path.name, unit.evidence_quote)
            for figure in unit.figures:
                assert Decimal(figure["amount"]).is_finite() and figure["role"], (path.name, figure)
    assert shared == []
