"""The scorers of claim checking's parts: a gold claim matched to the returned claim covering
it, and the aboutness figures of a reading over labelled pairs (how often a claim's best
candidate is one it is about)."""

from evaluation.aboutness import Pair, _figures, model_fit
from evaluation.claim_parts import matched_claims
from evaluation.verification import GoldClaim, VerifyCase
from knowledge.reading.aboutness import FEATURES
from knowledge.reading.claims import answer_claims


def test_each_gold_claim_is_matched_to_the_claim_covering_it():
    answer = "Child Benefit is £25.60 a week. The ISA allowance is £20,000."
    case = VerifyCase(
        id="x",
        answer=answer,
        claims=(
            GoldClaim(text="The ISA allowance is £20,000", verdict="supported"),
            GoldClaim(text="Child Benefit is £25.60 a week", verdict="supported"),
        ),
    )
    matched = matched_claims(case, answer_claims(answer))
    assert {(gold.text, claim.text) for gold, claim in matched} == {
        ("The ISA allowance is £20,000", "The ISA allowance is £20,000"),
        ("Child Benefit is £25.60 a week", "Child Benefit is £25.60 a week"),
    }


def _pair(claim: str, unit_id: int, similarity: float, about: bool) -> Pair:
    features = dict.fromkeys(FEATURES, 0.0) | {"similarity": similarity}
    return Pair("case", claim, "page", unit_id, features, about)


def test_the_best_candidate_counts_only_when_it_is_one_the_claim_is_about():
    pairs = [
        _pair("a", 1, 0.9, False),
        _pair("a", 2, 0.7, True),
        _pair("b", 3, 0.8, True),
        _pair("b", 4, 0.2, False),
    ]
    by_similarity = _figures(pairs, [p.features["similarity"] - 0.5 for p in pairs])
    assert by_similarity.best_right == 0.5  # claim a's best is not about it; claim b's is
    assert by_similarity.precision == 2 / 3 and by_similarity.recall == 1.0


def test_a_fitted_model_ranks_what_it_learned_is_about_first():
    pairs = [_pair(str(n), n, 0.9 if n % 2 else 0.3, bool(n % 2)) for n in range(40)]
    model = model_fit(pairs)
    assert model.probability(pairs[1].features) > model.probability(pairs[0].features)
    assert 0.0 < model.threshold < 1.0
