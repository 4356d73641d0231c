from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from navigator.backup import BackupError, restore_read


class Command(BaseCommand):
    help = (
        "Load a dump written by `backup` into this project's database, which must hold no "
        "knowledge base (or pass --replace), then compare every table's rows with the backup's."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--replace",
            action="store_true",
            help="drop what the database holds and load the backup in its place",
        )

    def handle(self, *args, file: Path, replace: bool, **options):
        try:
            result = restore_read(path=file, replace=replace, progress=self.stderr.write)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(result.counts.values())
        if result.differences:
            listed = ", ".join(
                f"{table} {backup:,} in the backup, {restored:,} restored"
                for table, (backup, restored) in sorted(result.differences.items())
            )
            raise CommandError(f"restored {rows:,} rows, but they differ from the backup: {listed}")
        self.stdout.write(f"restored {rows:,} rows of {len(result.counts)} tables, as backed up")
