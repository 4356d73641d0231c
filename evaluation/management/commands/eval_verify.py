import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.floors import FloorError, floors_missed, floors_parse
from evaluation.verification import (
    VERDICTS,
    CaseFileError,
    cross_validate_thresholds,
    evaluate_case,
    load_cases,
    summarise_verification,
    verification_warm,
)
from knowledge.verification.judge import claim_judge

DEFAULT_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "verify_cases_dev.jsonl"


class Command(BaseCommand):
    help = "Evaluate claim verification on a case file (verdict accuracy, contradicted recall, …)."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--cv",
            action="store_true",
            help="choose the similarity thresholds by cross-validation (folds grouped by page) "
            "and report the held-out figures",
        )
        parser.add_argument(
            "--floors",
            default="",
            help="fail (exit 1) below any of these, e.g. accuracy=0.7,contradicted_recall=0.65,"
            "supported_precision=0.85,missed_max=0.05",
        )

    def handle(self, *args, file: Path, json: bool, cv: bool, **options):
        try:
            floors = floors_parse(options["floors"], FLOOR_NAMES)
        except FloorError as exc:
            raise CommandError(str(exc)) from None
        try:
            cases = load_cases(file)
        except CaseFileError as exc:
            raise CommandError(str(exc)) from exc
        judge = claim_judge()
        verification_warm()
        if cv:
            report = cross_validate_thresholds(cases, judge=judge)
        else:
            cases = tqdm(cases, unit="answer", file=self.stderr._out)
            report = summarise_verification([evaluate_case(c, judge=judge) for c in cases])
        report["judged_by"] = f"model:{judge.analysis_model}" if judge else "rules"
        if json:
            self.stdout.write(_dumps(report))
        else:
            self._text(report)
        failures = floors_missed(_floor_figures(report), floors)
        if failures:
            raise CommandError("regression: " + "; ".join(failures))

    def _text(self, report: dict) -> None:
        if "thresholds_chosen" in report:
            self.stdout.write(
                f"cross-validated (held-out figures; thresholds chosen per fold: "
                f"{report['thresholds_chosen']}; best on all: {report['best_on_all']})"
            )
        self.stdout.write(f"claims without figures judged by: {report['judged_by']}")
        self.stdout.write(
            f"{report['answers']} answers, {report['gold_claims']} gold claims: verdict accuracy "
            f"{report['verdict_accuracy']}, contradicted recall {report['contradicted_recall']}, "
            f"supported precision {report['supported_precision']}, missed {report['missed_claims']}"
        )
        self.stdout.write(
            "accuracy by class: "
            + ", ".join(f"{k} {v}" for k, v in report["accuracy_by_class"].items())
        )
        self.stdout.write("confusion (gold → returned):")
        columns = [*VERDICTS, "no match"]
        self.stdout.write(f"  {'':<14}" + "".join(f"{c:>14}" for c in columns))
        for want in VERDICTS:
            row = "".join(f"{report['confusion'].get((want, got), 0):>14}" for got in columns)
            self.stdout.write(f"  {want:<14}{row}")
        self.stdout.write(
            "by reason: "
            + "; ".join(
                f"{w}→{g} {r or '-'}: {n}" for (w, g, r), n in sorted(report["reasons"].items())
            )
        )
        self.stdout.write(f"returned claims matching no gold claim: {report['unmatched_returned']}")
        latency = report["latency_ms"]
        self.stdout.write(
            f"verification latency per answer (ms, {latency['n']} answers after a warm-up): "
            f"p50 {latency.get('p50')}  p95 {latency.get('p95')}"
        )


FLOOR_NAMES = ("accuracy", "contradicted_recall", "supported_precision", "missed_max")


def _floor_figures(report: dict) -> dict:
    return {
        "accuracy": report["verdict_accuracy"],
        "contradicted_recall": report["contradicted_recall"],
        "supported_precision": report["supported_precision"],
        "missed_max": report["missed_claims"],
    }


def _dumps(report: dict) -> str:
    printable = dict(report)
    printable["confusion"] = {f"{w}->{g}": n for (w, g), n in report["confusion"].items()}
    printable["reasons"] = {f"{w}->{g}:{r}": n for (w, g, r), n in report["reasons"].items()}
    return json.dumps(printable, indent=2)
