import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.aboutness import learning_curve, reader_train
from evaluation.verification import CaseFileError, cases_prepared, load_cases
from knowledge.reading.aboutness import MODEL_FILE, RULES, read_with, served_reader

DEFAULT_DATA = Path(settings.BASE_DIR) / "evaluation" / "data" / "claims.jsonl"


class Command(BaseCommand):
    help = (
        "Train the aboutness reader of claim checking on our own labelled claims: cross-"
        "validate the model and the rules (folds grouped by page), fit on all, and write "
        "knowledge/reader/aboutness.json with its manifest. Run it on the knowledge base the "
        "eval gate builds from the corpus."
    )

    def add_arguments(self, parser):
        parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
        parser.add_argument("--out", type=Path, default=MODEL_FILE)
        parser.add_argument(
            "--curve",
            action="store_true",
            help="only print the learning curve: cross-validated verdicts of the model fitted "
            "on 25, 50, 75 and 100%% of each fold's training pages (about 20 minutes); "
            "nothing is written",
        )

    def handle(self, *args, data: Path, out: Path, curve: bool = False, **options):
        try:
            cases = load_cases(data)
        except CaseFileError as exc:
            raise CommandError(str(exc)) from exc
        if not out.parent.is_dir():
            raise CommandError(f"no folder for the model file: {out.parent}")
        try:
            served = served_reader()
        except ValueError as exc:  # fitted on other features: retraining is what it asks for
            self.stderr.write(f"{exc}; meanwhile the searches read aboutness with the rules")
            served = RULES
        if curve:
            with read_with(served):
                points = learning_curve(cases, cases_prepared(cases), progress=self.stderr.write)
            for point in points:
                self.stdout.write(json.dumps(point))
            return
        with read_with(served):
            trained = reader_train(cases, data_path=data, progress=self.stderr.write)
        out.write_text(json.dumps(trained, indent=2) + "\n", encoding="utf-8")
        verdicts = trained["manifest"]["cv_verdicts"]
        for name in ("model", "rules"):
            shown = {k: v for k, v in verdicts[name].items() if k not in ("cuts_chosen", "by_fold")}
            self.stdout.write(f"cross-validated verdicts, {name}: {shown}")
            for fold, figures in enumerate(verdicts[name]["by_fold"], 1):
                self.stdout.write(
                    f"  fold {fold}: accuracy {figures['verdict_accuracy']}, contradicted recall "
                    f"{figures['contradicted_recall']}, supported precision "
                    f"{figures['supported_precision']}, unsupported recall "
                    f"{figures['unsupported_recall']}"
                )
        self.stdout.write(f"serves: {trained['serves']}; written to {out}")
