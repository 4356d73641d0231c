"""Ranking the candidate concepts: by the similarity of their own text, of their nearest
unit, or both, optionally fused with the full-text order, then cut to the quality threshold
and topped up to the minimum from the best of the rest."""

from __future__ import annotations

RRF_K = 60


def rank(concept_rows, unit_rows, text_rows, *, mode: str, floor: float) -> list[dict]:
    """Candidate concepts at or above `floor`, best first, each a dict of its id, `score`
    and the similarities behind it (`concept`, `unit`, `text`)."""
    concept_sim = dict(concept_rows)
    unit_sim: dict[int, float] = {}
    for _, concept_id, similarity in unit_rows:
        unit_sim[concept_id] = max(unit_sim.get(concept_id, 0.0), similarity)
    text_rank: dict[int, int] = {}
    for position, (_, concept_id, _) in enumerate(text_rows):
        text_rank.setdefault(concept_id, position + 1)
    ids = set(concept_sim) | set(unit_sim) | set(text_rank)
    rows = []
    for concept_id in ids:
        c, u = concept_sim.get(concept_id, 0.0), unit_sim.get(concept_id, 0.0)
        score = {"concept": c, "units": u, "both": max(u, (c + u) / 2 if u else c)}[mode]
        rows.append({"id": concept_id, "score": score, "concept": c, "unit": u, "text": 0.0})
    if text_rows:
        _fuse_text_ranks(rows, text_rank)
    rows = [row for row in rows if row["score"] >= floor]
    return sorted(rows, key=lambda row: row["score"], reverse=True)


def _fuse_text_ranks(rows: list[dict], text_rank: dict[int, int]) -> None:
    """Reciprocal rank fusion of the vector order with the full-text order. A concept only
    the full text found has no place in the vector order, so only its text rank counts."""
    by_vector = sorted(rows, key=lambda row: row["score"], reverse=True)
    found_by_vector = [row for row in by_vector if row["score"] > 0]
    vector_rank = {row["id"]: place for place, row in enumerate(found_by_vector, start=1)}
    for row in by_vector:
        fused = 1 / (RRF_K + vector_rank[row["id"]]) if row["id"] in vector_rank else 0.0
        if row["id"] in text_rank:
            fused += 1 / (RRF_K + text_rank[row["id"]])
            row["text"] = 1 / text_rank[row["id"]]
        row["fused"] = fused
    order = sorted(by_vector, key=lambda row: row["fused"], reverse=True)
    scores = sorted((row["score"] for row in rows), reverse=True)
    for row, score in zip(order, scores, strict=True):
        row["score"] = score  # keep the similarity scale the thresholds speak


def apply_quality(ranked: list[dict], *, quality: float, k: int, min_results: int) -> list[dict]:
    """The best `k` at or above `quality`, topped up to `min_results` from the rest, which
    are marked `below`."""
    good = [dict(row, below=False) for row in ranked if row["score"] >= quality][:k]
    if len(good) < min_results:
        rest = [dict(row, below=True) for row in ranked if row["score"] < quality]
        good += rest[: min_results - len(good)]
    return good
