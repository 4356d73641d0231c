from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from navigator.backup import BackupError, backup_write


class Command(BaseCommand):
    help = (
        "Write a consistent dump of the whole knowledge base (every table, one snapshot) to "
        "FILE with pg_dump, and the row count of every table to FILE.counts.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        try:
            result = backup_write(path=file, progress=self.stderr.write)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"backup written: {result.path} ({result.bytes / 2**20:,.1f} MB), "
            f"{sum(result.counts.values()):,} rows of {len(result.counts)} tables"
        )
