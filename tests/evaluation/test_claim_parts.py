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


def test_the_learning_curve_fits_on_nested_shares_of_the_training_pages_only(monkeypatch):
    """Each point is fitted on a share of each fold's training pages, the smaller shares'
    pages among the larger's, and never on a page it is scored on."""
    from types import SimpleNamespace

    import evaluation.aboutness as aboutness
    from evaluation.verification import CaseResult

    cases = [
        VerifyCase(
            id=f"c{i}",
            answer="x",
            claims=(
                GoldClaim(text="x", verdict="supported", gold=({"url": f"https://p/{i % 10}"},)),
            ),
        )
        for i in range(40)
    ]
    page = {case.id: case.claims[0].gold[0].url for case in cases}
    fitted: list[set[str]] = []
    monkeypatch.setattr(aboutness, "labelled_pairs", lambda training, prepared: training)
    monkeypatch.setattr(aboutness, "model_fit", lambda training: training)

    def best_cuts(training, prepared, model):
        fitted.append({page[c.id] for c in model})
        return SimpleNamespace(cuts=SimpleNamespace(), pages=fitted[-1])

    monkeypatch.setattr(aboutness, "best_cuts", best_cuts)
    scored: list[tuple[set[str], str]] = []

    def case_read(case, prepared, reader):
        scored.append((reader.pages, page[case.id]))
        return CaseResult(case.id, [("supported", "supported", "")], [], 0.0)

    monkeypatch.setattr(aboutness, "case_read", case_read)
    curve = aboutness.learning_curve(
        cases, {case.id: [] for case in cases}, progress=lambda _: None
    )

    assert [point["share"] for point in curve] == list(aboutness.CURVE_SHARES)
    assert curve[-1]["training_answers"] == 32  # 8 of 10 pages, 4 answers each
    assert all(point["verdict_accuracy"] == 1.0 for point in curve)
    assert all(held_out not in pages for pages, held_out in scored)
    folds = aboutness.FOLDS
    by_fold = [fitted[s * folds : (s + 1) * folds] for s in range(len(curve))]
    for smaller, larger in zip(by_fold, by_fold[1:], strict=False):
        assert all(a < b for a, b in zip(smaller, larger, strict=True))
    assert [len(pages) for pages in by_fold[-1]] == [8] * folds
