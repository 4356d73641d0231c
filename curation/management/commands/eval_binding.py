from django.core.management.base import BaseCommand, CommandError

from curation.models import AuditSample
from curation.services.binding_eval import (
    binding_cross_validation,
    binding_labels,
    weights_grid,
)
from knowledge import embeddings


class Command(BaseCommand):
    help = (
        "Concept binding measured on the audit judgements: how often the heuristic binding "
        "picks the concept experts say a unit belongs to, with the current weights and with "
        "weights chosen by cross-validation grouped by page."
    )

    def add_arguments(self, parser):
        parser.add_argument("--sample", type=int, metavar="ID", help="only this audit sample")
        parser.add_argument("--folds", type=int, default=5, help="folds of pages (default 5)")

    def handle(self, *args, sample=None, folds=5, **options):
        if sample is not None and not AuditSample.objects.filter(pk=sample).exists():
            raise CommandError(f"No audit sample {sample}.")
        if folds < 2:
            raise CommandError("--folds: at least 2")
        labelled = binding_labels(sample_id=sample)
        if len({item.page.url for item in labelled}) < folds:
            raise CommandError(
                f"{len(labelled)} labelled unit(s) on fewer pages than {folds} folds: judge more"
            )
        report = binding_cross_validation(
            labelled, weights_grid(), embedder=embeddings.get_embedder(), folds=folds
        )
        n = report.labelled
        self.stdout.write(f"Labelled units: {n} on {report.pages} pages")
        self.stdout.write(f"Current weights: {report.current_hits}/{n} bound to the right concept")
        for weights, hits, size in report.folds:
            self.stdout.write(f"  fold: chose {weights}: {hits}/{size} on its held-out pages")
        self.stdout.write(f"Cross-validated: {report.cross_validated_hits}/{n}")
        self.stdout.write("Best in sample (optimistic, for reading only):")
        for weights, hits in report.best_in_sample:
            self.stdout.write(f"  {weights}: {hits}/{n}")
