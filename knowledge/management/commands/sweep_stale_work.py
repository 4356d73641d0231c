import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from knowledge.services.sweep import stale_work_sweep


class Command(BaseCommand):
    help = (
        'Fail ingest pages and extraction runs left "running" by a lost or timed-out worker '
        "(what beat runs every 10 minutes); idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than-minutes",
            type=int,
            default=None,
            help="idle age that counts as lost (default: JOB_STALE_AFTER_SECONDS)",
        )

    def handle(self, *args, older_than_minutes: int | None, **options):
        if older_than_minutes is not None and older_than_minutes < 1:
            raise CommandError("--older-than-minutes must be at least 1")
        age = None if older_than_minutes is None else dt.timedelta(minutes=older_than_minutes)
        self.stdout.write(str(stale_work_sweep(older_than=age)))
