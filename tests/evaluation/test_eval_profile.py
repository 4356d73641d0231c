"""Scoring the profile questions (evaluation.profile): suggestion records by the
aspects their top 10 cover and by a unit wrong for the user among them; the figures over a
pass."""

from evaluation.profile import (
    ProfileQuestion,
    ProfileResult,
    evaluate_record,
    summarise_profile,
)
from knowledge.models import AtomicUnit, Source
from knowledge.retrieval.hits import ConceptHit, UnitHit

GRANT = "https://www.gov.uk/sure-start-maternity-grant"


def _hit(url: str, quote: str) -> ConceptHit:
    unit = AtomicUnit(source=Source(url=url), evidence_quote=quote, text=quote)
    return ConceptHit(None, 0.7, 0.7, 0.7, 0.0, False, [UnitHit(unit, 0.7, "current", url)])


def _suggest_record(**fields) -> ProfileQuestion:
    return ProfileQuestion.model_validate(
        {
            "id": "s-1",
            "question": None,
            "profile": {"nation": "scotland", "children_ages": [0]},
            "answerable": True,
            "kind": "suggest",
            "aspects": [
                {"name": "grant", "gold": [{"url": GRANT, "span": "Pregnancy and Baby Payment"}]},
                {
                    "name": "benefit",
                    "gold": [{"url": "https://www.gov.uk/child-benefit", "span": "x"}],
                },
            ],
            "wrong": [{"url": GRANT, "span": "A Sure Start Maternity Grant is £500"}],
            **fields,
        }
    )


def test_a_suggestion_list_covers_the_aspects_whose_pages_it_shows_and_is_wrong_by_span():
    right = [_hit(GRANT, "You can apply for a Pregnancy and Baby Payment instead.")]
    result = evaluate_record(_suggest_record(), with_profile=True, suggest=lambda *_: right)
    assert result.aspects_covered == [True, False] and result.wrong_served is False
    wrong = right + [_hit(GRANT, "A Sure Start Maternity Grant is £500 and you do not repay it.")]
    result = evaluate_record(_suggest_record(), with_profile=True, suggest=lambda *_: wrong)
    assert result.wrong_served is True
    # without the profile nothing is suggested
    result = evaluate_record(_suggest_record(), with_profile=False, suggest=lambda *_: wrong)
    assert result.aspects_covered == [False, False] and result.wrong_served is False


def test_the_figures_of_a_pass():
    results = [
        ProfileResult("a", "nation", True, True, outcome="ok", rank=1, strict_rank=2),
        ProfileResult("b", "nation", True, True, outcome="ok", rank=3, wrong_served=True),
        ProfileResult("c", "age", False, True, outcome="no_match"),
        ProfileResult("d", "age", False, True, outcome="ok", wrong_served=True),
        ProfileResult("s", "suggest", True, True, aspects_covered=[True, True, False]),
        ProfileResult("t", "suggest", True, True, aspects_covered=[True], wrong_served=True),
    ]
    figures = summarise_profile(results)
    assert figures["recall@5"] == 1.0 and figures["strict_recall@5"] == 0.5
    assert figures["wrong_served"] == 0.5  # of the four questions
    assert figures["unanswerable_refused"] == 0.5 and figures["answerable_refused"] == 0.0
    assert figures["suggest_aspect_coverage@10"] == 0.75
    assert figures["suggest_wrong@10"] == 0.5
    assert [m["id"] for m in figures["misses"]] == ["b", "d"]
    assert figures["by_kind"]["nation"]["wrong_served"] == 0.5
