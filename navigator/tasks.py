from celery import shared_task
from django.conf import settings

from navigator.services import query_log_purge


@shared_task
def purge_query_log() -> int:
    """Nightly (beat): query log rows past the retention go. Safe to run twice."""
    return query_log_purge(older_than_days=settings.QUERY_LOG_RETENTION_DAYS)
