"""The admin home (where `make demo` sends people) leads to the curation screens each role
may open, and to none it may not."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db

REVIEW = ["curation:review", "curation:review-decisions"]
TAXONOMY = [
    "curation:taxonomy",
    "curation:taxonomy-flags",
    "curation:taxonomy-triage",
    "curation:taxonomy-bootstrap",
    "curation:taxonomy-glossary",
    "curation:taxonomy-changes",
]
JOBS = ["curation:jobs"]
AUDIT = ["curation:audit", "curation:audit-results"]


def _links(client, user) -> set[str]:
    client.force_login(user)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 200
    page = response.content.decode()
    every = REVIEW + TAXONOMY + JOBS + AUDIT
    return {name for name in every if f'href="{reverse(name)}"' in page}


def test_an_expert_is_led_to_the_review_screens_and_the_jobs(client, expert):
    assert _links(client, expert) == set(REVIEW + AUDIT + JOBS)


def test_an_editor_is_led_to_the_taxonomy_screens_and_the_jobs(client, editor):
    assert _links(client, editor) == set(TAXONOMY + AUDIT + JOBS)


def test_plain_staff_are_led_to_the_jobs_only(client):
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    assert _links(client, staff) == set(JOBS)


def test_a_superuser_is_led_everywhere_and_the_app_list_stays(client, superuser):
    assert _links(client, superuser) == set(REVIEW + TAXONOMY + AUDIT + JOBS)
    assert 'id="content-main"' in client.get(reverse("admin:index")).content.decode()


def test_only_editors_are_led_to_the_glossary(client, editor, expert):
    glossary = f'href="{reverse("curation:taxonomy-glossary")}"'
    client.force_login(editor)
    assert glossary in client.get(reverse("admin:index")).content.decode()
    client.force_login(expert)
    assert glossary not in client.get(reverse("admin:index")).content.decode()
