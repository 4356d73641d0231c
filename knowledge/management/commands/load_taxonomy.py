from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from knowledge.services.taxonomy import DEFAULT_TAXONOMY_FILE, TaxonomyError, taxonomy_load_file

DIFFERENCES_SHOWN = 20


class Command(BaseCommand):
    help = (
        "Load the strict taxonomy (categories, concepts, aliases) from YAML: creates what the "
        "database lacks, never changes what it holds (editors' renames, edits, retirements, "
        "approvals, merges) and lists where the database differs from the file."
    )

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
            ("aliases added", report.aliases_added),
            ("categories created", report.categories_created),
            ("glossary readings added", report.glossary_added),
            ("life events added", report.life_events_added),
        ):
            if items:
                shown = ", ".join(items if verbosity >= 2 else items[:8])
                more = " …" if len(items) > 8 and verbosity < 2 else ""
                self.stdout.write(f"  {label}: {len(items)}  {shown}{more}")
        self._write_differences(report.differences, verbosity=verbosity)
        prefix = "[dry run] " if dry_run else ""
        count = len(report.differences)
        self.stdout.write(
            self.style.SUCCESS(
                f"{prefix}taxonomy: {report.change_count} changes, "
                f"{report.unchanged} concepts unchanged, "
                f"{count} difference{'' if count == 1 else 's'} kept from the database"
            )
        )

    def _write_differences(self, differences: list[str], *, verbosity: int) -> None:
        if not differences:
            return
        self.stdout.write(
            f"  the database differs from the file in {len(differences)} place(s); "
            "kept as they are (change them on the taxonomy screens, where they are audited):"
        )
        shown = differences if verbosity >= 2 else differences[:DIFFERENCES_SHOWN]
        for line in shown:
            self.stdout.write(f"    {line}")
        if len(shown) < len(differences):
            self.stdout.write(f"    … and {len(differences) - len(shown)} more (-v 2 lists all)")
