"""Long lists a page at a time: every row of the flags, triage, review and audit lists is
reachable, page 2 keeping the list's filters, as a whole page and as the htmx fragment."""

import re

import pytest
from django.urls import reverse

from curation.models import AuditSample
from curation.selectors import audit_sample as audit_selectors
from curation.selectors import flags as flag_selectors
from curation.selectors import review as review_selectors
from curation.selectors import triage as triage_selectors
from curation.views.paging import page_url, paginate
from knowledge.models import ExtractionItem, ExtractionRun, QualityFlag
from tests.factories import CandidateFactory, CategoryFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def links(page: str) -> list[str]:
    """The page links of the pager(s) on `page`, as their addresses."""
    return [href.replace("&amp;", "&") for href in re.findall(r'<a href="([^"]+)" hx-get', page)]


def test_the_links_keep_the_filters_and_leave_out_far_pages():
    pager = paginate(
        list(range(200)), number="10", per_page=10, url="/x/", query="kind=a", target="t"
    )
    numbers = [link.number for link in pager.links]
    assert numbers == [1, 2, None, 8, 9, 10, 11, 12, None, 19, 20]
    assert [link.number for link in pager.links if link.current] == [10]
    assert pager.links[0].href == "/x/?kind=a" and pager.links[1].href == "/x/?kind=a&page=2"
    assert list(pager.page.object_list) == list(range(90, 100))


@pytest.mark.parametrize("asked", [None, "", "nonsense", "0", "-1"])
def test_a_page_that_is_not_one_is_the_first(asked):
    assert paginate([1, 2, 3], number=asked, per_page=2, url="/x/", target="t").page.number == 1


def test_a_page_past_the_end_is_the_last_and_the_first_needs_no_number():
    assert paginate([1, 2, 3], number="9", per_page=2, url="/x/", target="t").page.number == 2
    assert page_url("/x/", "", 1) == "/x/" and page_url("/x/", "", 3) == "/x/?page=3"


def test_every_open_flag_is_reachable(client, editor, monkeypatch):
    monkeypatch.setattr(flag_selectors, "FLAGS_PER_PAGE", 2)
    category = CategoryFactory(slug="isa")
    flags = [
        stale_flag(UnitFactory(concept=ConceptFactory(category=category)), n) for n in range(3)
    ]
    stale_flag(UnitFactory(), "of another category")
    client.force_login(editor)
    url = reverse("curation:taxonomy-flags")

    first = client.get(url, {"category": "isa"}).content.decode()
    assert "flag number 2" in first and "flag number 0" not in first  # newest first
    assert links(first) == [f"{url}?category=isa&page=2"] * 2  # above and below the list
    second = client.get(links(first)[0], **HTMX).content.decode()
    assert second.lstrip().startswith('<div id="flag-list"')
    assert f'id="flag-{flags[0].pk}"' in second and "flag number 2" not in second
    assert '<input type="hidden" name="page" value="2">' in second  # a decision stays on it


def test_a_flag_decided_on_page_2_comes_back_to_page_2(client, editor, monkeypatch):
    monkeypatch.setattr(flag_selectors, "FLAGS_PER_PAGE", 1)
    older, _ = stale_flag(UnitFactory(), "older"), stale_flag(UnitFactory(), "newer")
    client.force_login(editor)
    data = {"flag": older.pk, "decision": "dismiss", "page": "2"}
    response = client.post(reverse("curation:taxonomy-flags-resolve"), data)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('curation:taxonomy-flags')}?page=2"


def stale_flag(unit, n) -> QualityFlag:
    return QualityFlag.objects.create(
        unit=unit, kind=QualityFlag.Kind.STALE_SOURCE, reason=f"flag number {n}"
    )


def test_every_open_triage_item_is_reachable(client, editor, monkeypatch):
    monkeypatch.setattr(triage_selectors, "TRIAGE_PER_PAGE", 2)
    unit = UnitFactory()
    run = ExtractionRun.objects.create(
        snapshot=unit.snapshot, provider="heuristic", prompt_version="v1", status="done"
    )
    items = [
        ExtractionItem.objects.create(
            run=run,
            snapshot=unit.snapshot,
            kind="unassigned",
            reason_code="no_confident_concept",
            reason=f"item number {n}",
            proposal={"text": f"proposal {n}"},
        )
        for n in range(3)
    ]
    client.force_login(editor)
    url = reverse("curation:taxonomy-triage")

    first = client.get(url, {"kind": "unassigned"}).content.decode()
    assert f'id="item-{items[0].pk}"' not in first
    assert links(first)[0] == f"{url}?kind=unassigned&page=2"
    second = client.get(links(first)[0], **HTMX).content.decode()
    assert second.lstrip().startswith('<div id="item-list"')
    assert f'id="item-{items[0].pk}"' in second and f'id="item-{items[2].pk}"' not in second


def test_every_pending_pair_is_reachable(client, expert, monkeypatch):
    monkeypatch.setattr(review_selectors, "REVIEW_PER_PAGE", 2)
    pairs = [CandidateFactory(confidence=confidence) for confidence in (0.9, 0.8, 0.7)]
    client.force_login(expert)
    url = reverse("curation:review")

    first = client.get(url, {"min_confidence": "0.5"}).content.decode()
    assert f'id="pair-row-{pairs[2].pk}"' not in first
    assert links(first) == [f"{url}?min_confidence=0.5&page=2"]
    second = client.get(links(first)[0], **HTMX).content.decode()
    assert second.lstrip().startswith('<div id="review-workspace"')
    assert f'id="pair-row-{pairs[2].pk}"' in second and f'id="pair-row-{pairs[0].pk}"' not in second
    # Links and decisions from page 2 carry it, so the queue comes back there.
    assert f"min_confidence=0.5&amp;page=2&amp;pair={pairs[2].pk}" in second
    assert '<input type="hidden" name="page" value="2">' in second
    response = client.post(
        reverse("curation:review-decide", args=[pairs[2].pk]),
        {"decision": "reject", "min_confidence": "0.5", "page": "2"},
    )
    assert response["Location"].startswith(f"{url}?min_confidence=0.5&page=2")


def test_every_audit_sample_is_reachable(client, expert, monkeypatch):
    monkeypatch.setattr(audit_selectors, "SAMPLES_PER_PAGE", 2)
    samples = [AuditSample.objects.create(seed=seed, size=1, drawn_by=expert) for seed in (1, 2, 3)]
    client.force_login(expert)
    url = reverse("curation:audit")

    first = client.get(url).content.decode()
    oldest = f'href="{reverse("curation:audit-sample", args=[samples[0].pk])}"'
    assert oldest not in first and links(first) == [f"{url}?page=2"] * 2
    second = client.get(links(first)[0], **HTMX).content.decode()
    assert second.lstrip().startswith('<div class="module" id="audit-samples-list"')
    assert oldest in second
