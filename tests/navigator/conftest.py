"""The knowledge base the API tests search: the project's fixture pages, extracted once per
module, and an API client holding a token."""

import json
from pathlib import Path

import pytest
from django.db import connection

from knowledge.models import Source
from knowledge.services import ingest
from knowledge.services.embed import concepts_embed, units_embed
from knowledge.services.extract import snapshot_extract
from knowledge.services.taxonomy import taxonomy_load_file
from navigator.services import api_token_create

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
KNOWLEDGE_TABLES = (
    "knowledge_source, knowledge_pagesnapshot, knowledge_atomicunit, knowledge_extractionrun, "
    "knowledge_extractionjob, knowledge_extractionitem, knowledge_qualityflag, knowledge_ingestjob, "
    "knowledge_ingestitem, knowledge_snapshotlink, knowledge_category, knowledge_concept, "
    "knowledge_conceptalias, knowledge_glossaryterm, knowledge_lifeevent"
)


def knowledge_base_build(pages: tuple[str, ...] | None = None) -> None:
    """The taxonomy and the fixture pages (those named, by file stem, or all), ingested,
    extracted (heuristic) and embedded."""
    taxonomy_load_file()
    job = ingest.directory_job_create(root=FIXTURES)
    for ref in job.refs:
        if pages is None or Path(ref).stem in pages:
            ingest.ingest_item_run(job_id=job.pk, ref=ref)
    concepts_embed()
    for source in Source.objects.all():
        for snapshot in source.snapshots.all():
            snapshot_extract(snapshot_id=snapshot.pk)
    units_embed()


@pytest.fixture(scope="module")
def kb(django_db_setup, django_db_blocker):
    """Taxonomy + the fixture pages, ingested, extracted (heuristic) and embedded, once."""
    with django_db_blocker.unblock():
        knowledge_base_build()
        yield
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {KNOWLEDGE_TABLES} RESTART IDENTITY CASCADE")


@pytest.fixture
def token(db):
    return api_token_create(name="test app")


@pytest.fixture
def api(client, token):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token[1]}"}

    class Api:
        def search(self, **body):
            return self.post("/search", body)

        def analyze(self, **body):
            return self.post("/analyze", body)

        def post(self, path, body):
            return client.post(
                f"/api/v1{path}", json.dumps(body), content_type="application/json", **headers
            )

        def get(self, path):
            return client.get(f"/api/v1{path}", **headers)

    return Api()
