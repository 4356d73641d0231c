"""Search benchmark: the raw nearest-neighbour SQL, the search service and the HTTP API, HNSW
recall and index cost, on synthetic knowledge bases at multiples of production size.

Runs in a throwaway database (the `bench_search` command creates and drops it). At 1× the
synthetic base has the shape of the production system this design comes from: 746 concepts
and 7,753 units in 23 categories. Units cluster around their concept (VECTOR_MODELS), a
quarter are historical, and every row passes the same constraints as real data. Rows go in
with binary COPY and the HNSW indexes are built afterwards, so the build is timed on its own.

Recall depends on how the vectors spread far more than on anything in the database: random
isotropic directions in 384 dimensions (the `isotropic` model) give HNSW no gradient to
follow between clusters, while text embeddings have a low intrinsic dimension (`calibrated`).

This module runs one scale end to end; the stages live beside it: `draws` (vectors, texts,
questions), `synthetic` and `bulk_load` (the base), `timing` (latencies), `recall` (recall,
plan, sizes); `report` prints the figures.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

import numpy as np
from django.utils import timezone

from evaluation.bench.draws import VECTOR_MODELS, queries_draw
from evaluation.bench.options import BenchOptions, Progress
from evaluation.bench.recall import (
    recall_measure,
    relation_bytes,
    server_setting,
    service_recall_measure,
    unit_query_plan,
)
from evaluation.bench.synthetic import SyntheticBase, base_build
from evaluation.bench.timing import Latencies, latencies_measure
from knowledge import retrieval
from knowledge.embeddings import get_embedder


@dataclass
class ScaleResult:
    scale: float
    base: SyntheticBase
    latencies: Latencies
    recall_at_10: dict[int, list[float]]  # by ef_search
    recall_near: np.ndarray
    service_recall_at_10: list[float]  # the service's own unit query, filters and all
    ef_search: int  # the unit query's, for this scale's table size
    unit_index_bytes: int
    concept_index_bytes: int
    unit_query_plan: str
    shared_buffers: str
    bench_peak_mb: float  # this process: the synthetic base's arrays, the clients, the model
    seconds: float

    @property
    def hnsw_used(self) -> bool:
        """Whether the first question's unit query went through the HNSW index."""
        return "unit_embedding_hnsw" in self.unit_query_plan


def scale_run(*, scale: float, options: BenchOptions, progress: Progress) -> ScaleResult:
    """Build the synthetic base at `scale`× production in the current (throwaway) database,
    then measure. Empties the knowledge and API tables first."""
    started = time.perf_counter()
    rng = np.random.default_rng(options.seed)
    base = base_build(scale=scale, rng=rng, options=options, progress=progress)
    drawn = queries_draw(
        topics=base.topics,
        count=options.queries,
        shaped=VECTOR_MODELS[options.vectors].shaped,
        rng=rng,
    )
    floor = retrieval.thresholds_for_model(get_embedder().name)["floor"]
    day = timezone.localdate()
    retrieval.table_sizes_forget()  # this scale's tables, not the last one's
    ef_search = retrieval.unit_ef_search()
    progress(f"{scale:g}×: latencies ({options.queries} queries × {options.repeats} repeats)")
    plan = unit_query_plan(vector=drawn.vectors[0], floor=floor, day=day)
    latencies = latencies_measure(
        queries=drawn, options=options, floor=floor, day=day, progress=progress
    )
    bench_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    progress(f"{scale:g}×: recall against exact search")
    recall = recall_measure(vectors=drawn.vectors, ef_values=options.recall_ef or (ef_search,))
    service_recall = service_recall_measure(vectors=drawn.vectors, floor=floor, day=day)
    return ScaleResult(
        scale=scale,
        base=base,
        latencies=latencies,
        recall_at_10=recall,
        recall_near=drawn.near,
        service_recall_at_10=service_recall,
        ef_search=ef_search,
        unit_index_bytes=relation_bytes("unit_embedding_hnsw"),
        concept_index_bytes=relation_bytes("concept_embedding_hnsw"),
        unit_query_plan=plan,
        shared_buffers=server_setting("shared_buffers"),
        bench_peak_mb=bench_peak_mb,
        seconds=time.perf_counter() - started,
    )
