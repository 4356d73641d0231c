"""Every figure of a search benchmark run as JSON (`bench_search --json FILE`): the options,
then one object per scale with what the text report prints and the acceptance checks.
Latencies are in ms; a figure that was not measured is null."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np

from evaluation.bench.acceptance import scale_checks
from evaluation.bench.load import LoadLevel
from evaluation.bench.options import BenchOptions
from evaluation.bench.report import usable_cores
from evaluation.bench.search import ScaleResult
from evaluation.bench.timing import Latencies, p50, p95


def figures_write(path: Path, *, results: list[ScaleResult], options: BenchOptions) -> None:
    figures = {
        "options": dataclasses.asdict(options),
        "cores": usable_cores(),
        "scales": [scale_figures(r) for r in results],
    }
    path.write_text(json.dumps(_finite(figures), indent=2, ensure_ascii=False) + "\n")


def scale_figures(r: ScaleResult) -> dict:
    b, lat = r.base, r.latencies
    return {
        "scale": r.scale,
        "e2e_p95_ms": lat.e2e_p95_ms,
        "limit_p95_ms": lat.limit_p95_ms,
        "e2e_to_limit_p95": lat.e2e_p95_ms / lat.limit_p95_ms,
        "hnsw_used": r.hnsw_used,
        "concurrency": [_load_figures(level) for level in lat.concurrency],
        "api_workers": lat.api_workers,
        "base": {
            "concepts": b.concepts,
            "units": b.units,
            "historical_units": b.historical,
            "sources": b.sources,
            "load_seconds": b.load_seconds,
        },
        "paths": _path_figures(lat),
        "http_to_raw_sql_p95": p95(lat.http_ms) / p95(lat.raw_sql_ms),
        "service_stages_p50_ms": {stage: p50(ms) for stage, ms in lat.service_stages_ms.items()},
        "analysis": _spread(lat.analysis_ms),
        "analysis_alone": _spread(lat.analysis_alone_ms),
        "embedding_in_request": _spread(lat.embed_ms),
        "embedding_alone": _spread(lat.embed_alone_ms),
        "recall_at_10": _recall_figures(r),
        "service_recall_at_10": _mean(r.service_recall_at_10),
        "ef_search": r.ef_search,
        "indexes": {
            "unit_bytes": r.unit_index_bytes,
            "concept_bytes": r.concept_index_bytes,
            "unit_build_seconds": b.unit_index_seconds,
            "concept_build_seconds": b.concept_index_seconds,
        },
        "unit_query_plan_executed_ms": _plan_executed_ms(r.unit_query_plan),
        "memory_mb": {
            "api_worker_peak": lat.api_peak_mb,
            "api_worker_with_model_peak": lat.api_model_peak_mb,
            "bench_peak": r.bench_peak_mb,
        },
        "shared_buffers": r.shared_buffers,
        "seconds": r.seconds,
        "acceptance": [
            {"name": c.name, "figure": c.figure, "target": c.target, "passed": c.passed}
            for c in scale_checks(r)
        ],
    }


def _spread(ms: list[float]) -> dict:
    return {"n": len(ms), "p50_ms": p50(ms), "p95_ms": p95(ms)}


def _path_figures(lat: Latencies) -> dict:
    return {
        "raw_sql": _spread(lat.raw_sql_ms),
        "service": _spread(lat.service_ms),
        "http": _spread(lat.http_ms),
        "http_inside_endpoint": _spread(lat.endpoint_ms),
        "http_embedded": _spread(lat.http_embedded_ms),
        "http_profile": _spread(lat.http_profile_ms),
    }


def _load_figures(level: LoadLevel) -> dict:
    return {
        "clients": level.clients,
        "rps": level.rps,
        "p50_ms": p50(level.latencies_ms),
        "p95_ms": p95(level.latencies_ms),
        "errors": level.errors,
        "requests": level.requests,
        "seconds": level.seconds,
        "server_cpu_ms_per_request": level.server_cpu_ms / level.requests,
        "client_cpu_ms_per_request": level.client_cpu_ms / level.requests,
        "cores_used": level.cores_used,
    }


def _recall_figures(r: ScaleResult) -> list[dict]:
    figures = []
    for ef, values in r.recall_at_10.items():
        recalls = np.asarray(values)
        figures.append(
            {
                "ef_search": ef,
                "mean": _mean(recalls),
                "near_a_concept": _mean(recalls[r.recall_near]),
                "far": _mean(recalls[~r.recall_near]),
            }
        )
    return figures


def _plan_executed_ms(plan: str) -> float:
    """The first question's unit query, run cold under EXPLAIN ANALYZE."""
    executed = re.search(r"Execution Time: ([\d.]+) ms", plan)
    return float(executed.group(1)) if executed else float("nan")


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def _finite(value):
    """NaN (a figure not measured) as null: JSON has no NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
