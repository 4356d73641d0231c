"""Whether work can be handed to the workers now. Starting a job (an ingestion, a bootstrap)
asks first, so that a broker that cannot be reached refuses the start in words, before any
job row exists, rather than leaving a job that nothing will run. Follow-up work queued after
a change (embedding corrected units, detecting superseding pairs) never fails the change
that was saved: a broker down then is logged, and the work waits for its next run (the
embed command and the nightly schedule pick up what is left)."""

from __future__ import annotations

import logging
from functools import partial

from celery import current_app
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

UNAVAILABLE = "the task queue is unavailable; nothing was started"


class TaskQueueUnavailable(Exception):
    def __init__(self, cause: str = ""):
        super().__init__(UNAVAILABLE + (f" ({cause})" if cause else ""))


def task_queue_required() -> None:
    """Raises TaskQueueUnavailable unless tasks run in-process (no broker configured) or the
    broker answers within TASK_QUEUE_CHECK_SECONDS."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    try:
        with current_app.connection_for_write() as broker:
            broker.ensure_connection(
                max_retries=1, interval_start=0, timeout=settings.TASK_QUEUE_CHECK_SECONDS
            )
    except Exception as exc:  # kombu wraps each transport's own errors differently
        raise TaskQueueUnavailable(type(exc).__name__) from exc


def queue_after_commit(task, *args) -> None:
    """`task.delay(*args)` once the transaction commits; a failure to queue is logged, not
    raised, since what was committed stands."""
    transaction.on_commit(partial(_queue_quietly, task, args))


def _queue_quietly(task, args: tuple) -> None:
    try:
        task.delay(*args)
    except Exception as exc:  # the broker's client raises its own
        logger.warning(
            "%s was not queued (%s): it waits for its next run", task.name, type(exc).__name__
        )
