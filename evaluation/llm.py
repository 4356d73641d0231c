"""Everything the model paths can be measured on, in one run (`manage.py eval_llm`, which
`make eval-llm` runs in a database of its own): a knowledge base built from the corpus by the
`openai` provider (extraction and superseding adjudication), an audit sample of its units for
experts, and the evaluations with the model paths on beside the same evaluations with the
heuristic ones (query analysis, the claim judge, the tool-call router). Each step's time,
tokens and cost are measured from the tokens the process's chat requests used.

Kept whole: one run, step after step, sharing its database, its token meter and its report;
its sections are the steps.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from io import StringIO
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.db.models import Count, Sum
from django.test import override_settings

from curation.roles import DOMAIN_EXPERT
from curation.services.audit_sample import sample_draw
from knowledge.models import AtomicUnit, ExtractionRun
from knowledge.providers.openai_compatible import tokens_spent
from knowledge.services.extract import model_prices

AUDITOR = "eval-llm"  # draws the sample in the evaluation's own database; cannot log in


@dataclass
class Step:
    name: str
    seconds: float = 0.0
    tokens: dict[str, tuple[int, int]] = field(default_factory=dict)  # model: (in, out)
    figures: dict = field(default_factory=dict)
    error: str = ""  # why the step failed; the run goes on and the report says so

    @property
    def prompt_tokens(self) -> int:
        return sum(p for p, _ in self.tokens.values())

    @property
    def completion_tokens(self) -> int:
        return sum(c for _, c in self.tokens.values())

    @property
    def cost(self) -> Decimal:
        total = Decimal(0)
        for model, (prompt, completion) in self.tokens.items():
            prices = model_prices(model)
            total += (
                prompt * Decimal(str(prices.get("input", 0)))
                + completion * Decimal(str(prices.get("output", 0)))
            ) / Decimal(1_000_000)
        return total


@dataclass(frozen=True)
class Inputs:
    corpus: Path
    questions: Path
    verify_cases: Path
    tool_cases: Path
    captured_on: str = "2024-12-15"
    audit_size: int = 40
    audit_seed: int = 1
    runs: int = 3


def eval_llm_run(
    inputs: Inputs, *, out: Path, say: Callable[[str], None], progress=None
) -> list[Step]:
    """Every step in turn; `say` hears each as it starts, `progress` (a stream) shows the
    steps' own progress bars."""
    err = progress or StringIO()
    steps: list[Step] = []

    def step(name: str, work: Callable[[], dict]) -> dict:
        say(name)
        measured = _measured(name, work)
        steps.append(measured)
        return measured.figures

    step(
        "ingest",
        lambda: _command(
            "ingest", "--from-dir", inputs.corpus, "--captured-on", inputs.captured_on, err=err
        ),
    )
    step("extract (openai)", lambda: _extracted(err=err))
    step("dedup_units", lambda: _command("dedup_units", err=err))
    step("embed", lambda: _command("embed", err=err))
    step(
        "detect_superseding (openai)",
        lambda: _command("detect_superseding", "--provider", "openai", err=err),
    )
    step("audit sample", lambda: _audit_sample(inputs.audit_size, inputs.audit_seed))
    for analysis in ("heuristic", "openai"):
        with override_settings(QUERY_ANALYSIS_PROVIDER=analysis):
            step(
                f"eval_retrieval --cv ({analysis} analysis)",
                lambda a=analysis: _json_command(
                    "eval_retrieval",
                    inputs.questions,
                    "--cv",
                    "--plot",
                    out / f"scores-{a}.png",
                    err=err,
                ),
            )
    for judge in ("heuristic", "openai"):
        with override_settings(CLAIM_JUDGE_PROVIDER=judge):
            step(
                f"eval_verify ({'rules' if judge == 'heuristic' else 'model judge'})",
                lambda: _json_command("eval_verify", inputs.verify_cases, err=err),
            )
    step(
        "eval_tool_calls (heuristic router)",
        lambda: _json_command(
            "eval_tool_calls", inputs.tool_cases, "--router", "heuristic", err=err
        ),
    )
    step(
        f"eval_tool_calls (openai router, {inputs.runs} runs)",
        lambda: _json_command(
            "eval_tool_calls",
            inputs.tool_cases,
            "--router",
            "openai",
            "--runs",
            str(inputs.runs),
            err=err,
        ),
    )
    return steps


def _measured(name: str, work: Callable[[], dict]) -> Step:
    """The step's figures, time and tokens; a step that fails (a model endpoint that keeps
    refusing, a command that stops) is recorded with its error, and the run goes on: what
    the steps before it paid for is reported."""
    before, started = tokens_spent(), time.perf_counter()
    figures, error = {}, ""
    try:
        figures = work()
    except StepFailed as exc:
        figures, error = exc.figures, str(exc)[:500]
    except Exception as exc:  # any failure is the report's to show
        error = f"{type(exc).__name__}: {exc}"[:500]
    after = tokens_spent()
    used = {
        model: (p - before.get(model, (0, 0))[0], c - before.get(model, (0, 0))[1])
        for model, (p, c) in after.items()
        if (p, c) != before.get(model, (0, 0))
    }
    return Step(name, round(time.perf_counter() - started, 1), used, figures, error)


def _command(name: str, *args, err) -> dict:
    call_command(name, *map(str, args), stdout=StringIO(), stderr=err)
    return {}


def _json_command(name: str, *args, err) -> dict:
    """The command's report: the JSON it prints (all of its output, or its last line)."""
    out = StringIO()
    call_command(name, *map(str, args), "--json", stdout=out, stderr=err)
    text = out.getvalue().strip()
    last = text.splitlines()[-1] if text else ""
    return json.loads(last if last.startswith("{") and last.endswith("}") else text)


class StepFailed(Exception):
    """A step that failed with figures still worth reporting (the extraction runs that did
    succeed, and why the others did not)."""

    def __init__(self, message: str, figures: dict):
        super().__init__(message)
        self.figures = figures


def _extracted(*, err) -> dict:
    try:
        call_command("extract", "--all", "--provider", "openai", stdout=StringIO(), stderr=err)
    except CommandError as exc:
        raise StepFailed(f"extract: {exc}", _extraction_figures()) from exc
    return _extraction_figures()


def _extraction_figures() -> dict:
    runs = ExtractionRun.objects.filter(provider="openai")
    totals = runs.aggregate(
        made=Sum("units_made"), rejected=Sum("units_rejected"), unassigned=Sum("units_unassigned")
    )
    by_status = dict(runs.values_list("status").annotate(n=Count("id")))
    return {
        "runs": runs.count(),
        "by_status": by_status,
        "units_made": totals["made"] or 0,
        "units_rejected": totals["rejected"] or 0,
        "units_unassigned": totals["unassigned"] or 0,
        "failures": list(runs.exclude(error="").values_list("error", flat=True)[:5]),
    }


def _audit_sample(size: int, seed: int) -> dict:
    """A stratified sample of the living units for experts to judge (the audit protocol's
    six questions), drawn by a user of this database that cannot log in."""
    auditor, created = get_user_model().objects.get_or_create(username=AUDITOR)
    if created:
        auditor.set_unusable_password()
        auditor.save()
    auditor.groups.add(Group.objects.get(name=DOMAIN_EXPERT))
    living = AtomicUnit.objects.alive().count()
    if not living:
        return {"sample": None, "units": []}
    sample = sample_draw(size=min(size, living), user=auditor, seed=seed)
    units = AtomicUnit.objects.in_bulk(sample.unit_ids)
    return {
        "sample": sample.pk,
        "population": sample.population,
        "units": [
            {
                "id": units[pk].pk,
                "category": units[pk].concept.category.slug if units[pk].concept else "",
                "type": units[pk].unit_type,
                "text": units[pk].text,
                "quote": units[pk].evidence_quote,
                "source": units[pk].source.url,
            }
            for pk in sample.unit_ids
            if pk in units
        ],
    }


# --- the report ---------------------------------------------------------------------------

# The figures set side by side, by evaluation: (label, path into its JSON report).
_RETRIEVAL = (
    ("recall@1", ("answerable", "recall@1")),
    ("recall@5", ("answerable", "recall@5")),
    ("strict (span) recall@1", ("answerable", "strict@1")),
    ("follow-up recall@5", ("by_kind", "follow_up", "recall@5")),
    ("abbreviation recall@5", ("by_kind", "abbreviation", "recall@5")),
    ("broad aspect coverage@10", ("aspect_coverage@10", "covered")),
    ("false refusals (cross-validated)", ("cross_validated", "false_refusals")),
    ("unanswerable refused (cross-validated)", ("cross_validated", "unanswerable_refused")),
    ("outcome accuracy (cross-validated)", ("cross_validated", "outcome_accuracy")),
)
_VERIFY = (
    ("verdict accuracy", ("verdict_accuracy",)),
    ("contradicted recall", ("contradicted_recall",)),
    ("supported precision", ("supported_precision",)),
    ("missed claims", ("missed_claims",)),
)
_TOOL_CALLS = (
    ("precision", ("precision",)),
    ("recall", ("recall",)),
    ("accuracy", ("accuracy",)),
    ("ambiguous agreement", ("ambiguous_agreement",)),
    ("same decision every run", ("consistency",)),
)


def report_write(steps: list[Step], inputs: Inputs, *, out: Path, models: dict) -> Path:
    """The report as Markdown (figures side by side, each step's time, tokens and cost, the
    audit sample to judge) and the same as JSON beside it."""
    by_name = {step.name: step.figures for step in steps}
    lines = [
        "# The model paths, measured",
        "",
        f"Models: {', '.join(f'{role} `{name}`' for role, name in models.items())}. Corpus: "
        f"{inputs.corpus.name}/ ({by_name.get('extract (openai)', {}).get('runs', 0)} page "
        f"versions extracted); questions: {inputs.questions.name}, {inputs.verify_cases.name}, "
        f"{inputs.tool_cases.name}.",
        "",
        "## Figures",
        "",
        *_side_by_side(
            "Retrieval (`eval_retrieval --cv`)",
            ("heuristic analysis", "model analysis"),
            [
                by_name.get(f"eval_retrieval --cv ({a} analysis)", {})
                for a in ("heuristic", "openai")
            ],
            _RETRIEVAL,
        ),
        *_side_by_side(
            "Claim verification (`eval_verify`)",
            ("rules", "model judge"),
            [by_name.get(f"eval_verify ({j})", {}) for j in ("rules", "model judge")],
            _VERIFY,
        ),
        *_side_by_side(
            "When the knowledge base is called (`eval_tool_calls`)",
            ("heuristic router", f"model ({inputs.runs} runs)"),
            [
                by_name.get("eval_tool_calls (heuristic router)", {}),
                by_name.get(f"eval_tool_calls (openai router, {inputs.runs} runs)", {}),
            ],
            _TOOL_CALLS,
        ),
        *_extraction(by_name.get("extract (openai)", {})),
        "## Steps",
        "",
        "| step | seconds | prompt tokens | completion tokens | cost (USD) | failed |",
        "|---|---:|---:|---:|---:|---|",
        *(
            f"| {s.name} | {s.seconds} | {s.prompt_tokens:,} | {s.completion_tokens:,} | "
            f"{s.cost:.4f} | {_cell(s.error)} |"
            for s in steps
        ),
        f"| **all** | {sum(s.seconds for s in steps):.1f} | "
        f"{sum(s.prompt_tokens for s in steps):,} | "
        f"{sum(s.completion_tokens for s in steps):,} | {sum(s.cost for s in steps):.4f} | "
        f"{sum(bool(s.error) for s in steps)} |",
        "",
        *_audit(by_name.get("audit sample", {})),
    ]
    out.mkdir(parents=True, exist_ok=True)
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "report.json").write_text(
        json.dumps(
            {
                "models": models,
                "steps": [
                    {
                        "name": s.name,
                        "seconds": s.seconds,
                        "prompt_tokens": s.prompt_tokens,
                        "completion_tokens": s.completion_tokens,
                        "cost_usd": float(s.cost),
                        "figures": s.figures,
                        "error": s.error,
                    }
                    for s in steps
                ],
            },
            indent=2,
            default=str,
        )
        + "\n",
        encoding="utf-8",
    )
    return report


def _side_by_side(title: str, columns: tuple[str, str], reports: list[dict], rows) -> list[str]:
    lines = [f"### {title}", "", f"| | {columns[0]} | {columns[1]} |", "|---|---:|---:|"]
    for label, path in rows:
        lines.append(f"| {label} | " + " | ".join(_figure(r, path) for r in reports) + " |")
    return [*lines, ""]


def _figure(report: dict, path: tuple[str, ...]) -> str:
    value = report
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _extraction(figures: dict) -> list[str]:
    if not figures:
        return []
    return [
        "### Extraction (`extract --provider openai`)",
        "",
        f"{figures['runs']} runs ({', '.join(f'{n} {s}' for s, n in figures['by_status'].items())}): "
        f"{figures['units_made']} units stored, {figures['units_rejected']} rejected, "
        f"{figures['units_unassigned']} without a concept (triage).",
        *(f"- failure: {error[:200]}" for error in figures["failures"]),
        "",
    ]


def _audit(figures: dict) -> list[str]:
    units = figures.get("units") or []
    if not units:
        return ["## Audit sample", "", "No living units to sample.", ""]
    return [
        "## Audit sample",
        "",
        f"Sample #{figures['sample']}: {len(units)} of {figures['population']} living units, "
        "stratified by category. Judge each by the audit protocol's six questions (in this "
        "database's audit screen, or here), then `manage.py audit_report`.",
        "",
        "| unit | category | type | text | quote | source |",
        "|---:|---|---|---|---|---|",
        *(
            f"| {u['id']} | {u['category']} | {u['type']} | {_cell(u['text'])} | "
            f"{_cell(u['quote'])} | {u['source']} |"
            for u in units
        ),
        "",
    ]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")[:300]
