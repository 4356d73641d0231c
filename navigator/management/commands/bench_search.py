import os
import re
import time
from contextlib import contextmanager

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test.utils import setup_databases, teardown_databases

from knowledge import retrieval
from navigator.bench.search import (
    VECTOR_MODELS,
    BenchOptions,
    Latencies,
    ScaleResult,
    p50,
    p95,
    scale_run,
)

HTTP_TARGET = 2.0
RECALL_TARGET = 0.95


class Command(BaseCommand):
    help = (
        "Benchmark search latency (raw SQL, service, HTTP API), HNSW recall and index cost on "
        "synthetic knowledge bases at multiples of production size (throwaway database)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scales", default="1,10,100", help="multiples of 746 concepts / 7,753 units"
        )
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--repeats", type=int, default=3, help="timed passes over the queries")
        parser.add_argument(
            "--embedded-queries", type=int, default=50, help="HTTP queries the local model embeds"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--maintenance-work-mem", default="2GB", help="for the HNSW builds")
        parser.add_argument(
            "--vectors",
            choices=sorted(VECTOR_MODELS),
            default="calibrated",
            help="how the synthetic vectors spread (see navigator.bench.search.VECTOR_MODELS)",
        )
        parser.add_argument(
            "--recall-ef", default="", help="ef_search values for recall, e.g. 40,100,400"
        )
        parser.add_argument("--explain", action="store_true", help="print the unit query's plan")

    def handle(self, *args, scales: str, recall_ef: str, explain: bool, **options):
        multiples = _numbers("--scales", scales, kind=float)
        if not multiples:
            raise CommandError("--scales: give positive multiples, e.g. 1,10,100")
        bench = self._options(options, recall_ef=recall_ef)
        results = []
        with _throwaway_database(self.stderr.write):
            for scale in multiples:
                result = scale_run(scale=scale, options=bench, progress=self.stderr.write)
                self._report(result, explain=explain)
                results.append(result)
        self._summary(results[-1])

    def _options(self, options: dict, *, recall_ef: str) -> BenchOptions:
        if options["queries"] < 1 or options["repeats"] < 1 or options["embedded_queries"] < 0:
            raise CommandError("--queries and --repeats must be at least 1, --embedded-queries 0")
        if not re.fullmatch(r"\d+(kB|MB|GB)", options["maintenance_work_mem"]):
            raise CommandError("--maintenance-work-mem: a size such as 512MB or 2GB")
        return BenchOptions(
            queries=options["queries"],
            repeats=options["repeats"],
            embedded_queries=options["embedded_queries"],
            seed=options["seed"],
            maintenance_work_mem=options["maintenance_work_mem"],
            vectors=options["vectors"],
            recall_ef=tuple(_numbers("--recall-ef", recall_ef, kind=int)),
        )

    def _report(self, r: ScaleResult, *, explain: bool) -> None:
        b, write = r.base, self.stdout.write
        write(f"\n=== {r.scale:g}× production: {b.concepts:,} concepts, {b.units:,} units "
              f"({b.historical / b.units:.1%} historical), {b.sources:,} sources ===")  # fmt: skip
        write(f"load {b.load_seconds:.1f} s; HNSW build: units {b.unit_index_seconds:.1f} s "
              f"({_mb(r.unit_index_bytes)}), concepts {b.concept_index_seconds:.1f} s "
              f"({_mb(r.concept_index_bytes)})")  # fmt: skip
        self._latency_table(r.latencies)
        self._recall_lines(r)
        lat = r.latencies
        write(f"memory of an API worker (gunicorn, its own process): peak {lat.api_peak_mb:,.0f} MB "
              f"answering with planned vectors, {lat.api_model_peak_mb:,.0f} MB with the embedding "
              f"model loaded; this benchmark process: peak {r.bench_peak_mb:,.0f} MB; "
              f"scale run {r.seconds:.0f} s")  # fmt: skip
        write(_plan_line(r))
        if explain:
            write("unit query plan:\n" + r.unit_query_plan)

    def _latency_table(self, lat: Latencies) -> None:
        write, raw95 = self.stdout.write, p95(lat.raw_sql_ms)
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
                write(f"{name:<44} {len(ms):>5} {p50(ms):>8.2f} {p95(ms):>8.2f} {p95(ms) / raw95:>18.2f}")  # fmt: skip
        stages = [f"{stage} {p50(ms):.2f}" for stage, ms in lat.service_stages_ms.items()]
        write(f"service stages, p50 ms: {', '.join(stages)}")
        if lat.embed_ms:
            write(f"embedding inside the request: p50 {p50(lat.embed_ms):.2f} ms, p95 {p95(lat.embed_ms):.2f} ms")  # fmt: skip

    def _recall_lines(self, r: ScaleResult) -> None:
        for ef, values in r.recall_at_10.items():
            recalls = np.asarray(values)
            near, far = recalls[r.recall_near].mean(), recalls[~r.recall_near].mean()
            self.stdout.write(f"HNSW recall@10 (ef_search={ef}, no filters): {recalls.mean():.3f} (near a concept {near:.3f}, far {far:.3f})")  # fmt: skip
        if r.service_recall_at_10:
            self.stdout.write(f"service unit query top-10 vs exact (filters, floor, iterative scan): {np.mean(r.service_recall_at_10):.3f} over {len(r.service_recall_at_10)} queries")  # fmt: skip

    def _summary(self, r: ScaleResult) -> None:
        http, raw = p95(r.latencies.http_ms), p95(r.latencies.raw_sql_ms)
        ef = settings.RETRIEVAL_EF_SEARCH
        ef = ef if ef in r.recall_at_10 else next(iter(r.recall_at_10))
        recall = float(np.mean(r.recall_at_10[ef]))
        write = self.stdout.write
        write(f"\nAcceptance at the largest scale ({r.scale:g}×):")
        write(f"HTTP p95 (embedding excluded) = {http:.2f} ms, raw SQL p95 = {raw:.2f} ms, "
              f"ratio {http / raw:.2f} (target ≤ {HTTP_TARGET:g}) {_verdict(http / raw <= HTTP_TARGET)}")  # fmt: skip
        write(f"HNSW recall@10 = {recall:.3f} at ef_search={ef} (target ≥ {RECALL_TARGET}) {_verdict(recall >= RECALL_TARGET)}")  # fmt: skip


def _numbers(option: str, text: str, *, kind: type) -> list:
    try:
        numbers = [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"{option}: not a list of numbers: {text!r}") from None
    if any(number <= 0 for number in numbers):
        raise CommandError(f"{option}: numbers must be positive")
    return numbers


def _plan_line(r: ScaleResult) -> str:
    """The first question's unit query, run cold: whether it used the index, what it read."""
    plan = r.unit_query_plan
    index = "HNSW index scan" if "unit_embedding_hnsw" in plan else "no HNSW index scan"
    buffers = re.search(r"Buffers: ([^\n]*)", plan)
    executed = re.search(r"Execution Time: ([\d.]+ ms)", plan)
    return (
        f"unit query plan, first question: {index}, buffers {buffers.group(1) if buffers else '?'}, "
        f"executed in {executed.group(1) if executed else '?'}; shared_buffers {r.shared_buffers}"
    )  # fmt: skip


def _mb(size: int) -> str:
    return f"{size / 2**20:,.1f} MB"


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


@contextmanager
def _throwaway_database(progress):
    """A database of its own for the benchmark, dropped afterwards even on error. It gets a
    name of its own, so it never collides with a test database of this process (the smoke
    test runs the command inside pytest)."""
    test_settings = connection.settings_dict["TEST"]
    saved_name = test_settings.get("NAME")
    test_settings["NAME"] = f"bench_search_{os.getpid()}"
    started = time.perf_counter()
    try:
        progress(f"creating a throwaway database {test_settings['NAME']}…")
        databases = setup_databases(
            verbosity=0, interactive=False, keepdb=False, serialized_aliases=set()
        )
        try:
            yield
        finally:
            retrieval.side_sessions_close()  # the service's concept queries' session
            teardown_databases(databases, verbosity=0)
    finally:
        test_settings["NAME"] = saved_name
    progress(f"dropped the throwaway database; {time.perf_counter() - started:.0f} s in all")
