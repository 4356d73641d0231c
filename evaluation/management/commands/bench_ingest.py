from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.test.utils import setup_databases, teardown_databases

from evaluation.bench.ingest import bench_ingest


class Command(BaseCommand):
    help = "Benchmark parsing and ingestion of a directory of page files (throwaway database)."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument("--repeats", type=int, default=5)

    def handle(self, *args, directory: Path, repeats: int, **options):
        if not directory.is_dir():
            raise CommandError(f"not a directory: {directory}")
        if repeats < 1:
            raise CommandError("--repeats must be at least 1")
        self.stderr.write("creating a throwaway database for the benchmark…")
        databases = setup_databases(verbosity=0, interactive=False, keepdb=False)
        try:
            result = bench_ingest(root=directory, repeats=repeats, progress=self.stderr.write)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            teardown_databases(databases, verbosity=0)
        self._report(result, repeats)

    def _report(self, r, repeats):
        median = r.median
        load, parse = median(r.load_seconds), median(r.parse_seconds)
        first, again = median(r.first_ingest_seconds), median(r.unchanged_ingest_seconds)
        rows = [
            ("read + json.loads (baseline)", load, r.pages / load, 1.0),
            ("read + parse to sections", parse, r.pages / parse, parse / load),
            ("full ingest (empty database)", first, r.pages / first, first / load),
            ("second ingest (all unchanged)", again, r.pages / again, again / load),
        ]
        self.stdout.write(f"\n{r.pages} page files, medians of {repeats} repeats\n")
        self.stdout.write(f"{'stage':<32} {'seconds':>9} {'pages/s':>9} {'× baseline':>11}")
        for name, seconds, rate, ratio in rows:
            self.stdout.write(f"{name:<32} {seconds:>9.3f} {rate:>9.1f} {ratio:>11.1f}")
        self.stdout.write(f"\nunchanged run / full run: {again / first:.2f}")
        self.stdout.write(
            f"found: {r.sections} sections, {r.table_rows} table rows, {r.list_items} list items, "
            f"{r.cross_references} cross-references, {r.snapshots} snapshots, {r.failed} failed"
        )
