from django.urls import path

from curation.selectors.jobs import JOB_KINDS
from curation.views import (
    audit_sample,
    bootstrap,
    changes,
    decisions,
    flags,
    glossary,
    jobs,
    page_changes,
    review,
    snapshot,
    taxonomy,
    triage,
    unit_edit,
    unit_queue,
)

app_name = "curation"

urlpatterns = [
    path("jobs/", jobs.jobs, name="jobs"),
    *(
        path(
            f"jobs/{kind}/<int:job_id>/progress/",
            jobs.job_progress,
            {"kind": kind},
            name=f"{kind}-job-progress",
        )
        for kind in JOB_KINDS
    ),
    # The domain experts' screens.
    path("review/", review.review, name="review"),
    path("review/pairs/<int:candidate_id>/", review.review_pair, name="review-pair"),
    path("review/pairs/<int:candidate_id>/decide/", review.review_decide, name="review-decide"),
    path("review/bulk-approve/", review.review_bulk_approve, name="review-bulk-approve"),
    path(
        "review/units/<int:unit_id>/signoff/",
        review.review_unit_signoff,
        name="review-unit-signoff",
    ),
    path(
        "review/signoffs/<int:event_id>/revert/",
        review.review_signoff_revert,
        name="review-signoff-revert",
    ),
    path("review/decisions/", decisions.decisions, name="review-decisions"),
    # An expert corrects a unit's facts beside its page: edit, split, join, undo.
    path("units/<int:unit_id>/edit/", unit_edit.unit_edit, name="unit-edit"),
    path("units/<int:unit_id>/split/", unit_edit.unit_split, name="unit-split"),
    path("units/<int:unit_id>/join/", unit_edit.unit_join, name="unit-join"),
    path(
        "units/corrections/<int:event_id>/undo/",
        unit_edit.correction_undo,
        name="unit-correction-undo",
    ),
    # The units to review first: what users were served most, weighted by doubt.
    path("units/queue/", unit_queue.unit_queue, name="unit-queue"),
    path(
        "units/queue/<int:unit_id>/signoff/",
        unit_queue.unit_queue_signoff,
        name="unit-queue-signoff",
    ),
    path(
        "units/queue/<int:unit_id>/triage/", unit_queue.unit_queue_triage, name="unit-queue-triage"
    ),
    path(
        "units/queue/<int:unit_id>/retire/", unit_queue.unit_queue_retire, name="unit-queue-retire"
    ),
    path(
        "units/queue/changes/<int:event_id>/revert/",
        unit_queue.unit_queue_revert,
        name="unit-queue-revert",
    ),
    path(
        "review/decisions/<int:event_id>/revert/",
        decisions.decision_revert,
        name="review-revert",
    ),
    # Audit samples: domain experts and editors.
    path("audit/", audit_sample.audit, name="audit"),
    path("audit/draw/", audit_sample.audit_draw, name="audit-draw"),
    path("audit/results/", audit_sample.audit_results, name="audit-results"),
    path("audit/samples/<int:sample_id>/", audit_sample.audit_sample, name="audit-sample"),
    path(
        "audit/samples/<int:sample_id>/units/<int:position>/judge/",
        audit_sample.audit_judge,
        name="audit-judge",
    ),
    path(
        "audit/samples/<int:sample_id>/units/<int:position>/move/",
        audit_sample.audit_move,
        name="audit-move",
    ),
    path(
        "audit/samples/<int:sample_id>/units/<int:position>/triage/",
        audit_sample.audit_triage,
        name="audit-triage",
    ),
    path(
        "audit/samples/<int:sample_id>/units/<int:position>/changes/<int:event_id>/revert/",
        audit_sample.audit_revert,
        name="audit-revert",
    ),
    path("snapshots/<int:snapshot_id>/", snapshot.snapshot, name="snapshot"),
    # Changes on gov.uk: domain experts and editors.
    path("changes/", page_changes.changes, name="changes"),
    path("changes/pages/<int:source_id>/", page_changes.change_page, name="changes-page"),
    path(
        "changes/units/<int:unit_id>/confirm/",
        page_changes.change_unit_confirm,
        name="changes-unit-confirm",
    ),
    path(
        "changes/units/<int:unit_id>/retire/",
        page_changes.change_unit_retire,
        name="changes-unit-retire",
    ),
    path(
        "changes/decisions/<int:event_id>/revert/",
        page_changes.change_decision_revert,
        name="changes-revert",
    ),
    # The editors' screens.
    path("taxonomy/", taxonomy.taxonomy, name="taxonomy"),
    path("taxonomy/categories/<slug:slug>/", taxonomy.taxonomy_category, name="taxonomy-category"),
    path("taxonomy/concepts/<int:concept_id>/", taxonomy.taxonomy_concept, name="taxonomy-concept"),
    path(
        "taxonomy/concepts/<int:concept_id>/<slug:action>/",
        taxonomy.concept_change,
        name="taxonomy-concept-change",
    ),
    path("taxonomy/flags/", flags.taxonomy_flags, name="taxonomy-flags"),
    path("taxonomy/flags/resolve/", flags.flags_resolve, name="taxonomy-flags-resolve"),
    path("taxonomy/triage/", triage.taxonomy_triage, name="taxonomy-triage"),
    path("taxonomy/triage/<int:item_id>/assign/", triage.item_assign, name="taxonomy-item-assign"),
    path(
        "taxonomy/triage/<int:item_id>/discard/", triage.item_discard, name="taxonomy-item-discard"
    ),
    path("taxonomy/bootstrap/", bootstrap.taxonomy_bootstrap, name="taxonomy-bootstrap"),
    path(
        "taxonomy/bootstrap/<slug:slug>/propose/",
        bootstrap.bootstrap_propose,
        name="taxonomy-bootstrap-propose",
    ),
    path(
        "taxonomy/bootstrap/<slug:slug>/reextract/",
        bootstrap.bootstrap_reextract,
        name="taxonomy-bootstrap-reextract",
    ),
    path("taxonomy/glossary/", glossary.glossary, name="taxonomy-glossary"),
    path(
        "taxonomy/glossary/<slug:kind>/add/",
        glossary.vocabulary_change,
        {"action": "add"},
        name="taxonomy-glossary-add",
    ),
    path(
        "taxonomy/glossary/<slug:kind>/<int:record_id>/<slug:action>/",
        glossary.vocabulary_change,
        name="taxonomy-glossary-change",
    ),
    path("taxonomy/changes/", changes.taxonomy_changes, name="taxonomy-changes"),
    path(
        "taxonomy/changes/<int:event_id>/revert/",
        changes.change_revert,
        name="taxonomy-change-revert",
    ),
]
