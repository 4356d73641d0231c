"""The audit screen: draw, judge (whole page and htmx fragment), results, who may open it."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from curation.models import AuditJudgement, AuditSample
from tests.curation.test_audit_sample import ALL_YES, knowledge_base

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_an_expert_draws_judges_and_reads_the_results(client, expert):
    knowledge_base({"isa": 3, "vat": 2})
    client.force_login(expert)
    assert client.get(reverse("curation:audit")).status_code == 200
    response = client.post(reverse("curation:audit-draw"), {"size": 4, "seed": 9})
    sample = AuditSample.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"/audit/samples/{sample.pk}/")
    page = client.get(response.url).content.decode()
    assert 'unit <strong class="audit-position">1</strong> of 4' in page
    assert "evidence-link" in page and 'name="concept_right"' in page
    judge = reverse("curation:audit-judge", args=[sample.pk, 1])
    fragment = client.post(judge, {**ALL_YES, "note": "fine"}, **HTMX)
    assert fragment.status_code == 200
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="audit-judge"') and "<html" not in body
    assert 'class="audit-position">2<' in body and "Undo" in body
    assert AuditJudgement.objects.get().note == "fine"
    results = client.get(reverse("curation:audit-results"), {"sample": sample.pk})
    assert results.status_code == 200 and 'id="audit-by-category"' in results.content.decode()
    listing = client.get(reverse("curation:audit")).content.decode()
    assert "1 of 4" in listing


def test_an_unanswered_question_is_refused_on_the_screen(client, editor):
    knowledge_base({"isa": 1})
    client.force_login(editor)
    client.post(reverse("curation:audit-draw"), {"size": 1, "seed": 1})
    sample = AuditSample.objects.get()
    judge = reverse("curation:audit-judge", args=[sample.pk, 1])
    response = client.post(judge, {"concept_right": "yes"}, **HTMX)
    assert "answer it" in response.content.decode() and not AuditJudgement.objects.exists()


def test_the_judging_fragment_for_j_and_k(client, expert):
    knowledge_base({"isa": 2})
    client.force_login(expert)
    client.post(reverse("curation:audit-draw"), {"size": 2, "seed": 1})
    sample = AuditSample.objects.get()
    url = reverse("curation:audit-sample", args=[sample.pk])
    body = client.get(url, {"unit": 2}, **HTMX).content.decode()
    assert "<html" not in body and 'data-position="2"' in body


@pytest.mark.parametrize("name", ["curation:audit", "curation:audit-results"])
def test_other_roles_are_refused(client, name):
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    client.force_login(staff)
    assert client.get(reverse(name)).status_code == 403
    assert client.post(reverse("curation:audit-draw"), {"size": 1}).status_code == 403


def test_anonymous_people_go_to_the_login(client):
    response = client.get(reverse("curation:audit"))
    assert response.status_code == 302 and "/login/" in response.url


def test_the_list_of_samples_reads_their_summaries_in_one_query(client, expert):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from curation.services.audit_sample import judgement_record, sample_draw

    knowledge_base({"isa": 3})
    client.force_login(expert)

    def queries_for_the_list() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("curation:audit")).status_code == 200
        return len(captured)

    def judged_sample(seed: int) -> None:
        sample = sample_draw(size=2, seed=seed, user=expert)
        judgement_record(
            sample_id=sample.pk, unit_id=sample.unit_ids[0], answers=ALL_YES, user=expert
        )

    judged_sample(1)
    with_one = queries_for_the_list()
    for seed in (2, 3, 4):
        judged_sample(seed)
    assert queries_for_the_list() == with_one
    assert client.get(reverse("curation:audit")).content.decode().count("1 of 2") == 4
