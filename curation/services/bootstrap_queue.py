"""Starting bootstrap work from the screen: the job is checked (what would be refused anyway
is refused now, naming the field), created, and its task (curation.tasks.run_bootstrap_job)
queued once the job is committed, so the screen answers at once. A worker runs it
(curation.services.bootstrap_jobs)."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from curation.models import BootstrapJob
from curation.services.bootstrap import (
    category_pages_required,
    proposal_arguments_check,
    reextract_arguments_check,
)
from curation.services.taxonomy import require_editor
from curation.tasks import run_bootstrap_job
from knowledge.task_queue import TaskQueueUnavailable, task_queue_required

Kind = BootstrapJob.Kind


def bootstrap_propose_job_create(
    *,
    category_slug: str,
    user,
    prefix: str | None = None,
    url_prefixes: list[str] | None = None,
    limit: int = 15,
) -> BootstrapJob:
    """A job proposing concepts, its task queued on commit."""
    require_editor(user)
    category, _ = proposal_arguments_check(category_slug=category_slug, prefix=prefix, limit=limit)
    category_pages_required(category=category, url_prefixes=url_prefixes)
    params = {"prefix": prefix, "url_prefixes": url_prefixes, "limit": limit}
    return _job_create(Kind.PROPOSE, category, params, user)


def bootstrap_reextract_job_create(
    *, category_slug: str, user, url_prefixes: list[str] | None = None
) -> BootstrapJob:
    """A job re-extracting the category's pages, its task queued on commit."""
    require_editor(user)
    category = reextract_arguments_check(category_slug=category_slug)
    return _job_create(Kind.REEXTRACT, category, {"url_prefixes": url_prefixes}, user)


def _job_create(kind: str, category, params: dict, user) -> BootstrapJob:
    """Refused with TaskQueueUnavailable, before any row exists, when no worker could be
    told; a broker lost between that check and the commit fails the job with the reason."""
    task_queue_required()
    job = BootstrapJob.objects.create(
        kind=kind, category=category, params=params, created_by=user, total=1
    )
    transaction.on_commit(partial(_queue_or_fail, job.pk))
    return job


def _queue_or_fail(job_id: int) -> None:
    try:
        run_bootstrap_job.delay(job_id)
    except Exception as exc:  # the broker's client raises its own
        BootstrapJob.objects.filter(pk=job_id, status=BootstrapJob.Status.QUEUED).update(
            status=BootstrapJob.Status.FAILED, error=str(TaskQueueUnavailable(type(exc).__name__))
        )
