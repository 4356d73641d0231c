import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.floors import FloorError, floors_missed, floors_parse
from evaluation.outcome_fit import (
    cross_validate,
    model_fit,
    model_write,
    plot_reliability,
)
from evaluation.retrieval import (
    QuestionFileError,
    evaluate_question,
    labelled,
    load_questions,
    plot_scores,
    summarise,
)
from knowledge.embeddings import get_embedder
from knowledge.retrieval import thresholds_for_model

DEFAULT_FILE = Path(settings.BASE_DIR).parent / "shared" / "eval" / "dev_questions.jsonl"
# The served ok/refuse decision is fitted on our own labelled questions only: the dev file is
# a test, and a decision fitted on it would measure nothing there.
OWN_QUESTIONS = Path(settings.BASE_DIR) / "evaluation" / "data" / "questions.jsonl"


class Command(BaseCommand):
    help = (
        "Evaluate retrieval on a question file (recall@k, MRR, strict recall, outcomes, latency)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--plot",
            type=Path,
            default=Path(settings.BASE_DIR) / "reports" / "score_distribution.png",
        )
        parser.add_argument(
            "--compare", action="store_true", help="also compare scoring modes and hybrid"
        )
        parser.add_argument(
            "--no-analysis",
            action="store_true",
            help="search the caller's words alone (no analysis, conversation or expansion)",
        )
        parser.add_argument(
            "--baseline",
            action="store_true",
            help="also run without the analysis and print both, by kind, side by side",
        )

        parser.add_argument(
            "--cv",
            action="store_true",
            help="cross-validate the ok/refuse decision (folds grouped by gold page)",
        )
        parser.add_argument(
            "--write-model",
            action="store_true",
            help="with --cv, on our own labelled questions (evaluation/data/questions.jsonl) only: "
            "fit the decision on all of them and write the model file",
        )
        parser.add_argument(
            "--floors",
            default="",
            help="fail (exit 1) below any of these, e.g. recall@5=0.95,refused=0.85,"
            "false_refusals_max=0.12,follow_up=0.85,aspects=0.85 (refusal figures need --cv)",
        )

    def handle(self, *args, file, json: bool, plot, compare, no_analysis, baseline, **options):
        floors = _floors(options["floors"])
        if options["write_model"] and file.resolve() != OWN_QUESTIONS.resolve():
            raise CommandError(
                f"--write-model fits the served decision on our own labelled questions only "
                f"({OWN_QUESTIONS.relative_to(settings.BASE_DIR)}), not on {file}: "
                "other files are tests"
            )
        try:
            questions = load_questions(file)
        except QuestionFileError as exc:
            raise CommandError(str(exc)) from exc
        report = self._run(questions, analysed=not no_analysis)
        if options["cv"]:
            report["cross_validated"] = self._cross_validate(
                report["_results"], plot=plot, write_model=options["write_model"], source=file
            )
        if baseline:
            report["baseline"] = self._run(questions, analysed=False)
        results = report.pop("_results")
        thresholds = thresholds_for_model(get_embedder().name)
        report["plot"] = str(
            plot_scores(
                results, path=plot, floor=thresholds["floor"], quality=thresholds["quality"]
            )
        )
        if compare:
            report["comparison"] = self._compare(questions)
        self.stdout.write(self._dumps(report) if json else self._text(report))
        failures = _below_floors(report, floors)
        if failures:
            raise CommandError("regression: " + "; ".join(failures))

    def _cross_validate(self, results, *, plot, write_model: bool, source: Path) -> dict:
        items = labelled(results)
        cv = cross_validate(items)
        figures = cv.figures(items)
        figures["reliability_plot"] = str(
            plot_reliability(items, cv, path=plot.with_name("reliability.png"))
        )
        if write_model:
            fitted = model_fit(items, cv=figures, source=source.name)
            figures["model"] = str(model_write(fitted))
        return figures

    @staticmethod
    def _cv_lines(cv: dict) -> list[str]:
        lines = [
            f"cross-validated decision ({len(cv['thresholds'])} folds by gold page): false refusals "
            f"{cv['false_refusals']:.3f}, unanswerable refused {cv['unanswerable_refused']:.3f}, "
            f"outcome accuracy {cv['outcome_accuracy']:.3f}; fold thresholds {cv['thresholds']}",
            "  by kind (false refusals / wrong answers): "
            + "; ".join(
                f"{kind} {_figure(v['false_refusals'])}/{_figure(v['wrong_answers'])} (n={v['n']})"
                for kind, v in cv["by_kind"].items()
            ),
            f"  reliability plot: {cv['reliability_plot']}",
        ]
        if "model" in cv:
            lines.append(f"  model written: {cv['model']}")
        return lines

    def _run(self, questions, *, analysed: bool) -> dict:
        label = "analysed" if analysed else "words alone"
        progress = tqdm(questions, unit="q", desc=label, file=self.stderr._out)
        results = [evaluate_question(q, analysed=analysed) for q in progress]
        return summarise(results) | {"_results": results}  # the results leave before printing

    def _compare(self, questions):
        rows = {}  # the caller's words alone: these compare the ranking, not the analysis
        for mode in ("concept", "units", "both"):
            for hybrid in (False, True):
                results = [
                    evaluate_question(q, analysed=False, mode=mode, hybrid=hybrid)
                    for q in questions
                ]
                summary = summarise(results)
                rows[f"{mode}{'+text' if hybrid else ''}"] = {
                    **{
                        k: summary["answerable"][k]
                        for k in ("recall@1", "recall@5", "mrr@5", "strict@5")
                    },
                    "outcome_accuracy": summary["outcome_accuracy"],
                }
        return rows

    @staticmethod
    def _dumps(report):
        report.get("baseline", {}).pop("_results", None)
        return json.dumps(report, indent=2, default=str)

    @staticmethod
    def _kind_table(report: dict, baseline: dict | None) -> list[str]:
        """Per kind: recall@5, MRR@5 and outcome accuracy, with the run without analysis
        beside each when there is one."""

        def pair(now, then):
            return f"{then:.3f} → {now:.3f}" if then is not None else f"{now:.3f}"

        lines = ["kind           n   r@5 (words alone → analysed)  MRR@5            outcome"]
        for kind, block in report["by_kind"].items():
            before = (baseline or {}).get("by_kind", {}).get(kind)
            outcome = report["outcome_by_kind"].get(kind, 0.0)
            outcome_before = (baseline or {}).get("outcome_by_kind", {}).get(kind)
            lines.append(
                f"{kind:<13} {block['n']:>3}   {pair(block['recall@5'], before and before['recall@5']):<28}"
                f"  {pair(block['mrr@5'], before and before['mrr@5']):<15}  {pair(outcome, outcome_before)}"
            )
        for kind, share in report["outcome_by_kind"].items():
            if kind not in report["by_kind"]:
                before = (baseline or {}).get("outcome_by_kind", {}).get(kind)
                lines.append(f"{kind:<13} (unanswerable only)  outcome {pair(share, before)}")
        coverage = report["aspect_coverage@10"]
        then = (baseline or {}).get("aspect_coverage@10", {}).get("covered")
        lines.append(
            f"broad aspect coverage@10 ({coverage['questions']} questions, {coverage['aspects']} aspects): "
            f"{pair(coverage['covered'], then)}  "
            + " ".join(f"{q}={v}" for q, v in coverage["per_question"].items())
        )
        return lines

    def _text(self, report) -> str:
        a = report["answerable"]
        lines = [
            f"{report['questions']} questions ({a['n']} answerable)",
            f"recall@1 {a['recall@1']:.3f}  recall@3 {a['recall@3']:.3f}  recall@5 {a['recall@5']:.3f}  MRR@5 {a['mrr@5']:.3f}",
            f"strict (span) recall@1 {a['strict@1']:.3f}  @5 {a['strict@5']:.3f}",
            f"outcome accuracy {report['outcome_accuracy']:.3f}; unanswerable refused {report['unanswerable_refused']:.3f}; "
            f"answerable ok {report['answerable_ok']:.3f} (refused {report['false_refusal_share']:.3f}: no match {report['false_refusals']}, low confidence {report['false_low_confidence']}; the decision as served, fitted on our own questions)",
            f"latency ms p50 {report['latency_ms'].get('p50')}  p95 {report['latency_ms'].get('p95')} (query embedding included)",
            *self._kind_table(report, report.get("baseline")),
            "false refusals / wrong answers by kind (as served): "
            + "; ".join(
                f"{k} {v['false_refusals']:.2f}/{v['wrong_answers']:.2f}"
                for k, v in report["refusals_by_kind"].items()
            ),
            *(self._cv_lines(report["cross_validated"]) if "cross_validated" in report else []),
            "by category: "
            + "; ".join(f"{k} {v['recall@5']:.2f}" for k, v in report["by_category"].items()),
            "misses: "
            + "; ".join(
                f"{m['id']} rank={m['rank']} {m['outcome']} {','.join(m['reasons'])}"
                for m in report["misses"]
            ),
            f"plot: {report['plot']}",
        ]
        for name, row in report.get("comparison", {}).items():
            lines.append(f"  {name:<14} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))
        return "\n".join(lines)


def _figure(value) -> str:
    return "-" if value is None else f"{value:.2f}"


CV_FIGURES = ("refused", "false_refusals_max")
FLOOR_NAMES = (
    "recall@5",
    "refused",
    "false_refusals_max",
    "served_false_refusals_max",
    "follow_up",
    "aspects",
    "abbreviation",
)


def _floors(text: str) -> dict[str, float]:
    try:
        return floors_parse(text, FLOOR_NAMES)
    except FloorError as exc:
        raise CommandError(str(exc)) from None


def _below_floors(report: dict, floors: dict[str, float]) -> list[str]:
    """Each figure under its floor (or, for false refusals, over its ceiling), named."""
    cv = report.get("cross_validated", {})
    figures = {
        "recall@5": report["answerable"]["recall@5"],
        "refused": cv.get("unanswerable_refused"),
        "false_refusals_max": cv.get("false_refusals"),
        "served_false_refusals_max": report.get("false_refusal_share"),
        "follow_up": report["by_kind"].get("follow_up", {}).get("recall@5"),
        "abbreviation": report["by_kind"].get("abbreviation", {}).get("recall@5"),
        "aspects": report["aspect_coverage@10"]["covered"],
    }
    return floors_missed(
        figures,
        floors,
        unmeasured=lambda name: (
            "refusal figures need --cv" if name in CV_FIGURES else "no such questions"
        ),
    )
