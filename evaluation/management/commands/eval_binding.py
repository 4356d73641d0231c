from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curation.models import AuditSample
from evaluation.binding import (
    audit_file_labels,
    binding_cross_validation,
    binding_labels,
    margin_cross_validation,
    remembering,
    weights_grid,
)
from knowledge import embeddings

MARGINS = [0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05]


class Command(BaseCommand):
    help = (
        "Concept binding measured on the audit judgements: how often the heuristic binding "
        "picks the concept experts say a unit belongs to, with the current weights and with "
        "weights chosen by cross-validation grouped by page."
    )

    def add_arguments(self, parser):
        parser.add_argument("--sample", type=int, metavar="ID", help="only this audit sample")
        parser.add_argument(
            "--audit-file",
            type=Path,
            metavar="JSONL",
            help="judged units from a file (one a line) instead of the audits held here",
        )
        parser.add_argument("--folds", type=int, default=5, help="folds of pages (default 5)")
        parser.add_argument(
            "--target",
            type=float,
            default=0.9,
            help="precision the binding margin is chosen to reach (default 0.9)",
        )

    def handle(self, *args, sample=None, audit_file=None, folds=5, target=0.9, **options):
        if sample is not None and not AuditSample.objects.filter(pk=sample).exists():
            raise CommandError(f"No audit sample {sample}.")
        if folds < 2:
            raise CommandError("--folds: at least 2")
        if not 0 < target <= 1:
            raise CommandError("--target: a precision above 0 and at most 1")
        labelled = self._labels(sample, audit_file)
        if len({item.page.url for item in labelled}) < folds:
            raise CommandError(
                f"{len(labelled)} labelled unit(s) on fewer pages than {folds} folds: judge more"
            )
        embedder = remembering(embeddings.get_embedder())  # both tables score the same texts
        report = binding_cross_validation(labelled, weights_grid(), embedder=embedder, folds=folds)
        n = report.labelled
        self.stdout.write(f"Labelled units: {n} on {report.pages} pages")
        self.stdout.write(f"Current weights: {report.current_hits}/{n} bound to the right concept")
        for weights, hits, size in report.folds:
            self.stdout.write(f"  fold: chose {weights}: {hits}/{size} on its held-out pages")
        self.stdout.write(f"Cross-validated: {report.cross_validated_hits}/{n}")
        self.stdout.write("Best in sample (optimistic, for reading only):")
        for weights, hits in report.best_in_sample:
            self.stdout.write(f"  {weights}: {hits}/{n}")
        self._margins(
            margin_cross_validation(
                labelled, MARGINS, embedder=embedder, target=target, folds=folds
            )
        )

    def _labels(self, sample, audit_file):
        if audit_file is None:
            return binding_labels(sample_id=sample)
        if sample is not None:
            raise CommandError("--sample and --audit-file: one or the other")
        if not audit_file.is_file():
            raise CommandError(f"--audit-file: no file {audit_file}")
        try:
            return audit_file_labels(audit_file)
        except ValueError as error:
            raise CommandError(f"--audit-file: {error}") from None

    def _margins(self, report) -> None:
        self.stdout.write(
            f"Binding margin (current weights; units below it would go to triage), "
            f"chosen per fold as the smallest reaching {report.target:.0%} precision:"
        )
        for row in report.rows:
            share = row.right / row.kept if row.kept else 0.0
            self.stdout.write(
                f"  margin {row.margin:.3f}: {row.kept} bound, {row.right} right ({share:.0%})"
            )
        for margin, kept, right, size in report.folds:
            self.stdout.write(
                f"  fold: chose {margin:.3f}: {right}/{kept} right, {size - kept} "
                f"of {size} to triage"
            )
        size, kept, right = report.cross_validated
        share = right / kept if kept else 0.0
        self.stdout.write(
            f"Cross-validated: {right}/{kept} bound units right ({share:.0%}), "
            f"{size - kept} of {size} to triage"
        )
