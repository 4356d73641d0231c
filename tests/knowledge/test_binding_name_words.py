"""Name words in binding, counted plainly or weighed by how few candidate names share them:
under Child Benefit every concept's name says "child benefit", so only the charge's own
words tell its threshold from who can get the benefit."""

from knowledge.extraction.binding import _name_share, _name_word_weights
from knowledge.text.words import content_words

NAMES = [
    content_words("Who can get Child Benefit"),
    content_words("High Income Child Benefit Charge threshold"),
    content_words("Child Benefit payment dates"),
]


def test_a_word_every_candidate_names_weighs_least():
    weights = _name_word_weights(NAMES)

    assert weights["child"] == weights["benefit"] < weights["charge"]
    assert weights["charge"] == weights["threshold"]  # one name each


def test_weighed_shares_favour_the_name_whose_own_words_are_near():
    near = content_words("You may have to pay the High Income Child Benefit Charge over £60,000")
    weights = _name_word_weights(NAMES)

    plain = [_name_share(name, near, None) for name in NAMES]
    weighed = [_name_share(name, near, weights) for name in NAMES]

    assert plain[0] == 2 / 3  # child and benefit of child, benefit, get
    # the charge's name leads the benefit's by more once shared words weigh less
    assert weighed[1] - weighed[0] > plain[1] - plain[0]
    assert _name_share(frozenset(), near, weights) == 0.0


def test_a_close_race_won_by_the_narrower_concept_the_unit_names_is_bound_to_it():
    from types import SimpleNamespace

    from knowledge.domain.extraction import UnitProposal
    from knowledge.extraction.binding import _narrower_named

    lifetime = SimpleNamespace(
        name="Who can open a Lifetime ISA (LISA)", taxonomy_id="isa.lifetime.eligibility"
    )
    isas = SimpleNamespace(name="Who can open an ISA", taxonomy_id="isa.eligibility")
    junior = SimpleNamespace(name="Who can open a Junior ISA", taxonomy_id="isa.junior.eligibility")

    def unit(text):
        return UnitProposal("eligibility", text, None, text)

    said = unit("If you're opening a Lifetime ISA you must also be under 40.")
    assert _narrower_named(said, lifetime, isas)
    # the broader leading, another narrower one, or the narrowing words unsaid: still a race
    assert not _narrower_named(said, isas, lifetime)
    assert not _narrower_named(said, lifetime, junior)
    assert not _narrower_named(unit("You must be 18 or over to open an ISA."), lifetime, isas)
