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
        "also_found_in; prints what merged (audited; revertible from the audit trail)."
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
        for group in report.groups:
            self.stdout.write(
                f"  {group.concept}: kept {group.kept}, removed {group.removed} "
                f"({len(group.sources)} page(s)): {group.text[:70]}"
            )
        self.stdout.write(
            f"{'[dry run] ' if dry_run else ''}checked {report.units_checked} units in "
            f"{report.concepts_checked} concepts: {len(report.groups)} groups merged, "
            f"{report.units_removed} duplicates removed, {report.skipped_in_chains} left alone "
            "(in a superseding chain)"
        )
        if json:
            payload = {
                "groups": [asdict(g) for g in report.groups],
                "units_removed": report.units_removed,
                "dry_run": dry_run,
            }
            json.write_text(_dumps(payload), encoding="utf-8")


def _dumps(payload) -> str:
    return jsonlib.dumps(payload, indent=2, ensure_ascii=False) + "\n"
