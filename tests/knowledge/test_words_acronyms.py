"""A user's abbreviation is covered where gov.uk writes the name out."""

from knowledge.text.words import acronyms, spelled_out


def test_capitalised_abbreviations_are_read_from_the_question():
    assert acronyms("What is the HICBC threshold for ISAs?") == {"hicbc", "isa"}
    assert acronyms("how much is child benefit") == set()


def test_a_name_written_out_in_capitals_spells_its_abbreviation():
    text = "You may have to pay the High Income Child Benefit Charge if your income is over"
    assert spelled_out("hicbc", text)
    assert spelled_out("paye", "You pay tax through Pay As You Earn.")


def test_initials_of_ordinary_words_do_not_spell_an_abbreviation():
    assert not spelled_out("pa", "you pay a lot of tax")
    assert not spelled_out("hicbc", "high income child benefit charge")  # not written as a name
