import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curation.models import AuditSample
from curation.selectors.audit_sample import COLUMNS, Estimate, Results, Row, audit_results


class Command(BaseCommand):
    help = (
        "The knowledge base's estimated precision from the audit samples' judgements: per "
        "question, per category, provider and type, and per sample, with Wilson 95% intervals."
    )

    def add_arguments(self, parser):
        parser.add_argument("--sample", type=int, metavar="ID", help="only this sample")
        parser.add_argument(
            "--json", dest="json_path", metavar="FILE", help="also write the figures as JSON"
        )

    def handle(self, *args, sample=None, json_path=None, **options):
        if sample is not None and not AuditSample.objects.filter(pk=sample).exists():
            raise CommandError(f"No audit sample {sample}.")
        results = audit_results(sample_id=sample)
        self._print(results, sample)
        if json_path:
            Path(json_path).write_text(json.dumps(results.as_json(), indent=2) + "\n")
            self.stdout.write(f"Wrote {json_path}")

    def _print(self, results: Results, sample: int | None) -> None:
        scope = f"sample {sample}" if sample is not None else "every sample"
        self.stdout.write(f"Audit of {scope}: {results.judged} judgement(s)\n")
        self.stdout.write("Per question (estimate [Wilson 95%] n):")
        for (_, label), estimate in zip(COLUMNS, results.overall.estimates, strict=True):
            self.stdout.write(f"  {_cell(estimate):>26}  {label}")
        header = "".join(f"{f'Q{i}':>26}" for i in range(1, 7)) + f"{'every count':>26}"
        for title, rows in (
            ("category", results.by_category),
            ("provider", results.by_provider),
            ("type", results.by_type),
        ):
            self.stdout.write(f"\nPer {title}:\n  {'':<30}{header}")
            for row in rows:
                self.stdout.write(_row(row))
        self.stdout.write("\nRight on every count, per sample:")
        for each, estimate in results.over_time:
            self.stdout.write(f"  #{each.pk:<6} {each.drawn_at:%Y-%m-%d}  {_cell(estimate)}")


def _cell(estimate: Estimate) -> str:
    if not estimate.n:
        return "—"
    low, high = estimate.interval
    return f"{estimate.precision:.0%} [{low:.2f}–{high:.2f}] n={estimate.n}"


def _row(row: Row) -> str:
    return f"  {row.label[:30]:<30}" + "".join(f"{_cell(e):>26}" for e in row.estimates)
