from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curation.selectors.jobs import provider_label
from curation.services.detection import (
    DetectionFailed,
    detection_concept_ids,
    run_funnel,
    superseding_detect,
)
from knowledge.providers import ProviderError, get_provider
from knowledge.selectors import concept_resolve

# What each stage's count means, printed beside it (labels as `run_funnel` gives them).
STAGE_MEANINGS = {
    "concepts checked": "concepts with units to compare",
    "new units": "units not compared before (every unit with --recheck)",
    "pairs considered": "pairs of one concept's units, at least one of them new",
    "pairs known": "proposed or decided before: not asked again",
    "dropped duplicates": "same text and figures: left to dedup_units",
    "below cosine": "too far apart in meaning (SUPERSEDING_MIN_COSINE)",
    "order undecidable": "no validity date or page version tells which is newer: not proposed",
    "adjudicated not same": "the adjudicator found two different rules",
    "farther pairs": "older versions of a rule whose nearest one was proposed: not asked",
    "adjudication errors": "the adjudicator failed: asked again next run",
    "proposed": "new pairs waiting for an expert on the review screen",
}


class Command(BaseCommand):
    help = (
        "Propose superseding pairs (a newer unit replacing an older one) inside each concept, "
        "comparing units not compared before; prints the funnel of what each stage kept."
    )

    def add_arguments(self, parser):
        parser.add_argument("--concept", metavar="TAXONOMY_ID", help="only this concept")
        parser.add_argument("--provider", choices=["heuristic", "openai"], default=None)
        parser.add_argument(
            "--recheck", action="store_true", help="compare every unit again, not only new ones"
        )
        parser.add_argument("--quiet-progress", action="store_true")

    def handle(self, *args, concept, provider, recheck, quiet_progress, **options):
        concept_id = self._concept_id(concept)
        try:
            adjudicator = get_provider(provider)
        except ProviderError as exc:
            raise CommandError(exc.reason) from exc
        total = len(detection_concept_ids(concept_id=concept_id, recheck=recheck))
        self.stdout.write(
            f"superseding detection: {total} concept(s) with units to compare, "
            f"adjudicator {provider_label(adjudicator.name)}"
        )
        bar = tqdm(total=total, unit="concept", disable=quiet_progress, file=self.stderr._out)
        try:
            with bar:
                run = superseding_detect(
                    concept_id=concept_id,
                    provider=adjudicator,
                    recheck=recheck,
                    progress=bar.update,
                )
        except DetectionFailed as exc:
            self._funnel(exc.run)
            raise CommandError(f"detection run {exc.run.pk} failed: {exc.run.error}") from exc
        self._funnel(run)

    def _concept_id(self, taxonomy_id: str | None) -> int | None:
        if taxonomy_id is None:
            return None
        concept, _alias = concept_resolve(taxonomy_id=taxonomy_id)
        if concept is None:
            raise CommandError(f"unknown concept {taxonomy_id!r}: no taxonomy id or alias matches")
        return concept.pk

    def _funnel(self, run):
        self.stdout.write("")
        self.stdout.write(f"detection run {run.pk} ({run.status})")
        self.stdout.write(f"{'stage':<22} {'count':>8}  meaning")
        for stage, count in run_funnel(run):
            self.stdout.write(f"{stage:<22} {count:>8}  {STAGE_MEANINGS[stage]}")
        if run.prompt_tokens or run.completion_tokens:
            self.stdout.write(
                f"tokens: {run.prompt_tokens} prompt, {run.completion_tokens} completion"
            )
