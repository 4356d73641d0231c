"""Reactions to knowledge's signals (connected in CurationConfig.ready)."""

from __future__ import annotations


def detect_after_embedding(sender, count: int = 0, **kwargs) -> None:
    """New unit vectors were stored: queue the superseding detector once they are committed."""
    from curation.tasks import detect_superseding
    from knowledge.task_queue import queue_after_commit

    queue_after_commit(detect_superseding)


def audit_units_retired(sender, run_id: int, before: dict, after: dict, **kwargs) -> None:
    """Extraction again retired machine units its new run no longer finds: the audit trail
    records it (by the system, in the same transaction), revertible like any decision."""
    from curation.services.audit import audit_record
    from knowledge.models import ExtractionRun

    run = ExtractionRun.objects.select_related("snapshot__source").get(pk=run_id)
    retired = [pk for pk, state in after["unit"].items() if state["deleted_at"]]
    audit_record(
        actor=None,
        action="extraction.retire",
        target=run,
        summary=f"Extraction again (run {run.pk}) retired {len(retired)} machine unit(s) of "
        f"{run.snapshot.source.url} it no longer finds: {', '.join(retired)}",
        before=before,
        after=after,
    )
