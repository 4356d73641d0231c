import json
from dataclasses import asdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.thresholds import Recall, ThresholdReport, threshold_recall

DEFAULT_GOLD = settings.BASE_DIR.parent / "shared" / "eval" / "gold_thresholds_dev.json"


def _share(recall: Recall) -> str:
    return f"{recall.found}/{recall.total} ({100 * recall.share:.1f}%)"


class Command(BaseCommand):
    help = "Score extracted threshold units against the shared threshold gold (value recall)."

    def add_arguments(self, parser):
        parser.add_argument("--gold", type=Path, default=DEFAULT_GOLD, help="gold JSON file")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options):
        gold: Path = options["gold"]
        if not gold.is_file():
            raise CommandError(f"gold file not found: {gold}")
        try:
            report = threshold_recall(gold_path=gold)
        except ValueError as error:  # malformed gold or a category without mapping
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(asdict(report), indent=2, default=str, ensure_ascii=False))
        else:
            self._print(report)

    def _print(self, report: ThresholdReport) -> None:
        write = self.stdout.write
        write(f"Gold: {report.gold_path} ({report.facts} facts)")
        write(f"Threshold units considered: {report.units_considered}")
        write(self.style.SUCCESS(f"Value recall: {_share(report.recall)}"))
        write(
            f"Without units dated by the page file's period: "
            f"{_share(report.recall_without_page_file_periods)}"
        )
        write("\nPer category:")
        for row in report.categories:
            write(f"  {row.category:<24} {_share(row.recall)}")
        write(f"\nMisses ({len(report.misses)}):")
        for miss in report.misses:
            write(f"  {miss.fact_id} {miss.value} from {miss.valid_from}: {miss.reason}")
        self._print_dating_errors(report)
        write(f"\nChains: {report.chains_marked}/{report.chains_checked} marked superseded")
        for chain in report.chains:
            mark = "marked" if chain.marked else "NOT marked"
            write(
                f"  {chain.fact_id}: {chain.older_value} ({chain.older_valid_from}) -> "
                f"{chain.newer_value} ({chain.newer_valid_from}): {mark} "
                f"[units {chain.older_units} -> {chain.newer_units}]"
            )

    def _print_dating_errors(self, report: ThresholdReport) -> None:
        self.stdout.write(f"\nDating errors ({len(report.dating_errors)}):")
        for error in report.dating_errors:
            gold_end = error.valid_to or "open"
            self.stdout.write(
                f"  {error.fact_id} {error.value} gold {error.valid_from}..{gold_end}:"
            )
            for unit in error.units:
                superseded = f", superseded {unit.superseded_date}" if unit.superseded_date else ""
                self.stdout.write(
                    f"    unit {unit.unit_id}: {unit.valid_from or 'open'}.."
                    f"{unit.valid_to or 'open'}{superseded} [{unit.validity_basis or '-'}]"
                )
