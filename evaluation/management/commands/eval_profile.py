import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.floors import FloorError, floors_missed, floors_parse
from evaluation.profile import evaluate_record, load_profile_questions, summarise_profile
from evaluation.retrieval import QuestionFileError
from knowledge.query.suggest import profile_suggest

DEFAULT_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "profile_questions_dev.jsonl"
FLOOR_NAMES = (
    "recall@5",
    "strict_recall@5",
    "unanswerable_refused",
    "wrong_served_max",
    "suggest_aspect_coverage@10",
    "suggest_wrong@10_max",
)


class Command(BaseCommand):
    help = (
        "Score searches for a person on the profile question file, with the profile and "
        "without it: recall@5 by gold page and span, wrong-for-this-user units served, "
        "unanswerable refused, per kind."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--floors",
            default="",
            help="fail below these figures of the with-profile pass, e.g. "
            "recall@5=0.8,wrong_served_max=0.1",
        )

    def handle(self, *args, file: Path, json: bool, floors: str, **options):
        try:
            wanted = floors_parse(floors, FLOOR_NAMES) if floors else {}
            records = load_profile_questions(file)
        except (QuestionFileError, FloorError) as error:
            raise CommandError(str(error)) from None
        report = {}
        for with_profile in (True, False):
            label = "with_profile" if with_profile else "without_profile"
            results = [
                evaluate_record(record, with_profile=with_profile, suggest=_suggest)
                for record in tqdm(records, desc=label, file=self.stderr._out)
            ]
            report[label] = summarise_profile(results)
        if json:
            self.stdout.write(_json(report))
        else:
            self._print(report)
        if wanted:
            figures = dict(report["with_profile"])
            figures["wrong_served_max"] = figures["wrong_served"]
            figures["suggest_wrong@10_max"] = figures["suggest_wrong@10"]
            missed = floors_missed(figures, wanted)
            if missed:
                raise CommandError("below the floors: " + "; ".join(missed))

    def _print(self, report: dict) -> None:
        names = ("recall@5", "strict_recall@5", "wrong_served")
        self.stdout.write(f"{'':22}{'with profile':>14}{'without':>10}")
        for name in (
            *names,
            "unanswerable_refused",
            "answerable_refused",
            "suggest_aspect_coverage@10",
            "suggest_wrong@10",
        ):
            a, b = report["with_profile"][name], report["without_profile"][name]
            self.stdout.write(f"{name:22}{_num(a):>14}{_num(b):>10}")
        self.stdout.write("by kind (with / without the profile):")
        for kind, block in report["with_profile"]["by_kind"].items():
            other = report["without_profile"]["by_kind"][kind]
            parts = ", ".join(f"{n} {_num(block[n])} / {_num(other[n])}" for n in names)
            self.stdout.write(f"  {kind:12} ({block['records']}): {parts}")
        misses = report["with_profile"]["misses"]
        self.stdout.write(
            f"misses with the profile: {', '.join(m['id'] for m in misses) or 'none'}"
        )


def _suggest(profile, as_of, k):
    return [s.hit for s in profile_suggest(profile=profile, as_of=as_of, k=k).suggestions]


def _num(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _json(report: dict) -> str:
    return json.dumps(report, indent=2)
