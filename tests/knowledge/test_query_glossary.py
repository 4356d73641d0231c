"""Glossary expansion: abbreviations and everyday names written out in gov.uk's words, one
reading per meaning of an ambiguous term, capitals respected where the glossary says so."""

from __future__ import annotations

import pytest

from knowledge.text.glossary import MAX_READINGS, GlossaryEntry, Reading, readings, terms_found

DOLE = "Jobseeker's Allowance unemployment benefit"
GLOSSARY = (
    GlossaryEntry("ISA", "Individual Savings Account", category_slug="isa"),
    GlossaryEntry("JISA", "Junior ISA", concept_id="isa.junior.annual_limit"),
    GlossaryEntry("PA", "Personal Allowance", match_case=True),
    GlossaryEntry("MA", "Marriage Allowance", match_case=True),
    GlossaryEntry("MA", "Maternity Allowance", match_case=True),
    GlossaryEntry("PIP", "Personal Independence Payment"),
    GlossaryEntry("HICBC", "High Income Child Benefit Charge"),
    GlossaryEntry("CB", "Child Benefit", match_case=True),
    GlossaryEntry("NIC", "National Insurance contributions"),
    GlossaryEntry("NICs", "National Insurance contributions"),
    GlossaryEntry("the dole", DOLE),
    GlossaryEntry("dole", DOLE),
    GlossaryEntry("uni", "university student finance"),
)


def found(text: str, glossary=GLOSSARY) -> list[tuple[str, list[str]]]:
    return [(term.term, [m.means for m in term.meanings]) for term in terms_found(text, glossary)]


# --- expansion --------------------------------------------------------------------------------


def test_an_abbreviation_is_followed_by_its_meaning():
    assert readings("How much can grandparents pay into a JISA?", GLOSSARY) == [
        Reading("How much can grandparents pay into a JISA (Junior ISA)?", ("JISA → Junior ISA",))
    ]


def test_a_term_found_knows_where_it_is_and_what_it_means():
    text = "Do I owe the HICBC?"
    (term,) = terms_found(text, GLOSSARY)

    assert (term.term, term.start, term.end) == ("HICBC", text.index("HICBC"), len(text) - 1)
    assert [m.means for m in term.meanings] == ["High Income Child Benefit Charge"]


def test_a_question_without_a_term_is_its_one_reading_unchanged():
    text = "When is the Self Assessment deadline?"

    assert terms_found(text, GLOSSARY) == []
    assert readings(text, GLOSSARY) == [Reading(text, ())]


def test_every_term_of_a_question_is_expanded_in_order():
    (reading,) = readings("Does CB count towards the HICBC and my PIP?", GLOSSARY)

    assert reading.text == (
        "Does CB (Child Benefit) count towards the HICBC (High Income Child Benefit Charge) "
        "and my PIP (Personal Independence Payment)?"
    )
    assert reading.expansions == (
        "CB → Child Benefit",
        "HICBC → High Income Child Benefit Charge",
        "PIP → Personal Independence Payment",
    )


def test_a_term_not_marked_match_case_is_found_in_any_capitals():
    assert found("is a jisa worth it") == [("jisa", ["Junior ISA"])]
    assert found("can I claim Pip") == [("Pip", ["Personal Independence Payment"])]


@pytest.mark.parametrize(
    "text",
    [
        "Does the USA tax my savings?",  # ISA inside a longer word
        "my non-ISA savings",  # joined by a hyphen
        "I live in a unit near the university",  # uni inside longer words
        "Pipework repairs",
    ],
)
def test_a_term_inside_another_word_is_not_found(text):
    assert found(text) == []


# --- ambiguous terms --------------------------------------------------------------------------


def test_an_ambiguous_term_gives_one_reading_per_meaning():
    result = readings("Can I get MA while on leave?", GLOSSARY)

    assert [r.text for r in result] == [
        "Can I get MA (Marriage Allowance) while on leave?",
        "Can I get MA (Maternity Allowance) while on leave?",
    ]
    assert [r.expansions for r in result] == [
        ("MA → Marriage Allowance",),
        ("MA → Maternity Allowance",),
    ]


def test_an_ambiguous_term_beside_a_plain_one_combines_each_meaning_with_it():
    result = readings("Does MA change my PA?", GLOSSARY)

    assert [r.expansions for r in result] == [
        ("MA → Marriage Allowance", "PA → Personal Allowance"),
        ("MA → Maternity Allowance", "PA → Personal Allowance"),
    ]


def test_the_same_meaning_under_two_entries_gives_one_reading():
    # "NICs" is a term of its own and also "NIC" with a plural s: one meaning, one reading.
    result = readings("How are my NICs worked out?", GLOSSARY)

    assert [r.text for r in result] == [
        "How are my NICs (National Insurance contributions) worked out?"
    ]


def test_readings_are_capped():
    glossary = (
        *GLOSSARY,
        GlossaryEntry("CA", "Carer's Allowance", match_case=True),
        GlossaryEntry("CA", "Constant Attendance Allowance", match_case=True),
        GlossaryEntry("SA", "Self Assessment", match_case=True),
        GlossaryEntry("SA", "Statutory Adoption Pay", match_case=True),
    )

    result = readings("MA, CA and SA: which can I get?", glossary)

    assert len(result) == MAX_READINGS < 2 * 2 * 2
    assert len({r.text for r in result}) == MAX_READINGS


# --- match_case -------------------------------------------------------------------------------


def test_a_match_case_term_in_lower_case_is_an_ordinary_word():
    assert found("I earn £30,000 pa, what tax do I pay?") == []
    assert found("my ma gets a State Pension") == []


def test_a_match_case_term_in_its_capitals_is_found_beside_the_lower_case_word():
    assert found("On £30k pa, how much is my PA?") == [("PA", ["Personal Allowance"])]


def test_a_match_case_term_in_mixed_capitals_is_not_found():
    assert found("Pa and Ma both retired") == []


# --- meaning already there, longest term, plurals ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "How do I renew my Personal Independence Payment (PIP)?",
        "PIP (personal independence payment) review",  # the meaning in other capitals
    ],
)
def test_a_meaning_written_beside_its_term_is_not_repeated(text):
    assert found(text) == []
    assert readings(text, GLOSSARY) == [Reading(text, ())]


def test_an_ambiguous_term_whose_one_meaning_is_written_keeps_the_others():
    assert found("I get Maternity Allowance; does that stop MA for my husband?") == [
        ("MA", ["Marriage Allowance"])
    ]


def test_the_longest_term_wins_where_two_overlap():
    assert found("Can I go on the dole after quitting?") == [("the dole", [DOLE])]

    (reading,) = readings("Can I go on the dole after quitting?", GLOSSARY)
    assert reading.text == f"Can I go on the dole ({DOLE}) after quitting?"
    assert reading.expansions == (f"the dole → {DOLE}",)


def test_the_shorter_term_is_found_where_the_longer_is_not():
    assert found("how much is dole money now") == [("dole", [DOLE])]


def test_the_longest_term_wins_even_when_it_starts_later():
    glossary = (
        GlossaryEntry("the ISA", "Individual Savings Account"),
        GlossaryEntry("ISA allowance", "ISA annual subscription limit"),
    )

    assert found("What is the ISA allowance this year?", glossary) == [
        ("ISA allowance", ["ISA annual subscription limit"])
    ]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("How many ISAs can I pay into?", "ISAs"),
        ("Do JISAs pass to the child at 18?", "JISAs"),
        ("two MAs", "MAs"),
    ],
)
def test_a_plural_acronym_is_found_and_expanded_after_its_s(text, term):
    terms = terms_found(text, GLOSSARY)

    assert [t.term for t in terms] == [term]
    reading = readings(text, GLOSSARY)[0]
    assert f"{term} (" in reading.text


def test_a_possessive_term_is_found():
    assert found("what is the ISA's limit") == [("ISA", ["Individual Savings Account"])]


def test_a_term_repeated_is_expanded_each_time():
    (reading,) = readings("PIP or PIP reassessment?", GLOSSARY)

    assert reading.text.count("(Personal Independence Payment)") == 2
