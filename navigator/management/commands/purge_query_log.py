from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from navigator.services import query_log_purge


class Command(BaseCommand):
    help = (
        "Delete API query log rows older than QUERY_LOG_RETENTION_DAYS (users' questions are "
        "personal data). Celery beat runs it nightly."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days", type=int, default=None, help="retention in days (default: the setting)"
        )

    def handle(self, *args, days: int | None, **options):
        days = settings.QUERY_LOG_RETENTION_DAYS if days is None else days
        try:
            deleted = query_log_purge(older_than_days=days)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Deleted {deleted} query log row(s) older than {days} days.")
