"""The search benchmark's report: per scale, the latency table, the limit a search cannot go
below, the API under load, recall, memory and the unit query's plan; then every scale's
acceptance figures against their targets."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import numpy as np

from evaluation.bench.acceptance import scale_checks
from evaluation.bench.load import LoadLevel
from evaluation.bench.search import ScaleResult
from evaluation.bench.timing import Latencies, p50, p95

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
    _limit_lines(r.latencies, write=write)
    if r.latencies.concurrency:
        _load_table(r.latencies.concurrency, workers=r.latencies.api_workers, write=write)
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
        ("HTTP with a profile, embedding excluded", lat.http_profile_ms),
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


def _limit_lines(lat: Latencies, *, write: Write) -> None:
    if not lat.embed_alone_ms:
        return
    write(
        f"embedding one question alone (this process, real model, one text a call): "
        f"p50 {p50(lat.embed_alone_ms):.2f} ms, p95 {p95(lat.embed_alone_ms):.2f} ms "
        f"(n={len(lat.embed_alone_ms)})"
    )
    write(
        f"limit_p95_ms = embedding alone p95 + raw SQL p95 = {lat.limit_p95_ms:.2f} ms; "
        f"HTTP p95 with the embedding included = {lat.e2e_p95_ms:.2f} ms, "
        f"{lat.e2e_p95_ms / lat.limit_p95_ms:.2f}× the limit"
    )


def _load_table(levels: list[LoadLevel], *, workers: int, write: Write) -> None:
    write(
        f"under load: {workers} gunicorn workers (gunicorn.conf.py); each level shares out "
        f"the same {levels[0].requests} requests, embedding excluded; clients are threads"
    )
    write(
        f"{'clients':>7} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'errors':>6} "
        f"{'CPU ms/request: server':>23} {'client':>7} {'cores used':>10}"
    )
    for level in levels:
        write(
            f"{level.clients:>7} {level.rps:>8.1f} {p50(level.latencies_ms):>8.2f} "
            f"{p95(level.latencies_ms):>8.2f} {level.errors:>6} "
            f"{level.server_cpu_ms / level.requests:>23.2f} "
            f"{level.client_cpu_ms / level.requests:>7.2f} {level.cores_used:>10.2f}"
        )
        if level.first_error:
            write(f"        first error: {level.first_error}")
    first = levels[0]
    cpu_ms = (first.server_cpu_ms + first.client_cpu_ms) / first.requests
    cores = usable_cores()
    write(
        f"(server CPU: the workers and their database sessions. A request costs {cpu_ms:.1f} ms "
        f"of CPU in all at {first.clients} client{'' if first.clients == 1 else 's'}, so "
        f"{cores} cores answer at most {cores * 1000 / cpu_ms:.0f} req/s; where clients "
        f"outnumber cores, fewer than {cores} cores used means other work had the rest)"
    )


def usable_cores() -> int:
    """As gunicorn.conf.py counts them: the cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _recall_lines(r: ScaleResult, *, write: Write) -> None:
    for ef, values in r.recall_at_10.items():
        recalls = np.asarray(values)
        near, far = recalls[r.recall_near].mean(), recalls[~r.recall_near].mean()
        write(
            f"HNSW recall@10 (ef_search={ef}, no filters): {recalls.mean():.3f} (near a concept {near:.3f}, far {far:.3f})"
        )
    if r.service_recall_at_10:
        write(
            f"service unit query top-10 vs exact (filters, floor, iterative scan, ef_search={r.ef_search}): {np.mean(r.service_recall_at_10):.3f} over {len(r.service_recall_at_10)} queries with an answer above the floor"
        )


def acceptance_summary(results: list[ScaleResult], *, write: Write) -> None:
    """Each scale's figures against the targets that apply to it."""
    write("\nAcceptance, scale by scale:")
    for r in results:
        for check in scale_checks(r):
            write(f"{r.scale:g}×: {check.line} (target {check.target}) {_verdict(check.passed)}")


def _plan_line(r: ScaleResult) -> str:
    """The first question's unit query, run cold: whether it used the index, what it read."""
    plan = r.unit_query_plan
    index = "HNSW index scan" if r.hnsw_used else "no HNSW index scan"
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
