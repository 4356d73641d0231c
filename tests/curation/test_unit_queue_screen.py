"""The review queue screen: the units in the order computed with why each is there, the
reviewed share of what was served, the htmx fragment, sign-off, triage and retirement (and
undoing them) by POST, who may; the link to it."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, reverse

from curation.models import AuditEvent
from knowledge.models import AtomicUnit, ExtractionItem
from tests.curation.test_unit_queue import known_queue

pytestmark = pytest.mark.django_db

QUEUE_URL = "/curation/units/queue/"
HTMX = {"HTTP_HX_REQUEST": "true"}


def listed(body: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'class="queue-row" id="queue-unit-(\d+)"', body)]


def why(body: str, unit: AtomicUnit) -> str:
    row = body[body.index(f'id="queue-unit-{unit.pk}"') :]
    return re.search(r'<p class="why"><strong>Why:</strong> (.*?)</p>', row).group(1)


@pytest.fixture
def kb(expert) -> dict[str, AtomicUnit]:
    return known_queue(expert)


@pytest.fixture
def expert_client(client, expert):
    client.force_login(expert)
    return client


def test_the_queue_lists_units_in_order_with_why_each_is_there(expert_client, kb):
    assert reverse("curation:unit-queue") == QUEUE_URL
    response = expert_client.get(QUEUE_URL)
    assert response.status_code == 200
    body = response.content.decode()
    order = ["heur", "misplaced", "plain", "signed", "unconf", "outdated", "quiet"]
    assert listed(body) == [kb[name].pk for name in order]
    assert (
        why(body, kb["heur"]) == "served 3 times in 30 days (top-3 in 3) · machine-only · heuristic"
    )
    assert why(body, kb["misplaced"]) == (
        "served once in 30 days (top-3 in 1) · machine-only · may belong to another concept "
        "(nearer by 0.14) · its category failed 40% of audit judgements"
    )
    assert why(body, kb["signed"]) == "served 3 times in 30 days (top-3 in 2) · signed off"
    assert why(body, kb["unconf"]) == (
        "not served in 30 days · machine-only · heuristic · its category failed 40% of audit "
        "judgements · its page no longer states it"
    )
    assert why(body, kb["outdated"]).endswith("its period ended 5 Apr 2021, nothing newer known")
    assert "<code>isa.allowance</code> ISA allowance &middot; ISAs" in body
    assert f'href="{kb["heur"].source.url}"' in body


def test_the_header_gives_the_reviewed_share_overall_and_per_category(expert_client, kb):
    body = expert_client.get(QUEUE_URL).content.decode()
    assert 'class="reviewed-share">29%<' in body
    isa = re.search(r'data-category="isa"><td>ISAs</td>\s*<td class="num">(\d+)%', body)
    tax = re.search(
        r'data-category="income_tax"><td>Income Tax</td>\s*<td class="num">(\d+)%', body
    )
    assert (isa.group(1), tax.group(1)) == ("46", "0")
    # Two weeks of the twelve served anything: this one, and the one 40 days ago.
    titles = re.findall(r'<g class="week-point"><title>Week from [^:]+: (\d+)% of what', body)
    assert titles == ["0", "29"]
    assert 'aria-labelledby="share-chart-title"' in body


def test_the_window_is_a_query_parameter(expert_client, kb):
    body = expert_client.get(QUEUE_URL, {"days": 60}).content.decode()
    assert listed(body)[0] == kb["unconf"].pk
    assert why(body, kb["unconf"]).startswith("served once in 60 days (top-3 in 1) ·")
    nonsense = expert_client.get(QUEUE_URL, {"days": "x²"}).content.decode()
    assert "served 3 times in 30 days" in nonsense


def test_the_htmx_fragment_is_the_workspace_only(expert_client, kb):
    body = expert_client.get(QUEUE_URL, **HTMX).content.decode()
    assert body.lstrip().startswith('<div id="unit-queue-workspace"') and "<html" not in body
    assert listed(body)[0] == kb["heur"].pk


def test_the_queue_is_paged_25_at_a_time(expert_client, kb):
    from tests.factories import UnitFactory

    more = [UnitFactory(concept=kb["plain"].concept) for _ in range(20)]  # 0.01 × 1.4 each
    first = expert_client.get(QUEUE_URL).content.decode()
    second = expert_client.get(QUEUE_URL, {"page": 2}).content.decode()
    assert len(listed(first)) == 25 and listed(first)[5] == kb["outdated"].pk  # 0.019
    assert listed(second) == [more[-1].pk, kb["quiet"].pk]
    assert 'start="26"' in second


def test_signing_off_from_the_queue_swaps_the_workspace_and_is_undone(expert_client, kb):
    url = reverse("curation:unit-queue-signoff", args=[kb["heur"].pk])
    response = expert_client.post(url, {"days": 30}, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith(
        '<div id="unit-queue-workspace"'
    )
    assert f"Signed off unit {kb['heur'].pk} of isa.allowance" in body
    assert AtomicUnit.objects.get(pk=kb["heur"].pk).review_status == "approved"
    assert listed(body)[0] == kb["misplaced"].pk  # heur: 1.8333 × 0.1 now, below plain
    assert 'class="reviewed-share">63%<' in body  # (1.8333 + 1.5833) / 5.4167
    event = AuditEvent.objects.get(action="signoff.unit", target_id=kb["heur"].pk)
    revert = reverse("curation:unit-queue-revert", args=[event.pk])
    assert f'hx-post="{revert}"' in body
    undone = expert_client.post(revert, {"days": 30}, **HTMX).content.decode()
    assert "Reverted: Signed off unit" in undone and listed(undone)[0] == kb["heur"].pk
    assert AtomicUnit.objects.get(pk=kb["heur"].pk).review_status == "pending"


def test_sending_to_triage_from_the_queue(expert_client, kb):
    url = reverse("curation:unit-queue-triage", args=[kb["heur"].pk])
    body = expert_client.post(url, {"reason": "two rules", "days": 30}, **HTMX).content.decode()
    item = ExtractionItem.objects.get()
    assert f"Unit {kb['heur'].pk} sent to triage from the review queue (item {item.pk})" in body
    assert kb["heur"].pk not in listed(body)
    assert AtomicUnit.objects.get(pk=kb["heur"].pk).deleted_at is not None


def test_retiring_from_the_queue_needs_a_reason(expert_client, kb):
    url = reverse("curation:unit-queue-retire", args=[kb["plain"].pk])
    refused = expert_client.post(url, {"reason": ""}, **HTMX).content.decode()
    assert f"Unit {kb['plain'].pk} was not retired: reason: say why" in refused
    body = expert_client.post(url, {"reason": "navigation text"}, **HTMX).content.decode()
    assert f"Retired unit {kb['plain'].pk} of income_tax.personal_allowance" in body
    assert kb["plain"].pk not in listed(body)
    event = AuditEvent.objects.get(action="queue.retire")
    assert event.note == "navigation text" and "Undo" in body


def test_a_plain_form_post_goes_back_to_the_queue_with_a_message(expert_client, kb):
    url = reverse("curation:unit-queue-retire", args=[kb["plain"].pk])
    response = expert_client.post(url, {"reason": "wrong", "days": 60, "page": 1})
    assert response.status_code == 302 and response["Location"] == f"{QUEUE_URL}?days=60"
    page = expert_client.get(response["Location"]).content.decode()
    assert f"Retired unit {kb['plain'].pk}" in page


def test_the_edit_link_is_shown_once_the_unit_editor_exists(expert_client, kb):
    body = expert_client.get(QUEUE_URL).content.decode()
    try:
        edit = reverse("curation:unit-edit", kwargs={"unit_id": kb["heur"].pk})
    except NoReverseMatch:
        assert "edit-link" not in body
    else:
        assert f'class="button edit-link" href="{edit}"' in body


def test_anonymous_people_go_to_the_login(client, kb):
    response = client.get(QUEUE_URL)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get(QUEUE_URL, **HTMX).status_code == 401
    url = reverse("curation:unit-queue-signoff", args=[kb["heur"].pk])
    assert client.post(url).status_code == 302
    assert AtomicUnit.objects.get(pk=kb["heur"].pk).review_status == "pending"


def test_editors_and_plain_staff_are_refused(client, editor, kb):
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    posts = [
        (reverse("curation:unit-queue-signoff", args=[kb["heur"].pk]), {}),
        (reverse("curation:unit-queue-triage", args=[kb["heur"].pk]), {"reason": "x"}),
        (reverse("curation:unit-queue-retire", args=[kb["plain"].pk]), {"reason": "x"}),
    ]
    for user in (editor, staff):
        client.force_login(user)
        assert client.get(QUEUE_URL).status_code == 403
        for url, data in posts:
            assert client.post(url, data, **HTMX).status_code == 403, (user, url)
    assert not AtomicUnit.objects.filter(deleted_at__isnull=False).exists()
    assert AtomicUnit.objects.get(pk=kb["heur"].pk).review_status == "pending"


def test_changes_need_the_csrf_token(expert, kb):
    client = Client(enforce_csrf_checks=True)
    client.force_login(expert)
    url = reverse("curation:unit-queue-signoff", args=[kb["heur"].pk])
    assert client.post(url, **HTMX).status_code == 403
    assert 'name="csrfmiddlewaretoken"' in client.get(QUEUE_URL).content.decode()


def test_experts_are_led_to_the_queue_and_editors_are_not(client, expert, editor):
    client.force_login(expert)
    link = f'href="{QUEUE_URL}"'
    assert link in client.get(reverse("admin:index")).content.decode()
    assert link in client.get(reverse("curation:review")).content.decode()
    client.force_login(editor)
    assert link not in client.get(reverse("admin:index")).content.decode()
