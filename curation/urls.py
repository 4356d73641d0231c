from django.urls import path

from curation import review_views, views

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
]
