"""The heuristic provider's rules on small pages: types, amounts, dates, procedures, binding."""

import datetime as dt
import zlib
from decimal import Decimal

import numpy as np
import pytest

from knowledge.documents import PageDocument, PagePart
from knowledge.domain.extraction import ValidityBasis
from knowledge.extraction.units import extract_proposals
from knowledge.parsing import parse_document
from knowledge.providers import ConceptInfo, PageContext, PageInput
from knowledge.providers.heuristic import HeuristicProvider
from knowledge.text.amounts import age_band, find_amounts
from knowledge.text.dates import find_validities, header_validity, hint_validity


def page_from_html(html: str, *, title="Test page", period_hint="", updated=None) -> PageInput:
    document = PageDocument(
        url="https://www.gov.uk/test",
        base_path="/test",
        title=title,
        document_type="guide",
        public_updated_at=updated,
        parts=[PagePart("Overview", "overview", "https://www.gov.uk/test", html, "html")],
        raw={},
        origin="test",
        period_hint=period_hint,
    )
    parsed = parse_document(document)
    return PageInput(
        title, document.url, "guide", parsed.text, parsed.sections, period_hint, updated
    )


def proposals(html: str, **kwargs):
    return extract_proposals(page_from_html(html, **kwargs))


def only(items, unit_type):
    return [item for item in items if item.unit_type == unit_type]


def test_amount_with_period_becomes_a_threshold_with_structured_value():
    [unit] = proposals("<p>The full new State Pension is £221.20 a week.</p>")
    assert unit.unit_type == "threshold"
    assert (unit.value_amount, unit.value_unit, unit.value_period) == (
        Decimal("221.20"),
        "GBP",
        "week",
    )


def test_percentages_pence_and_millions_are_amounts():
    amounts = find_amounts("It goes down by 55p, taxed at 8.75% or 40 per cent, up to £2 million")
    assert [(a.value, a.unit) for a in amounts] == [
        (Decimal("0.55"), "GBP"),
        (Decimal("8.75"), "percent"),
        (Decimal("40"), "percent"),
        (Decimal("2000000"), "GBP"),
    ]


def test_decimal_points_do_not_split_sentences():
    [unit] = proposals("<p>You may get £27.50 for a few weeks while we check.</p>")
    assert unit.text.endswith(": You may get £27.50 for a few weeks while we check.")


def test_tax_year_phrase_dates_the_unit_inclusively():
    [unit] = proposals("<p>You can save £20,000 in the 2024 to 2025 tax year.</p>")
    assert (unit.valid_from, unit.valid_to) == ("2024-04-06", "2025-04-05")
    assert unit.validity_basis == ValidityBasis.STATED


def test_table_column_headers_date_each_cell():
    html = """<h2>Rates</h2><table><thead><tr><th>Band</th><th>2023 to 2024</th><th>2024 to 2025</th>
    </tr></thead><tbody><tr><td>Eldest child</td><td>£24.00</td><td>£25.60</td></tr></tbody></table>"""
    units = only(proposals(html), "threshold")
    by_amount = {unit.value_amount: (unit.valid_from, unit.valid_to) for unit in units}
    assert by_amount[Decimal("24.00")] == ("2023-04-06", "2024-04-05")
    assert by_amount[Decimal("25.60")] == ("2024-04-06", "2025-04-05")
    assert all("Band: Eldest child" in unit.text for unit in units)


def test_ordered_steps_under_a_how_to_heading_are_one_procedure():
    html = """<h2>How to transfer</h2><p>To transfer your ISA:</p>
    <ol><li>Choose a new provider.</li><li>Fill in their transfer form.</li><li>Wait for them to move it.</li></ol>"""
    units = proposals(html)
    [procedure] = only(units, "procedure")
    assert "Choose a new provider" in procedure.evidence_quote
    assert "Wait for them to move it" in procedure.evidence_quote
    assert procedure.evidence_quote.startswith("To transfer your ISA:")
    assert not only(units, "rule")  # the steps are not split into rules


def test_eligibility_list_stays_with_its_lead_in():
    html = "<p>You can get Child Benefit if you're responsible for a child who is:</p><ul><li>under 16</li><li>under 20 in approved education</li></ul>"
    [unit] = proposals(html)
    assert unit.unit_type == "eligibility"
    assert "under 16" in unit.text and "under 20 in approved education" in unit.text
    assert unit.evidence_quote.endswith("- under 20 in approved education")


def test_definition_and_rule_sentences():
    units = proposals(
        "<p>Adjusted net income is your total taxable income before any Personal Allowances.</p>"
        "<p>You must tell HMRC about any change of circumstances.</p>"
    )
    assert [unit.unit_type for unit in units] == ["definition", "rule"]


def test_for_example_is_linked_to_the_unit_it_illustrates():
    units = proposals(
        "<p>Your allowance goes down by £1 for every £2 of income over £100,000.</p>"
        "<p>For example, if your income is £110,000 your allowance is reduced by £5,000.</p>"
    )
    example = only(units, "example")[0]
    assert units[example.example_of].unit_type == "threshold"
    assert not [u for u in only(units, "threshold") if u.value_amount == Decimal("110000")]


def test_example_section_is_one_example_unit():
    units = proposals(
        "<p>The rate is 8.75%.</p><h2>Example</h2><p>You get £3,000.</p><p>You pay £218.75.</p>"
    )
    [example] = only(units, "example")
    assert "£3,000" in example.evidence_quote and "£218.75" in example.evidence_quote
    assert len(only(units, "threshold")) == 1


def test_birth_dates_are_not_validity():
    assert find_validities("a man born on or after 6 April 1951") == []
    [unit] = proposals("<p>You can claim if you were born on or after 6 April 1953.</p>")
    assert (unit.valid_from, unit.valid_to) == (None, None)


def test_a_heading_dates_its_figures_and_nothing_else_does():
    section = proposals("<h2>Rates for 2024 to 2025</h2><p>You get £25.60 a week.</p>")[0]
    assert section.validity_basis == ValidityBasis.HEADING
    lead_in = proposals("<p>The rates for 2024 to 2025 are:</p><ul><li>£25.60 a week</li></ul>")
    assert lead_in[-1].valid_from == "2024-04-06" and lead_in[-1].validity_basis in (
        ValidityBasis.HEADING,
        ValidityBasis.STATED,
    )
    # The page file's period and gov.uk's update date are not the provider's to use: an
    # undated figure is dated (or left open) by its concept and capture, where it is stored.
    hinted = proposals("<p>You get £20.70 a week.</p>", period_hint="2015-16-to-2019-20")[0]
    assert (hinted.valid_from, hinted.valid_to, hinted.validity_basis) == (None, None, "open")
    updated = proposals(
        "<p>You get £393.45 a month.</p>", updated=dt.datetime(2024, 10, 1, tzinfo=dt.UTC)
    )[0]
    assert (updated.valid_from, updated.validity_basis) == (None, ValidityBasis.OPEN)


def test_period_phrases():
    assert header_validity("2024 to 2025").valid_from == dt.date(2024, 4, 6)
    assert header_validity("April 2018 to March 2019").valid_to == dt.date(2019, 3, 31)
    assert header_validity("April 2025").valid_from == dt.date(2025, 4, 1)
    assert find_validities("from 30 October 2024")[0].valid_from == dt.date(2024, 10, 30)
    assert find_validities("before 1 April 2024")[0].valid_to == dt.date(2024, 3, 31)
    assert hint_validity("2024-25-or-later").valid_to is None
    assert hint_validity("c2017-22") is None


class WordEmbedder:
    """Deterministic bag-of-words vectors: enough to test the binding margin."""

    name = "test-words"

    def embed(self, texts):
        rows = []
        for text in texts:
            vector = np.zeros(64, dtype=np.float32)
            for word in text.lower().replace(".", " ").split():
                vector[zlib.crc32(word.encode()) % 64] += 1  # hash() differs per process
            rows.append(vector / (np.linalg.norm(vector) or 1))
        return np.asarray(rows)


def concept(taxonomy_id, text, embedder, category="isa"):
    return ConceptInfo(taxonomy_id, text, text, category, tuple(embedder.embed([text])[0]))


def test_binding_needs_a_margin_over_the_runner_up():
    embedder = WordEmbedder()
    concepts = [
        concept("isa.annual_allowance", "ISA allowance save each tax year", embedder),
        concept("isa.junior.limit", "Junior ISA limit for children", embedder),
        concept("isa.junior.limit_twin", "Junior ISA limit for children", embedder),
    ]
    provider = HeuristicProvider(embedder=embedder, margin=0.05)
    page = page_from_html(
        "<p>You can save your ISA allowance each tax year: £20,000.</p>"
        "<p>The Junior ISA limit for children is £9,000.</p>",
        title="ISAs",
    )
    context = PageContext(
        domain="ISAs", audience="savers", period=None, category="isa", related_categories=[]
    )
    bound, _ = provider.extract_units(page=page, context=context, concepts=concepts)
    by_amount = {unit.value_amount: unit for unit in bound}
    assert by_amount[Decimal("20000")].concept_id == "isa.annual_allowance"
    junior = by_amount[Decimal("9000")]
    assert junior.concept_id is None  # two equally good concepts: triage, never a guess
    assert {c for c, _ in junior.candidates[:2]} == {"isa.junior.limit", "isa.junior.limit_twin"}


def test_binding_only_considers_the_page_categories():
    embedder = WordEmbedder()
    concepts = [
        concept("isa.annual_allowance", "ISA allowance", embedder),
        concept("pension.allowance", "ISA allowance pension", embedder, category="pension_tax"),
    ]
    page = page_from_html("<p>The ISA allowance is £20,000.</p>")
    context = PageContext(
        domain="x", audience="y", period=None, category="isa", related_categories=[]
    )
    [unit], _ = HeuristicProvider(embedder=embedder).extract_units(
        page=page, context=context, concepts=concepts
    )
    assert unit.concept_id == "isa.annual_allowance"
    assert [c for c, _ in unit.candidates] == ["isa.annual_allowance"]


class AgeBlindEmbedder:
    """One vector for every text: the embedding cannot tell 'under 25' from '25 or over'."""

    def embed(self, texts):
        return np.ones((len(texts), 8), dtype=np.float32) / np.sqrt(8)


@pytest.mark.parametrize(
    ("text", "band"),
    [
        ("Universal Credit standard allowance, single under 25", (0, 24)),
        ("If you're single and 25 or over; Monthly standard allowance: £393.45", (25, 120)),
        ("National Minimum Wage rate for under-18s", (0, 17)),
        ("National Minimum Wage rate for ages 18 to 20", (18, 20)),
        ("Higher rate £50,271 to £125,140 40%", None),  # money, not ages
        ("You can work 16 to 24 hours a week", None),
        ("Under-21s and apprentices under 25", None),  # two bands: no one band
    ],
)
def test_age_band_reads_the_one_band_a_text_names(text, band):
    assert age_band(text) == band


def test_an_age_band_the_unit_names_decides_between_concepts_the_embedding_cannot_tell_apart():
    embedder = AgeBlindEmbedder()
    concepts = [
        concept("uc.single_young", "Standard allowance, single under 25", embedder, "uc"),
        concept("uc.single_old", "Standard allowance, single 25 or over", embedder, "uc"),
    ]
    page = page_from_html(
        "<table><thead><tr><th>Your circumstances</th><th>Monthly standard allowance</th></tr>"
        "</thead><tbody><tr><td>Single, aged 18 to 24</td><td>£316.98</td></tr>"
        "<tr><td>Single, aged 25 or older</td><td>£400.14</td></tr></tbody></table>",
        title="Universal Credit",
    )
    context = PageContext(
        domain="UC", audience="y", period=None, category="uc", related_categories=[]
    )
    bound, _ = HeuristicProvider(embedder=embedder).extract_units(
        page=page, context=context, concepts=concepts
    )
    by_amount = {unit.value_amount: unit.concept_id for unit in bound}
    assert by_amount == {Decimal("316.98"): "uc.single_young", Decimal("400.14"): "uc.single_old"}


@pytest.mark.parametrize("hint", ["undated", "pre-2024-25", "2018-or-later", ""])
def test_vague_hints_give_no_dates(hint):
    assert hint_validity(hint) is None


def test_a_figure_is_bound_by_the_words_of_its_own_clause():
    """'residential' belongs to the 18%, not to the 10% stated beside it."""
    from decimal import Decimal

    from knowledge.domain.extraction import UnitProposal
    from knowledge.extraction.binding import _figure_clause

    text = (
        "Capital Gains Tax > If you pay basic rate Income Tax: you'll pay 10% on your gains "
        "(or 18% on residential property and carried interest)."
    )

    def clause(value):
        proposal = UnitProposal(
            unit_type="threshold",
            text=text,
            concept_id=None,
            evidence_quote=text,
            value_amount=Decimal(value),
            value_unit="percent",
        )
        return _figure_clause(proposal)

    assert "residential" not in clause(10) and "10%" in clause(10)
    assert "residential" in clause(18) and "10%" not in clause(18)


def test_a_for_example_aside_without_figures_is_no_unit_of_its_own():
    units = proposals(
        "<p>You must tell us about changes to your circumstances. "
        "For example, if you move house or start work.</p>"
    )
    assert [u.unit_type for u in units] == ["rule"]
    assert not any(u.evidence_quote.startswith("For example") for u in units)
