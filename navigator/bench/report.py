"""The search benchmark's report: per scale, the latency table, recall, memory and the unit
query's plan; at the largest scale, the acceptance figures against their targets."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
from django.conf import settings

from navigator.bench.search import ScaleResult
from navigator.bench.timing import Latencies, p50, p95

HTTP_TARGET = 2.0
RECALL_TARGET = 0.95

Write = Callable[[str], None]


def scale_report(r: ScaleResult, *, explain: bool, write: Write) -> None:
    b = r.base
    write(
        f"\n=== {r.scale:g}× production: {b.concepts:,} concepts, {b.units:,} units "
        f"({b.historical / b.units:.1%} historical), {b.sources:,} sources ==="
    )
    write(
        f"load {b.load_seconds:.1f} s; HNSW build: units {b.unit_index_seconds:.1f} s "
        f"({_mb(r.unit_index_bytes)}), concepts {b.concept_index_seconds:.1f} s "
        f"({_mb(r.concept_index_bytes)})"
    )
    _latency_table(r.latencies, write=write)
    _recall_lines(r, write=write)
    lat = r.latencies
    write(
        f"memory of an API worker (gunicorn, its own process): peak {lat.api_peak_mb:,.0f} MB "
        f"answering with planned vectors, {lat.api_model_peak_mb:,.0f} MB with the embedding "
        f"model loaded; this benchmark process: peak {r.bench_peak_mb:,.0f} MB; "
        f"scale run {r.seconds:.0f} s"
    )
    write(_plan_line(r))
    if explain:
        write("unit query plan:\n" + r.unit_query_plan)


def _latency_table(lat: Latencies, *, write: Write) -> None:
    raw95 = p95(lat.raw_sql_ms)
    write(f"{'path':<44} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'p95 / raw SQL p95':>18}")
    rows = [
        ("raw SQL: nearest_units (LIMIT 100, floor)", lat.raw_sql_ms),
        ("service: concept_search, embedding excluded", lat.service_ms),
        ("HTTP /api/v1/search, embedding excluded", lat.http_ms),
        ("  of which inside the endpoint (timings.http)", lat.endpoint_ms),
        ("HTTP /api/v1/search, embedding included", lat.http_embedded_ms),
    ]
    for name, ms in rows:
        if ms:
            write(
                f"{name:<44} {len(ms):>5} {p50(ms):>8.2f} {p95(ms):>8.2f} {p95(ms) / raw95:>18.2f}"
            )
    stages = [f"{stage} {p50(ms):.2f}" for stage, ms in lat.service_stages_ms.items()]
    write(f"service stages, p50 ms: {', '.join(stages)}")
    for name, ms in (
        ("query analysis inside the endpoint", lat.analysis_ms),
        ("heuristic analysis alone, in conversation, full glossary", lat.analysis_alone_ms),
    ):
        if ms:
            write(f"{name}: p50 {p50(ms):.3f} ms, p95 {p95(ms):.3f} ms (n={len(ms)})")
    if lat.embed_ms:
        write(
            f"embedding inside the request: p50 {p50(lat.embed_ms):.2f} ms, p95 {p95(lat.embed_ms):.2f} ms"
        )


def _recall_lines(r: ScaleResult, *, write: Write) -> None:
    for ef, values in r.recall_at_10.items():
        recalls = np.asarray(values)
        near, far = recalls[r.recall_near].mean(), recalls[~r.recall_near].mean()
        write(
            f"HNSW recall@10 (ef_search={ef}, no filters): {recalls.mean():.3f} (near a concept {near:.3f}, far {far:.3f})"
        )
    if r.service_recall_at_10:
        write(
            f"service unit query top-10 vs exact (filters, floor, iterative scan): {np.mean(r.service_recall_at_10):.3f} over {len(r.service_recall_at_10)} queries"
        )


def acceptance_summary(r: ScaleResult, *, write: Write) -> None:
    """The HTTP-to-raw-SQL latency ratio and HNSW recall at this scale, against targets."""
    http, raw = p95(r.latencies.http_ms), p95(r.latencies.raw_sql_ms)
    ef = settings.RETRIEVAL_EF_SEARCH
    ef = ef if ef in r.recall_at_10 else next(iter(r.recall_at_10))
    recall = float(np.mean(r.recall_at_10[ef]))
    write(f"\nAcceptance at the largest scale ({r.scale:g}×):")
    write(
        f"HTTP p95 (embedding excluded) = {http:.2f} ms, raw SQL p95 = {raw:.2f} ms, "
        f"ratio {http / raw:.2f} (target ≤ {HTTP_TARGET:g}) {_verdict(http / raw <= HTTP_TARGET)}"
    )
    write(
        f"HNSW recall@10 = {recall:.3f} at ef_search={ef} (target ≥ {RECALL_TARGET}) {_verdict(recall >= RECALL_TARGET)}"
    )


def _plan_line(r: ScaleResult) -> str:
    """The first question's unit query, run cold: whether it used the index, what it read."""
    plan = r.unit_query_plan
    index = "HNSW index scan" if "unit_embedding_hnsw" in plan else "no HNSW index scan"
    buffers = re.search(r"Buffers: ([^\n]*)", plan)
    executed = re.search(r"Execution Time: ([\d.]+ ms)", plan)
    return (
        f"unit query plan, first question: {index}, buffers {buffers.group(1) if buffers else '?'}, "
        f"executed in {executed.group(1) if executed else '?'}; shared_buffers {r.shared_buffers}"
    )


def _mb(size: int) -> str:
    return f"{size / 2**20:,.1f} MB"


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"
