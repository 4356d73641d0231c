import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.bench.reading import reading_cost
from evaluation.retrieval import QuestionFileError, load_questions
from evaluation.verification import CaseFileError, load_cases, verification_warm

DATA = Path(settings.BASE_DIR) / "evaluation" / "data"


class Command(BaseCommand):
    help = (
        "What claim checking's readings cost where they serve, on the knowledge base in use: "
        "search p50/p95 with the ok/refuse decision's states_asked signal and without it "
        "(interleaved, one run), and /verify per answer of 5 claims."
    )

    def add_arguments(self, parser):
        parser.add_argument("--questions", type=Path, default=DATA / "questions.jsonl")
        parser.add_argument("--claims", type=Path, default=DATA / "claims.jsonl")
        parser.add_argument("--repeats", type=int, default=1, help="passes over the questions")
        parser.add_argument("--json", dest="json_file", default="", help="write the figures here")

    def handle(self, *args, questions: Path, claims: Path, repeats: int, json_file, **options):
        if repeats < 1:
            raise CommandError("--repeats must be at least 1")
        try:
            asked = load_questions(questions)
            cases = load_cases(claims)
        except (QuestionFileError, CaseFileError) as exc:
            raise CommandError(str(exc)) from exc
        verification_warm()
        cost = reading_cost(asked, cases, repeats=repeats, progress=self.stderr.write)
        figures = cost.figures()
        if json_file:
            Path(json_file).write_text(json.dumps(figures, indent=2), encoding="utf-8")
        search, verify = figures["search_p50_ms"], figures["verify_ms"]
        self.stdout.write(
            f"search p50 {search['with_states_asked']} ms with states_asked, "
            f"{search['without']} ms without: ratio {figures['search_p50_ratio']} "
            f"({figures['searches']} searches each)\n"
            f"/verify per answer of 5 claims: p50 {verify['p50']} ms, p95 {verify['p95']} ms "
            f"({figures['answers_of_5_claims']} answers)"
        )
