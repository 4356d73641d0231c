from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation.llm import Inputs, eval_llm_run, report_write

SHARED = Path(settings.BASE_DIR).parent / "shared"


class Command(BaseCommand):
    help = (
        "Measure the model paths in one run: build the knowledge base from the corpus with "
        "the openai provider (into this database: `make eval-llm` gives it one of its own), "
        "draw an audit sample, run eval_retrieval --cv, eval_verify and eval_tool_calls "
        "with the model paths on and off, and write one report (figures side by side, each "
        "step's time, tokens and cost) under reports/."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "govuk" / "pages")
        parser.add_argument(
            "--questions", type=Path, default=SHARED / "eval" / "dev_questions.jsonl"
        )
        parser.add_argument(
            "--verify-cases", type=Path, default=SHARED / "eval" / "verify_cases_dev.jsonl"
        )
        parser.add_argument(
            "--tool-cases", type=Path, default=SHARED / "eval" / "tool_call_cases_dev.jsonl"
        )
        parser.add_argument(
            "--captured-on",
            default="2024-12-15",
            help="the day the corpus's pages were captured (its README)",
        )
        parser.add_argument("--audit-size", type=int, default=40)
        parser.add_argument("--runs", type=int, default=3, help="tool-call router runs")
        parser.add_argument(
            "--out", type=Path, default=None, help="report folder (reports/eval-llm-<time>)"
        )

    def handle(self, *args, **options):
        if not settings.LLM_API_KEY:
            raise CommandError(
                "eval_llm needs a model: set LLM_API_KEY (make eval-llm takes OPENAI_API_KEY)"
            )
        inputs = Inputs(
            corpus=options["corpus"],
            questions=options["questions"],
            verify_cases=options["verify_cases"],
            tool_cases=options["tool_cases"],
            captured_on=options["captured_on"],
            audit_size=options["audit_size"],
            runs=options["runs"],
        )
        for name in ("questions", "verify_cases", "tool_cases"):
            if not getattr(inputs, name).is_file():
                raise CommandError(f"--{name.replace('_', '-')}: no file {getattr(inputs, name)}")
        if not inputs.corpus.is_dir():
            raise CommandError(f"--corpus: no folder {inputs.corpus}")
        if not 1 <= inputs.audit_size <= 500 or inputs.runs < 1:
            raise CommandError("--audit-size: 1 to 500; --runs: at least 1")
        out = options["out"] or Path(settings.BASE_DIR) / "reports" / (
            f"eval-llm-{datetime.now():%Y%m%d-%H%M}"
        )
        steps = eval_llm_run(
            inputs,
            out=out,
            say=lambda name: self.stderr.write(f"eval-llm: {name}"),
            progress=self.stderr._out,
        )
        models = {
            "extraction": settings.LLM_MODEL_EXTRACT,
            "adjudication": settings.LLM_MODEL_ADJUDICATE,
            "analysis, judge and router": settings.LLM_MODEL_ANALYSIS,
        }
        report = report_write(steps, inputs, out=out, models=models)
        self.stdout.write(f"eval-llm: report written to {report}")
        failed = [step.name for step in steps if step.error]
        if failed:
            raise CommandError(
                f"eval-llm: {len(failed)} step(s) failed ({', '.join(failed)}); the report says why"
            )
