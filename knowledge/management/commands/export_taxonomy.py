from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from knowledge.services.taxonomy import TaxonomyError, taxonomy_dump


class Command(BaseCommand):
    help = "Write the taxonomy (categories, concepts, aliases, proposals) as YAML or JSON."

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, help="write here instead of standard output")
        parser.add_argument(
            "--format",
            choices=["yaml", "json"],
            default=None,
            help="default: from the file's suffix, else yaml",
        )

    def handle(self, *args, file: Path | None, format: str | None, **options):
        fmt = format or ("json" if file and file.suffix == ".json" else "yaml")
        try:
            text = taxonomy_dump(fmt=fmt)
        except TaxonomyError as exc:
            raise CommandError(str(exc)) from exc
        if file is None:
            self.stdout.write(text, ending="")
            return
        if not file.parent.is_dir():
            raise CommandError(f"--file: no such directory {file.parent}")
        file.write_text(text, encoding="utf-8")
        self.stderr.write(self.style.SUCCESS(f"taxonomy written to {file}"))
