from collections import Counter
from contextlib import suppress

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge.models import ExtractionRun
from knowledge.providers import ProviderError, get_provider
from knowledge.selectors import snapshots_to_extract
from knowledge.services.embed import concepts_embed
from knowledge.services.extract import (
    ExtractionFailed,
    extraction_job_create,
    extraction_job_progress,
    snapshot_extract,
)


class Command(BaseCommand):
    help = "Extract atomic units from page snapshots (both passes), with a progress bar."

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--all", action="store_true", help="every snapshot")
        which.add_argument("--source", metavar="URL", help="the snapshots of one gov.uk page")
        parser.add_argument("--provider", choices=["heuristic", "openai"], default=None)
        parser.add_argument(
            "--again",
            action="store_true",
            help="extract again where this provider and prompt version ran already (after an"
            " extractor upgrade): experts' units stay as they left them, machine units the new"
            " run no longer finds are retired",
        )
        parser.add_argument("--quiet-progress", action="store_true")

    def handle(self, *args, all, source, provider, again, quiet_progress, **options):
        try:
            chosen = get_provider(provider)
        except ProviderError as exc:
            raise CommandError(exc.reason) from exc
        snapshot_ids = snapshots_to_extract(source_url=source)
        if not snapshot_ids:
            raise CommandError(
                f"no snapshots for {source}" if source else "no snapshots: ingest first"
            )
        concepts_embed()  # binding compares units with concept vectors
        job = extraction_job_create(snapshot_ids=snapshot_ids, provider=chosen.name, again=again)
        label = "heuristic (rule-based, no LLM)" if chosen.name == "heuristic" else chosen.name
        self.stdout.write(
            f"extraction job {job.pk}: {len(snapshot_ids)} snapshots, provider {label}"
            + (", again over earlier runs" if again else "")
        )
        for snapshot_id in tqdm(
            snapshot_ids, unit="page", disable=quiet_progress, file=self.stderr._out
        ):
            with suppress(ExtractionFailed):  # recorded on the run; reported below
                snapshot_extract(
                    snapshot_id=snapshot_id,
                    provider=chosen,
                    again_in_job=job.pk if again else None,
                )
        self._summary(job.pk)

    def _summary(self, job_id):
        progress = extraction_job_progress(job_id=job_id)
        runs = ExtractionRun.objects.filter(job_id=job_id)
        totals = Counter()
        for run in runs:
            totals.update(
                made=run.units_made,
                rejected=run.units_rejected,
                unassigned=run.units_unassigned,
                tokens=run.prompt_tokens + run.completion_tokens,
            )
        self.stdout.write(
            f"runs: {progress['by_status']['succeeded']} succeeded, {progress['by_status']['failed']} failed, "
            f"{progress['total'] - runs.count()} already done earlier"
        )
        self.stdout.write(
            f"units: {totals['made']} stored, {totals['rejected']} rejected, "
            f"{totals['unassigned']} unassigned (triage); tokens {totals['tokens']}"
        )
        again = [run.summary for run in runs if run.summary.get("again")]
        if again:
            retired = sorted(pk for summary in again for pk in summary["retired"])
            kept = sum(len(summary["kept_for_experts"]) for summary in again)
            self.stdout.write(
                f"again: {sum(s['found_again'] for s in again)} units found again and kept, "
                f"{sum(s.get('left_out_by_decisions', 0) for s in again)} statements a decision "
                "took out not brought back, "
                f"{kept} experts' units kept as they left them (the new run's findings there "
                f"counted as sightings), {len(retired)} machine units no longer found retired"
                + (f": {', '.join(map(str, retired))}" if retired else "")
            )
        for url, error in progress["failures"]:
            self.stdout.write(self.style.WARNING(f"  {url}: {error}"))
        if progress["by_status"]["failed"]:
            raise CommandError(f"{progress['by_status']['failed']} run(s) failed")
