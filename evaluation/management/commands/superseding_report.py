import json
from dataclasses import asdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.superseding import superseding_gold_check, superseding_quality
from evaluation.thresholds import GoldFormatError

DEFAULT_GOLD = Path(settings.BASE_DIR).parent / "shared" / "eval" / "gold_thresholds_dev.json"


class Command(BaseCommand):
    help = (
        "Precision of superseding proposals by cosine and confidence band, from the experts' "
        "decisions; with --gold, precision and recall of the proposals against the gold chains."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--json", dest="json_path", metavar="FILE", help="also write the figures as JSON"
        )
        parser.add_argument(
            "--gold",
            metavar="FILE",
            nargs="?",
            const=str(DEFAULT_GOLD),
            help=f"threshold gold with superseding chains (default {DEFAULT_GOLD.name} beside "
            "the project)",
        )
        parser.add_argument(
            "--status",
            action="append",
            choices=["pending", "approved", "rejected", "flagged_for_deletion"],
            help="proposals to check against the gold (repeatable; default pending)",
        )
        parser.add_argument(
            "--sample", type=int, default=0, metavar="N", help="print N non-gold proposals to read"
        )

    def handle(self, *args, json_path, gold, status, sample, **options):
        quality = superseding_quality()
        self._quality(quality)
        figures = {"quality": _plain(quality)}
        if gold:
            check = self._gold(Path(gold), tuple(status or ["pending"]), sample)
            figures["gold"] = _plain(check) | {
                "steps_found": check.steps_found,
                "steps_reachable": check.steps_reachable,
                "recall": check.recall,
                "recall_reachable": check.recall_reachable,
                "precision_gold": check.precision_gold,
                "precision_on_gold_facts": check.precision_on_gold_facts,
            }
        if json_path:
            Path(json_path).write_text(_dumps(figures), encoding="utf-8")
            self.stdout.write(f"figures written to {json_path}")

    def _quality(self, report):
        if not report.proposals:
            self.stdout.write(
                "No superseding proposals yet: run `python manage.py detect_superseding`, then "
                "have experts decide some in the review screen."
            )
            return
        self.stdout.write(
            f"{report.proposals} proposals: {report.decided} decided, {report.pending} pending"
        )
        for title, bands in (("cosine", report.by_cosine), ("confidence", report.by_confidence)):
            self.stdout.write("")
            header = f"{title + ' band':<18} {'correct':>8} {'wrong':>6} {'precision':>10}"
            self.stdout.write(f"{header} {'pending':>8}")
            for band in bands:
                precision = "—" if band.precision is None else f"{band.precision:.0%}"
                self.stdout.write(
                    f"{band.label:<18} {band.correct:>8} {band.wrong:>6} {precision:>10} "
                    f"{band.pending:>8}"
                )
        self.stdout.write("")
        for line in report.recommendations:
            self.stdout.write(f"recommendation: {line}")

    def _gold(self, path: Path, statuses: tuple[str, ...], sample: int):
        if not path.is_file():
            raise CommandError(f"gold file not found: {path}")
        try:
            check = superseding_gold_check(gold_path=path, statuses=statuses, sample=sample)
        except GoldFormatError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("")
        self.stdout.write(
            f"against the gold chains ({path.name}), {', '.join(statuses)} proposals:"
        )
        for step in check.steps:
            mark = "found" if step.proposals else ("missed" if step.reachable else "no units")
            self.stdout.write(
                f"  {step.fact_id:<42} {step.older_value} → {step.newer_value}: {mark} "
                f"({len(step.proposals)} proposals; units {step.older_units} → {step.newer_units})"
            )
        self.stdout.write(
            f"recall: {check.steps_found}/{len(check.steps)} steps ({check.recall:.0%}); "
            f"{check.steps_found}/{check.steps_reachable} of the steps whose two values are held "
            f"by units ({check.recall_reachable:.0%})"
        )
        self.stdout.write(
            f"proposals: {check.proposals}; "
            + ", ".join(f"{kind} {count}" for kind, count in check.by_kind.items())
        )
        self.stdout.write(
            f"precision: {check.precision_gold:.0%} of all proposals are gold steps (a lower "
            f"bound); {check.precision_on_gold_facts:.0%} of those pairing two values of one "
            "gold chain"
        )
        for item in check.sample:
            self.stdout.write(
                f"\n  [{item['kind']}] candidate {item['id']} {item['concept']} cosine "
                f"{item['cosine']:.3f} confidence {item['confidence']:.2f} ({item['newer_basis']})"
                f"\n    older {item['older']}\n    newer {item['newer']}\n    {item['rationale']}"
            )
        return check


def _plain(report) -> dict:
    return asdict(report)


def _dumps(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)
