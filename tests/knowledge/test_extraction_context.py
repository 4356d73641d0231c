"""The heuristic extractor on real corpus pages: signposts are not units, a list keeps its
lead-in and every condition, a table row is written with its caption and column heads."""

import json
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from knowledge import embeddings
from knowledge.documents import document_from_json
from knowledge.extraction.navigation import is_navigation
from knowledge.extraction.sentences import is_fragment
from knowledge.extraction.units import extract_proposals
from knowledge.parsing import parse_document
from knowledge.providers import ConceptInfo, PageInput
from knowledge.providers.heuristic import HeuristicProvider
from knowledge.services.extract import is_cut_off
from knowledge.text.evidence import locate_quote

PAGES = Path(settings.BASE_DIR).parent / "shared" / "corpus" / "govuk" / "pages"


def page_input_from_file(name) -> PageInput:
    path = PAGES / name
    if not path.is_file():
        pytest.skip(f"real gov.uk corpus not found beside the project ({path})")
    return page_input_from_path(path)


def page_input_from_path(path: Path) -> PageInput:
    document = document_from_json(json.loads(path.read_text()), origin=path.name)
    parsed = parse_document(document)
    return PageInput(
        document.title,
        document.url,
        document.document_type,
        parsed.text,
        parsed.sections,
        document.period_hint,
        document.public_updated_at,
        is_cut_off(document.raw),
    )


def corpus_units(name):
    page = page_input_from_file(name)
    units = extract_proposals(page)
    for unit in units:  # every quote stays one verbatim span of the snapshot text
        located = locate_quote(unit.evidence_quote, page.text)
        assert located is not None and located.exact, unit.evidence_quote
    return units


def test_signposts_to_calculators_and_other_pages_are_not_units():
    texts = [unit.text for unit in corpus_units("universal-credit.json")]
    assert not [text for text in texts if "benefits calculator" in text]
    texts = [unit.text for unit in corpus_units("child-benefit-payment-dates.json")]
    assert "You can work out when you'll be paid." not in texts
    # the same verb with the method itself states a rule
    assert any(
        text.startswith("You can work out when") and " by counting " in text for text in texts
    )


def test_a_signpost_is_told_from_a_rule_by_what_it_does():
    assert is_navigation("Use a benefits calculator to check what you could get.")
    assert is_navigation("Contact HMRC to find out what you should do.")
    assert is_navigation("You can see the rates and allowance for previous years.")
    assert not is_navigation("You must contact the Child Benefit Office if you're paid too much.")
    assert not is_navigation("A Work Capability Assessment is used to find out if you can work.")
    assert not is_navigation("Contact the Child Benefit Office if you want someone else to claim.")
    assert is_navigation("The following table shows what you may be able to claim:")
    assert is_navigation("You can download the form from the student finance form finder.")
    assert not is_navigation("You must download and complete the form before 1 May.")


def test_signposts_to_sign_in_estimate_or_other_rules_are_not_units():
    pip = [unit.text for unit in corpus_units("pip.json")]
    assert pip and not [text for text in pip if "sign in to your PIP account" in text]
    savings = "apply-tax-free-interest-on-savings--how-much-tax-you-pay--2021-22-or-later.json"
    texts = [unit.text for unit in corpus_units(savings)]
    assert texts and not [text for text in texts if "get an estimate of how much tax" in text]
    assert is_navigation("There are different eligibility rules if you're nearing the end of life.")
    assert not is_navigation("There are different rules for employers.  You must pay 13.8%.")
    # what the reader would look up may itself bind ("how much you have to pay"): a signpost
    assert is_navigation("You may be able to get an estimate of how much tax you have to pay.")
    assert not is_navigation("You must sign in to your account to report changes.")
    # help that is only said to exist somewhere else
    assert is_navigation("You may be able to get other help with housing costs.")
    assert is_navigation("You may not get the full amount, so you may have to find other ways.")
    assert not is_navigation("You can get other help if you're a carer: £81.90 a week.")
    assert is_navigation("There's a different process if you're in Northern Ireland.")
    assert is_navigation("You can also contact Jobcentre Plus.")
    assert not is_navigation("You must contact Jobcentre Plus within 7 days.")


def test_helpline_opening_hours_and_postcodes_are_contact_details_not_units():
    esa = corpus_units("employment-support-allowance.json")
    assert esa and not [u for u in esa if "Opening times" in u.text]
    assert is_navigation("BX5 5BD You do not need to include a street name with this address.")
    assert not is_navigation("Send the form to HMRC by 31 January.")


def test_a_sentence_announcing_a_list_it_lost_is_not_a_unit():
    texts = [unit.text for unit in corpus_units("jobseekers-allowance.json")]
    assert texts and not [text for text in texts if text.endswith("the following changes.")]
    # its list's lead-in, with the list, is one unit
    assert is_fragment("If you get income-based JSA, you must report the following changes.")
    assert not is_fragment("The following rules apply to all claims.")
    # what an amount turns on, without how: the lines after it are the facts
    assert is_fragment("The amount you could get depends on when your children were born.")
    assert not is_fragment("How much you get depends on your age: £71.70 if you're under 25.")
    assert not is_fragment("Your pension depends on your National Insurance record.")


def test_a_sentence_offering_something_instead_keeps_what_it_replaces():
    units = corpus_units("sure-start-maternity-grant.json")
    [unit] = [u for u in units if "Pregnancy and Baby Payment instead" in u.text]
    assert unit.text.startswith("If you live in Scotland you cannot get a Sure Start")
    assert unit.evidence_quote.startswith("If you live in Scotland")


def test_a_row_of_a_plain_text_table_names_its_column_heads():
    units = corpus_units("child-benefit--what-youll-get--2024-25.json")
    [row] = [u for u in units if u.evidence_quote == "Eldest or only child £25.60"]
    assert "Who the allowance is for Rate (weekly): Eldest or only child £25.60" in row.text
    assert row.value_period == "week"


def test_a_figure_whose_period_comes_from_its_page_says_it_in_its_text():
    units = corpus_units("national-minimum-wage-rates.json")
    rows = [u for u in units if u.evidence_quote.startswith("April 2025;") and u.value_amount]
    under_18 = [u for u in rows if "Under 18: £7.55" in u.text]
    assert under_18 and all("Under 18: £7.55 an hour" in u.text for u in under_18)
    assert {u.value_period for u in rows} == {"hour"}
    # a period the text already names is not said twice
    pip = [u for u in corpus_units("pip.json") if "lower weekly rate is £28.70" in u.text]
    assert pip and not [u for u in pip if "£28.70 a week" in u.text]


def test_a_range_gives_its_period_to_both_ends_and_a_heading_is_no_column_head():
    units = corpus_units("maternity-allowance.json")
    [low] = [
        u
        for u in units
        if u.value_amount is not None
        and "between £27 and" in u.text
        and str(u.value_amount) == "27"
    ]
    assert low.value_period == "week"
    unpaid = [u for u in units if "unpaid work for your spouse" in u.evidence_quote]
    assert unpaid and all(u.text.count("If you do unpaid work") <= 1 for u in unpaid)


def test_a_table_in_a_section_with_text_takes_no_caption_from_the_section_before():
    units = corpus_units("child-benefit.json")
    rows = [u for u in units if "Additional children" in u.evidence_quote]
    assert rows and not [u for u in rows if "If your circumstances change" in u.text]


def test_a_threshold_under_both_of_the_following_holds_both_conditions():
    units = corpus_units("employment-support-allowance.json")
    [unit] = [u for u in units if u.unit_type == "threshold" and str(u.value_amount) == "183.50"]
    assert "if both of the following apply" in unit.text
    assert "you work less than 16 hours a week" in unit.text
    assert "16 hours" in unit.evidence_quote and "£183.50" in unit.evidence_quote


def test_a_figure_in_a_list_that_picks_one_item_is_stated_with_every_item():
    units = corpus_units("new-state-pension--what-youll-get--2024-25.json")
    [unit] = [u for u in units if u.value_amount is not None and str(u.value_amount) == "2.5"]
    assert "by whichever is the highest:" in unit.text
    assert "earnings" in unit.text and "prices" in unit.text  # not "increases by 2.5%" alone
    assert unit.evidence_quote.startswith("The new State Pension increases each year")


def test_a_list_of_figures_is_its_figures_units_not_also_a_rule():
    units = corpus_units("universal-credit.json")
    caps = [u for u in units if u.evidence_quote.startswith("- £1,014.63")]
    assert caps and all(u.unit_type == "threshold" for u in caps)
    assert all("The most you can get each month is:" in u.text for u in caps)
    assert not [u for u in units if "The most you can get each month is:" in u.evidence_quote]


def test_a_sentence_presupposing_eligibility_is_a_rule_not_eligibility():
    units = corpus_units("jobseekers-allowance.json")
    [unit] = [u for u in units if u.evidence_quote.startswith("As long as you're still eligible")]
    assert unit.unit_type == "rule"


def test_a_short_lead_in_is_stated_with_its_heading():
    units = corpus_units("capital-gains-tax--rates--2024-25.json")
    texts = [
        u.text for u in units if u.evidence_quote == "- 24% on your gains from residential property"
    ]
    assert texts and all(text.startswith("Capital Gains Tax > Gains ") for text in texts)


def test_a_plain_text_table_row_is_written_with_caption_and_column_heads():
    units = corpus_units("income-tax-rates--current-rates-and-allowances--2024-25.json")
    [unit] = [u for u in units if u.unit_type == "threshold" and str(u.value_amount) == "40"]
    assert unit.evidence_quote == "Higher rate £50,271 to £125,140 40%"
    assert unit.text.startswith("Income Tax rates and bands")
    assert "Band Taxable income Tax rate: Higher rate £50,271 to £125,140 40%" in unit.text
    # the table names no year: the provider states none (the band's limits are yearly
    # figures, dated by the page's capture where the unit is stored: see test_dating)
    assert (unit.valid_from, unit.valid_to) == (None, None)


@pytest.fixture(scope="module")
def taxonomy_concepts():
    """The shipped taxonomy's concepts with real MiniLM vectors, as pass 1 sees them."""
    data = yaml.safe_load((Path(settings.BASE_DIR) / "fixtures" / "taxonomy.yaml").read_text())
    infos = [
        (category["slug"], concept)
        for category in data["categories"]
        for concept in category["concepts"]
    ]
    texts = [f"{concept['name']}. {concept['description']}" for _, concept in infos]
    vectors = embeddings.get_embedder().embed(texts)
    return [
        ConceptInfo(concept["id"], concept["name"], concept["description"], slug, tuple(vector))
        for (slug, concept), vector in zip(infos, vectors, strict=True)
    ]


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("childcare-grant.json", "student_finance"),  # not Tax-Free Childcare
        ("guidance--new-style-employment-and-support-allowance.json", "benefits_sick_pay"),
        ("universal-credit.json", "benefits_low_income"),
        ("child-benefit.json", "child_benefit"),
    ],
)
def test_pass_one_files_a_page_under_the_category_whose_concepts_name_its_subject(
    name, category, taxonomy_concepts
):
    page = page_input_from_file(name)
    context, _ = HeuristicProvider().page_context(
        page=page, categories=[], concepts=taxonomy_concepts
    )
    assert context.category == category


def test_a_rate_the_same_in_every_row_of_a_table_is_one_unit():
    """The NI tables give 0% on £123 to £175 for every category letter: one unit says so,
    and each letter keeps only the rates of its own."""
    units = corpus_units("national-insurance-rates-letters.json")
    employer_zero = [
        u
        for u in units
        if "Employer" in u.text and "£123 to £175" in u.text and u.value_amount == 0
    ]
    assert len(employer_zero) == 1
    assert "(the same for every category letter)" in employer_zero[0].text
    letter_h = [u for u in units if "Category letter: H;" in u.text and u.value_amount is not None]
    assert letter_h and all("same for every" not in u.text for u in letter_h)
