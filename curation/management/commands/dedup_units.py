import json as jsonlib
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curation.services.dedup import units_dedup
from knowledge.models import Concept


class Command(BaseCommand):
    help = (
        "Merge near-identical units of each concept into one that keeps every other page in "
        "also_found_in, and the units of one page sharing one evidence quote into the one whose "
        "value the statement is about (the others' figures kept); prints what merged "
        "(audited; revertible from the audit trail)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--concept", metavar="TAXONOMY_ID")
        parser.add_argument("--dry-run", action="store_true", help="report, change nothing")
        parser.add_argument("--json", type=Path, metavar="FILE", help="also write the report")

    def handle(self, *args, concept: str | None, dry_run: bool, json: Path | None, **options):
        concept_id = None
        if concept:
            found = Concept.objects.filter(taxonomy_id=concept).first()
            if found is None:
                raise CommandError(f"--concept: no concept {concept!r}")
            concept_id = found.pk
        total = 1 if concept_id else Concept.objects.count()
        with tqdm(total=total, unit="concept", file=self.stderr._out) as bar:
            report = units_dedup(concept_id=concept_id, dry_run=dry_run, progress=bar.update)
        for group in report.quote_groups:
            self.stdout.write(
                f"  one quote: {group.concept}: kept {group.kept}, merged {group.removed}: "
                f"{group.text[:70]}"
            )
        for group in report.groups:
            self.stdout.write(
                f"  {group.concept}: kept {group.kept}, removed {group.removed} "
                f"({len(group.sources)} page(s)): {group.text[:70]}"
            )
        self.stdout.write(
            f"{'[dry run] ' if dry_run else ''}checked {report.units_checked} units in "
            f"{report.concepts_checked} concepts: {len(report.groups)} groups merged, "
            f"{report.units_removed} duplicates removed, {report.skipped_in_chains} left alone "
            "(in a superseding chain); "
            f"{len(report.quote_groups)} shared evidence quotes merged into one unit each, "
            f"{report.quotes_narrowed} of figures for different periods quoted by their own "
            f"clause, {report.quotes_left_for_periods} left (extract the page again); "
            f"{report.left_for_experts} groups holding two experts' corrections left to them"
        )
        if json:
            payload = {
                "groups": [asdict(g) for g in report.groups],
                "quote_groups": [asdict(g) for g in report.quote_groups],
                "quotes_narrowed": report.quotes_narrowed,
                "quotes_left_for_periods": report.quotes_left_for_periods,
                "units_removed": report.units_removed,
                "dry_run": dry_run,
            }
            json.write_text(_dumps(payload), encoding="utf-8")


def _dumps(payload) -> str:
    return jsonlib.dumps(payload, indent=2, ensure_ascii=False) + "\n"
