from django.urls import path

from curation import review_views, taxonomy_views, views

app_name = "curation"

urlpatterns = [
    path("jobs/", views.jobs, name="jobs"),
    path(
        "jobs/extraction/<int:job_id>/progress/",
        views.extraction_job_progress,
        name="extraction-job-progress",
    ),
    path(
        "jobs/ingest/<int:job_id>/progress/",
        views.ingest_job_progress,
        name="ingest-job-progress",
    ),
    path("review/", review_views.review, name="review"),
    path("review/pairs/<int:candidate_id>/", review_views.review_pair, name="review-pair"),
    path(
        "review/pairs/<int:candidate_id>/decide/",
        review_views.review_decide,
        name="review-decide",
    ),
    path("review/bulk-approve/", review_views.review_bulk_approve, name="review-bulk-approve"),
    path("review/decisions/", review_views.decisions, name="review-decisions"),
    path(
        "review/decisions/<int:event_id>/revert/",
        review_views.decision_revert,
        name="review-revert",
    ),
    path("snapshots/<int:snapshot_id>/", review_views.snapshot, name="snapshot"),
    # The editors' screens (curation.taxonomy_views).
    path("taxonomy/", taxonomy_views.taxonomy, name="taxonomy"),
    path(
        "taxonomy/categories/<slug:slug>/",
        taxonomy_views.taxonomy_category,
        name="taxonomy-category",
    ),
    path(
        "taxonomy/concepts/<int:concept_id>/",
        taxonomy_views.taxonomy_concept,
        name="taxonomy-concept",
    ),
    path(
        "taxonomy/concepts/<int:concept_id>/<slug:action>/",
        taxonomy_views.concept_change,
        name="taxonomy-concept-change",
    ),
    path("taxonomy/flags/", taxonomy_views.taxonomy_flags, name="taxonomy-flags"),
    path("taxonomy/flags/resolve/", taxonomy_views.flags_resolve, name="taxonomy-flags-resolve"),
    path("taxonomy/triage/", taxonomy_views.taxonomy_triage, name="taxonomy-triage"),
    path(
        "taxonomy/triage/<int:item_id>/assign/",
        taxonomy_views.item_assign,
        name="taxonomy-item-assign",
    ),
    path(
        "taxonomy/triage/<int:item_id>/discard/",
        taxonomy_views.item_discard,
        name="taxonomy-item-discard",
    ),
    path("taxonomy/bootstrap/", taxonomy_views.taxonomy_bootstrap, name="taxonomy-bootstrap"),
    path(
        "taxonomy/bootstrap/<slug:slug>/propose/",
        taxonomy_views.bootstrap_propose,
        name="taxonomy-bootstrap-propose",
    ),
    path(
        "taxonomy/bootstrap/<slug:slug>/reextract/",
        taxonomy_views.bootstrap_reextract,
        name="taxonomy-bootstrap-reextract",
    ),
    path("taxonomy/changes/", taxonomy_views.taxonomy_changes, name="taxonomy-changes"),
    path(
        "taxonomy/changes/<int:event_id>/revert/",
        taxonomy_views.change_revert,
        name="taxonomy-change-revert",
    ),
]
