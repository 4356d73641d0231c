from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from knowledge.services.taxonomy import DEFAULT_TAXONOMY_FILE, TaxonomyError, taxonomy_load_file


class Command(BaseCommand):
    help = "Load the strict taxonomy (categories and concepts) from YAML, idempotently."

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=DEFAULT_TAXONOMY_FILE)
        parser.add_argument("--dry-run", action="store_true", help="report, change nothing")

    def handle(self, *args, file: Path, dry_run: bool, verbosity: int, **options):
        try:
            report = taxonomy_load_file(path=file, dry_run=dry_run)
        except TaxonomyError as exc:
            raise CommandError(str(exc)) from exc
        for label, items in (
            ("created", report.created),
            ("updated", report.updated),
            ("reinstated", report.reinstated),
            ("retired (has units)", report.retired),
            ("deleted (no units)", report.deleted),
            ("aliases added", report.aliases_added),
            ("categories changed", report.categories_changed),
        ):
            if items:
                shown = ", ".join(items[:8]) + (" …" if len(items) > 8 and verbosity < 2 else "")
                if verbosity >= 2:
                    shown = ", ".join(items)
                self.stdout.write(f"  {label}: {len(items)}  {shown}")
        prefix = "[dry run] " if dry_run else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"{prefix}taxonomy: {report.change_count} changes, "
                f"{report.unchanged} concepts unchanged"
            )
        )
