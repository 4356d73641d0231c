"""Outcome accuracy as the eval README scores it, `outdated` included: over hand-made
question results (no search)."""

from evaluation.retrieval import QuestionResult, summarise


def _result(id_, *, answerable, outcome, dated=False, rank=1):
    return QuestionResult(
        id=id_,
        kind="amount",
        category="benefits",
        answerable=answerable,
        outcome=outcome,
        reasons=[],
        rank=rank if answerable else None,
        strict_rank=None,
        milliseconds=1.0,
        dated=dated,
    )


def test_outdated_is_right_when_undated_with_a_gold_unit_served_and_for_unanswerable():
    results = [
        _result("ok", answerable=True, outcome="ok"),
        _result("outdated_undated", answerable=True, outcome="outdated"),
        _result("outdated_dated", answerable=True, outcome="outdated", dated=True),
        _result("outdated_no_gold", answerable=True, outcome="outdated", rank=None),
        _result("refused", answerable=False, outcome="no_match"),
        _result("unanswerable_outdated", answerable=False, outcome="outdated"),
        _result("unanswerable_ok", answerable=False, outcome="ok"),
        _result("invalid", answerable=False, outcome="invalid"),
    ]

    report = summarise(results)

    assert report["outcome_accuracy"] == round(4 / 8, 4)
    assert report["outdated"] == 4
    assert {m["id"] for m in report["misses"]} == {
        "outdated_dated",
        "outdated_no_gold",
        "unanswerable_ok",
        "invalid",
    }
