import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.floors import FloorError, floors_missed, floors_parse
from evaluation.retrieval import QuestionFileError
from evaluation.tool_calls import (
    ToolCallCase,
    heuristic_router,
    load_tool_call_cases,
    summarise_tool_calls,
    tool_calls_run,
)
from knowledge.providers.openai_compatible import OpenAIProvider
from knowledge.providers.types import ProviderError
from navigator.assistant import ASSISTANT_PROMPT_VERSION, STAND_IN_TOOLS, assistant_prompt
from navigator.tools import tool_definitions

FLOOR_NAMES = ("precision", "recall", "accuracy", "ambiguous_agreement", "consistency")
DEFAULT_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "tool_call_cases_dev.jsonl"


class Command(BaseCommand):
    help = (
        "Score when the knowledge base is called, on a file of labelled user messages: "
        "precision, recall and accuracy of calling over the non-ambiguous cases, agreement "
        "on the ambiguous ones, misses by tag, and with --runs the share decided the same "
        "way every run. --router heuristic: Navigator's analysis (strategy 'none' or not); "
        "--router openai: a chat model with the recommended prompt and every tool."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
        parser.add_argument("--router", choices=("heuristic", "openai"), default="heuristic")
        parser.add_argument("--runs", type=int, default=1, help="decide every case N times")
        parser.add_argument("--json", action="store_true", help="end with one JSON object")
        parser.add_argument(
            "--floors",
            default="",
            help="fail (exit 1) below any of these, e.g. precision=0.97,recall=0.93,accuracy=0.92",
        )

    def handle(self, *args, file: Path, router: str, runs: int, json: bool, **options):
        if runs < 1:
            raise CommandError(f"--runs: at least 1, not {runs}")
        try:
            floors = floors_parse(options["floors"], FLOOR_NAMES)
        except FloorError as error:
            raise CommandError(str(error)) from None
        if router == "openai" and not settings.LLM_API_KEY:
            raise CommandError(
                "--router openai needs LLM_API_KEY (and LLM_BASE_URL for an endpoint other than OpenAI's)"
            )
        try:
            cases = load_tool_call_cases(file)
        except QuestionFileError as error:
            raise CommandError(str(error)) from None
        decide, usage = (heuristic_router(), None) if router == "heuristic" else _model_router()
        with tqdm(total=len(cases) * runs, desc=f"{router} router", file=self.stderr._out) as bar:
            try:
                results = tool_calls_run(cases, decide, runs=runs, progress=bar.update)
            except ProviderError as error:
                raise CommandError(f"the {router} router failed: {error.reason}") from None
        report = summarise_tool_calls(results) | {"router": router, "file": file.name}
        if usage is not None:
            report |= {"prompt_version": ASSISTANT_PROMPT_VERSION, "usage": usage}
        self._print(report)
        if json:
            self.stdout.write(_json(report))
        failures = floors_missed(report, floors)
        if failures:
            raise CommandError("regression: " + "; ".join(failures))

    def _print(self, report: dict) -> None:
        def figure(name):
            value = report[name]
            return "-" if value is None else f"{value:.3f}"

        self.stdout.write(
            f"{report['router']} router, {report['cases']} cases, {report['runs']} run(s): "
            f"precision {figure('precision')}, recall {figure('recall')}, accuracy "
            f"{figure('accuracy')} over {report['non_ambiguous']} non-ambiguous; ambiguous "
            f"agreement {figure('ambiguous_agreement')} ({report['ambiguous']}); consistency "
            f"{figure('consistency')}"
        )
        misses = ", ".join(f"{tag} {n}" for tag, n in report["misses_by_tag"].items())
        self.stdout.write(f"misses by tag: {misses or 'none'}")
        for miss in report["misses"]:
            wanted = "call" if miss["should_call"] else "no call"
            self.stdout.write(
                f"  {miss['id']}: wanted {wanted} ({', '.join(miss['tags'])}): {miss['why']}"
            )
        if "usage" in report:
            used = report["usage"]
            self.stdout.write(
                f"model {used['model']}: {used['prompt_tokens']} prompt + "
                f"{used['completion_tokens']} completion tokens"
            )


def _model_router():
    """A chat model as an assistant would run it: the recommended system prompt, every
    Navigator tool and the stand-ins for its other tools, none of them run. A case is
    called when a knowledge-base tool is called before the reply."""
    provider = OpenAIProvider.from_settings()
    tools = [*tool_definitions(), *STAND_IN_TOOLS]
    usage = {"model": provider.analysis_model, "prompt_tokens": 0, "completion_tokens": 0}

    def knowledge_base(names: list[str]) -> bool:
        return any(name.startswith("knowledgeBase") for name in names)

    def decide(case: ToolCallCase) -> tuple[bool, str]:
        messages = [
            {"role": "system", "content": assistant_prompt()},
            *({"role": t.role, "content": t.content} for t in case.conversation),
            {"role": "user", "content": case.message},
        ]
        names, used = provider.tools_called(messages=messages, tools=tools, enough=knowledge_base)
        usage["model"] = used.model
        usage["prompt_tokens"] += used.prompt_tokens
        usage["completion_tokens"] += used.completion_tokens
        return knowledge_base(names), ", ".join(names) or "replied"

    return decide, usage


def _json(report: dict) -> str:
    return json.dumps(report, indent=None, sort_keys=True)
