import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.aboutness import (
    labelled_pairs,
    pair_figures,
    verdicts_cross_validated,
)
from evaluation.claim_parts import candidates_found, comparator_accuracy, retrieval_summary
from evaluation.floors import FloorError, floors_missed, floors_parse
from evaluation.verification import (
    VERDICTS,
    CaseFileError,
    case_read,
    cases_prepared,
    evaluate_case,
    load_cases,
    summarise_verification,
    verification_warm,
)
from knowledge.reading.aboutness import RULES, served_reader
from knowledge.verification.judge import claim_judge

DEFAULT_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "verify_cases_dev.jsonl"


class Command(BaseCommand):
    help = "Evaluate claim verification on a case file (verdict accuracy, contradicted recall, …)."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--parts",
            action="store_true",
            help="also measure each part on its own: whether a claim finds its unit among its "
            "candidates (recall@k), aboutness (the served reading and the rules, pair by pair), "
            "the comparison of figures with the gold units, and the verdicts of both readings",
        )
        parser.add_argument(
            "--cv",
            action="store_true",
            help="cross-validate the aboutness reading on this file (folds grouped by page): "
            "for our own labelled claims, which it fits on; never for a file kept as a test",
        )
        parser.add_argument(
            "--floors",
            default="",
            help="fail (exit 1) below any of these, e.g. accuracy=0.7,contradicted_recall=0.65,"
            "supported_precision=0.85,missed_max=0.05",
        )

    def handle(self, *args, file: Path, json: bool, cv: bool, parts: bool, **options):
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
        shown = tqdm(cases, unit="answer", file=self.stderr._out)
        report = summarise_verification([evaluate_case(c, judge=judge) for c in shown])
        report["judged_by"] = f"model:{judge.analysis_model}" if judge else "rules"
        report["reader"] = served_reader().name
        if parts or cv:
            report["parts"] = _parts(cases, cv=cv)
        if json:
            self.stdout.write(_dumps(report))
        else:
            self._text(report)
        failures = floors_missed(_floor_figures(report), floors)
        if failures:
            raise CommandError("regression: " + "; ".join(failures))

    def _text(self, report: dict) -> None:
        if "parts" in report:
            for name, figures in report["parts"].items():
                self.stdout.write(f"part {name}: {figures}")
        self.stdout.write(
            f"aboutness read by: {report['reader']}; claims without figures judged by: "
            f"{report['judged_by']}"
        )
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


def _parts(cases, *, cv: bool) -> dict:
    """Each part measured on its own, on the same candidates."""
    prepared = cases_prepared(cases)
    pairs = labelled_pairs(cases, prepared)
    served = served_reader()
    parts = {
        "1 retrieval": retrieval_summary(candidates_found(cases, prepared)),
        "2 aboutness": {
            reader.name: pair_figures(pairs, reader).as_json() for reader in (served, RULES)
        },
        "3 comparison": comparator_accuracy(cases, prepared),
        "4 verdicts": {
            reader.name: _headline(
                summarise_verification([case_read(c, prepared[c.id], reader) for c in cases])
            )
            for reader in (served, RULES)
        },
    }
    if cv:
        parts["cross-validated verdicts"] = verdicts_cross_validated(cases, prepared)
    return parts


def _headline(summary: dict) -> dict:
    return {
        "accuracy": summary["verdict_accuracy"],
        "contradicted_recall": summary["contradicted_recall"],
        "supported_precision": summary["supported_precision"],
        "unsupported_recall": summary["accuracy_by_class"]["unsupported"],
    }


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
