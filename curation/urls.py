from django.urls import path

from curation import views

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
]
