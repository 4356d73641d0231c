import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test.utils import setup_databases, teardown_databases

from evaluation.bench.draws import VECTOR_MODELS
from evaluation.bench.figures import figures_write
from evaluation.bench.options import BenchOptions
from evaluation.bench.report import acceptance_summary, scale_report
from evaluation.bench.search import scale_run
from knowledge import retrieval
from knowledge.retrieval.sql import EF_SEARCH_MAX


class Command(BaseCommand):
    help = (
        "Benchmark search latency (raw SQL, service, HTTP API, under concurrent clients), "
        "HNSW recall and index cost on synthetic knowledge bases at multiples of production "
        "size (throwaway database)."
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
            help="how the synthetic vectors spread (see evaluation.bench.draws.VECTOR_MODELS)",
        )
        parser.add_argument(
            "--recall-ef", default="", help="ef_search values for recall, e.g. 40,100,400"
        )
        parser.add_argument("--explain", action="store_true", help="print the unit query's plan")
        parser.add_argument(
            "--concurrency",
            default="",
            help="clients at once against the API, one level each, e.g. 1,4,16 (default: none)",
        )
        parser.add_argument(
            "--json", dest="json_file", default="", help="write every figure to this file"
        )

    def handle(self, *args, scales: str, recall_ef: str, explain: bool, json_file: str, **options):
        multiples = _numbers("--scales", scales, kind=float)
        if not multiples:
            raise CommandError("--scales: give positive multiples, e.g. 1,10,100")
        bench = self._options(options, recall_ef=recall_ef)
        figures_file = _json_path(json_file) if json_file else None
        results = []
        with _throwaway_database(self.stderr.write):
            for scale in multiples:
                result = scale_run(scale=scale, options=bench, progress=self.stderr.write)
                scale_report(result, explain=explain, write=self.stdout.write)
                results.append(result)
                if figures_file:  # after each scale, so a failure at a later one keeps these
                    figures_write(figures_file, results=results, options=bench)
        acceptance_summary(results, write=self.stdout.write)
        if figures_file:
            self.stderr.write(f"figures written to {figures_file}")

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
            recall_ef=_ef_values(recall_ef),
            concurrency=tuple(
                sorted(set(_numbers("--concurrency", options["concurrency"], kind=int)))
            ),
        )


def _ef_values(text: str) -> tuple[int, ...]:
    values = tuple(_numbers("--recall-ef", text, kind=int))
    if any(value > EF_SEARCH_MAX for value in values):
        raise CommandError(f"--recall-ef: pgvector takes ef_search up to {EF_SEARCH_MAX}")
    return values


def _json_path(text: str) -> Path:
    """Checked before the run, which takes minutes: a file in a folder that exists."""
    path = Path(text).expanduser()
    if path.is_dir():
        raise CommandError(f"--json: {path} is a folder; give a file name")
    if not path.parent.is_dir():
        raise CommandError(f"--json: the folder {path.parent} does not exist")
    return path


def _numbers(option: str, text: str, *, kind: type) -> list:
    try:
        numbers = [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"{option}: not a list of numbers: {text!r}") from None
    if any(number <= 0 for number in numbers):
        raise CommandError(f"{option}: numbers must be positive")
    return numbers


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
