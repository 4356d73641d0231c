"""Ranking on hand-made rows, shaped as the SQL stage returns them: concept rows are
(concept id, similarity), unit rows (unit id, concept id, similarity) and full-text rows
(unit id, concept id, ts_rank), each in the database's order. Similarities are fractions
of a power of two, so that the scores compare exactly."""

import pytest

from knowledge.retrieval.ranking import RRF_K, apply_quality, rank


def _scores(rows: list[dict]) -> list[tuple[int, float]]:
    return [(row["id"], row["score"]) for row in rows]


# --- rank: the three modes --------------------------------------------------------------------


def test_concept_mode_scores_a_concept_by_its_own_text_and_keeps_its_best_unit_beside():
    concepts = [(1, 0.75), (2, 0.625)]
    units = [(10, 1, 0.5), (11, 1, 0.875), (12, 3, 0.875)]  # concept 3: found by a unit only

    ranked = rank(concepts, units, [], mode="concept", floor=0.5)

    assert ranked == [
        {"id": 1, "score": 0.75, "concept": 0.75, "unit": 0.875, "text": 0.0},
        {"id": 2, "score": 0.625, "concept": 0.625, "unit": 0.0, "text": 0.0},
    ]


def test_units_mode_scores_a_concept_by_its_best_unit():
    concepts = [(1, 0.5), (2, 0.9375)]  # concept 2: found by its own text only
    units = [(10, 1, 0.625), (11, 1, 0.875), (12, 3, 0.75), (13, 1, 0.75)]

    ranked = rank(concepts, units, [], mode="units", floor=0.5)

    assert ranked == [
        {"id": 1, "score": 0.875, "concept": 0.5, "unit": 0.875, "text": 0.0},
        {"id": 3, "score": 0.75, "concept": 0.0, "unit": 0.75, "text": 0.0},
    ]


def test_both_mode_takes_the_better_of_the_unit_and_the_mean_or_the_concept_without_units():
    concepts = [(1, 0.75), (2, 0.5), (3, 0.875)]
    units = [(10, 1, 0.5), (20, 2, 0.75), (40, 4, 0.5625)]

    ranked = rank(concepts, units, [], mode="both", floor=0.0)

    assert _scores(ranked) == [
        (3, 0.875),  # no unit: its own similarity
        (2, 0.75),  # the unit beats the mean (0.625)
        (1, 0.625),  # the mean of 0.75 and 0.5 beats the unit
        (4, 0.5625),  # no concept row: the unit beats the mean (0.28125)
    ]


def test_the_floor_keeps_a_score_equal_to_it_and_drops_one_just_below():
    ranked = rank([(1, 0.5), (2, 0.4999), (3, 0.875)], [], [], mode="concept", floor=0.5)

    assert _scores(ranked) == [(3, 0.875), (1, 0.5)]


def test_without_candidates_nothing_is_ranked():
    assert rank([], [], [], mode="both", floor=0.0) == []


def test_concepts_come_best_first_whatever_the_order_of_the_rows():
    units = [(10, 1, 0.5), (20, 2, 0.875), (30, 3, 0.625), (40, 4, 0.75)]

    ranked = rank([], units, [], mode="units", floor=0.5)

    assert _scores(ranked) == [(2, 0.875), (4, 0.75), (3, 0.625), (1, 0.5)]


def test_concepts_of_equal_score_are_all_kept_with_that_score():
    ranked = rank([(1, 0.75), (2, 0.625), (3, 0.75)], [], [], mode="concept", floor=0.5)

    assert sorted(_scores(ranked[:2])) == [(1, 0.75), (3, 0.75)]
    assert _scores(ranked[2:]) == [(2, 0.625)]


# --- rank: fused with the full-text order -----------------------------------------------------


def test_full_text_ranks_reorder_the_concepts_on_the_vector_scores_scale():
    concepts = [(1, 0.875), (2, 0.75), (3, 0.625)]
    # A concept's full-text rank is the place of its first matched unit; the ts_rank values
    # themselves play no part (unit 20's, the highest, comes last).
    text = [(30, 3, 0.25), (31, 3, 0.125), (20, 2, 0.5)]

    ranked = rank(concepts, [], text, mode="concept", floor=0.5)

    # Fused: 1 = 1/61, 2 = 1/62 + 1/63, 3 = 1/63 + 1/61, so 3 > 2 > 1; the scores stay the
    # vector ones (0.875, 0.75, 0.625), handed out in the fused order.
    assert [(row["id"], row["score"], row["concept"], row["text"]) for row in ranked] == [
        (3, 0.875, 0.625, 1.0),
        (2, 0.75, 0.75, 1 / 3),
        (1, 0.625, 0.875, 0.0),
    ]
    assert [row["fused"] for row in ranked] == [
        1 / (RRF_K + 3) + 1 / (RRF_K + 1),
        1 / (RRF_K + 2) + 1 / (RRF_K + 3),
        1 / (RRF_K + 1),
    ]


def test_full_text_ranks_that_agree_with_the_vector_order_change_nothing():
    concepts = [(1, 0.875), (2, 0.75)]

    ranked = rank(concepts, [], [(10, 1, 0.5), (20, 2, 0.25)], mode="concept", floor=0.5)

    assert [(row["id"], row["score"], row["text"]) for row in ranked] == [
        (1, 0.875, 1.0),
        (2, 0.75, 0.5),
    ]


def test_a_concept_only_the_full_text_found_has_no_vector_rank_to_add():
    concepts = [(1, 0.875), (2, 0.75)]
    # concept 9: matched by the full text only, first there; no vector similarity at all
    text = [(90, 9, 0.5), (20, 2, 0.25)]

    ranked = rank(concepts, [], text, mode="concept", floor=0.0)

    fused = {row["id"]: row["fused"] for row in ranked}
    assert fused == {
        1: 1 / (RRF_K + 1),
        2: 1 / (RRF_K + 2) + 1 / (RRF_K + 2),
        9: 1 / (RRF_K + 1),  # its text rank alone, not also the vector rank of a third place
    }
    # 2 leads on both orders; 1 (vector first) keeps its place over 9 (text first), which
    # takes the last score, the 0.0 it had
    assert [(row["id"], row["score"]) for row in ranked] == [(2, 0.875), (1, 0.75), (9, 0.0)]


# --- apply_quality ----------------------------------------------------------------------------


def _ranked(*scores: float) -> list[dict]:
    """Rows as rank returns them, ids 1, 2, … in the order given."""
    return [
        {"id": n, "score": score, "concept": score, "unit": 0.0, "text": 0.0}
        for n, score in enumerate(scores, start=1)
    ]


def _kept(rows: list[dict]) -> list[tuple[int, float, bool]]:
    return [(row["id"], row["score"], row["below"]) for row in rows]


def test_quality_keeps_the_scores_at_or_above_it_in_rank_order():
    kept = apply_quality(_ranked(0.875, 0.75, 0.625, 0.5), quality=0.625, k=5, min_results=0)

    assert _kept(kept) == [(1, 0.875, False), (2, 0.75, False), (3, 0.625, False)]


def test_k_cuts_the_good_ones_to_the_best_k():
    kept = apply_quality(_ranked(0.875, 0.75, 0.625, 0.5), quality=0.5, k=2, min_results=2)

    assert _kept(kept) == [(1, 0.875, False), (2, 0.75, False)]


def test_too_few_good_ones_are_topped_up_from_the_best_of_the_rest_marked_below():
    kept = apply_quality(_ranked(0.875, 0.5, 0.375, 0.25), quality=0.75, k=5, min_results=3)

    assert _kept(kept) == [(1, 0.875, False), (2, 0.5, True), (3, 0.375, True)]


def test_the_top_up_stops_when_the_rest_runs_out():
    kept = apply_quality(_ranked(0.875, 0.5), quality=0.75, k=5, min_results=5)

    assert _kept(kept) == [(1, 0.875, False), (2, 0.5, True)]


def test_with_nothing_good_the_minimum_is_all_below_quality():
    ranked = _ranked(0.625, 0.5, 0.375)

    assert _kept(apply_quality(ranked, quality=0.75, k=5, min_results=2)) == [
        (1, 0.625, True),
        (2, 0.5, True),
    ]
    assert apply_quality(ranked, quality=0.75, k=5, min_results=0) == []


def test_enough_good_ones_take_nothing_from_below():
    kept = apply_quality(_ranked(0.875, 0.75, 0.5), quality=0.75, k=5, min_results=2)

    assert _kept(kept) == [(1, 0.875, False), (2, 0.75, False)]


@pytest.mark.parametrize(
    ("quality", "k", "min_results", "kept_ids"),
    [
        (0.75, 1, 1, [1]),  # the cut at k keeps the first of a tie
        (0.875, 2, 2, [1, 2]),  # the top-up takes the first of a tie
    ],
)
def test_ties_keep_the_rank_order(quality, k, min_results, kept_ids):
    kept = apply_quality(_ranked(0.75, 0.75, 0.75), quality=quality, k=k, min_results=min_results)

    assert [row["id"] for row in kept] == kept_ids


def test_the_ranked_rows_are_copied_not_marked():
    ranked = _ranked(0.875, 0.5)

    kept = apply_quality(ranked, quality=0.75, k=5, min_results=2)

    assert ranked == _ranked(0.875, 0.5)
    assert kept == [dict(ranked[0], below=False), dict(ranked[1], below=True)]


def test_rank_then_quality_as_the_search_runs_them():
    concepts = [(1, 0.875), (2, 0.75)]
    units = [(10, 1, 0.625), (20, 2, 0.875), (30, 3, 0.5625), (40, 4, 0.53125)]
    k = 2

    ranked = rank(concepts, units, [], mode="both", floor=0.5)[: 2 * k]
    kept = apply_quality(ranked, quality=0.8, k=k, min_results=2)

    # 1: mean 0.75; 2: unit 0.875; 3, 4: their units; only 2 reaches 0.8.
    assert _kept(kept) == [(2, 0.875, False), (1, 0.75, True)]
