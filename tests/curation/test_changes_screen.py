"""The "Changes on gov.uk" screen: who may use it, changed pages newest first with the units
they left unconfirmed, the word diff marking a changed amount, confirming a unit (served again,
audited, revertible), retiring one, CSRF, and the concepts that need review."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from curation.models import AuditEvent
from curation.selectors.page_changes import changed_pages, concepts_needing_review
from curation.services.freshness_decisions import (
    CONFIRM_ACTION,
    FreshnessDecisionRefused,
    freshness_decision_revert,
    unit_confirm,
    unit_retire,
)
from knowledge.documents import document_from_json
from knowledge.models import AtomicUnit
from knowledge.services import ingest
from tests.factories import CandidateFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db

LIST_URL = "/curation/changes/"
HTMX = {"HTTP_HX_REQUEST": "true"}
RATE = "The weekly rate is £81.90 if you care for someone 35 hours a week."
CLAIM = "You can claim online or by post."
NEW_RATE = RATE.replace("81.90", "83.30")


def page(*paragraphs: str, url: str, updated: str):
    data = {
        "url": url,
        "title": f"Test page {url.rsplit('/', 1)[-1]}",
        "body_html": "".join(f"<p>{text}</p>" for text in paragraphs),
        "public_updated_at": updated,
    }
    return document_from_json(data, origin=f"file:{url}:{updated}.json")


def unit_quoting(stored, quote: str, **fields) -> AtomicUnit:
    return UnitFactory(snapshot=stored.snapshot, evidence_quote=quote, text=quote, **fields)


def changed_page(slug: str = "carers", *, concept=None):
    """A page whose newer version changes the rate: the rate unit is left unconfirmed, the
    claim unit confirmed; a unit is extracted from the newer version."""
    url = f"https://www.gov.uk/{slug}"
    first = ingest.page_store(document=page(RATE, CLAIM, url=url, updated="2024-04-06T09:00:00Z"))
    concept = concept or ConceptFactory(taxonomy_id=f"carers.{slug.replace('-', '_')}")
    rate = unit_quoting(first, RATE, concept=concept)
    claim = unit_quoting(first, CLAIM, concept=concept)
    newer = ingest.page_store(
        document=page(NEW_RATE, CLAIM, url=url, updated="2025-04-06T09:00:00Z")
    )
    new_rate = unit_quoting(newer, NEW_RATE, concept=concept)
    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None
    return newer.source, rate, claim, new_rate


def page_url(source) -> str:
    return reverse("curation:changes-page", args=[source.pk])


def confirm_url(unit) -> str:
    return reverse("curation:changes-unit-confirm", args=[unit.pk])


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- who may use it ----------------------------------------------------------------------


@pytest.mark.parametrize("role", ["expert", "editor"])
def test_experts_and_editors_may_open_the_screen(role, request):
    source, *_ = changed_page()
    client = signed_in(request.getfixturevalue(role))
    assert client.get(LIST_URL).status_code == 200
    assert client.get(page_url(source)).status_code == 200


def test_other_staff_are_refused_and_anonymous_people_sent_to_log_in():
    source, rate, *_ = changed_page()
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    client = signed_in(staff)
    assert client.get(LIST_URL).status_code == 403
    assert client.get(page_url(source)).status_code == 403
    assert client.post(confirm_url(rate)).status_code == 403
    anonymous = Client()
    response = anonymous.get(LIST_URL)
    assert response.status_code == 302 and "login" in response["Location"]
    assert anonymous.post(confirm_url(rate)).status_code == 302
    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None


def test_the_service_checks_the_role_too():
    _, rate, *_ = changed_page()
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    with pytest.raises(PermissionDenied):
        unit_confirm(unit_id=rate.pk, user=staff)


def test_the_screen_is_linked_from_the_admin_home_and_the_review_screen(expert):
    client = signed_in(expert)
    assert f'href="{LIST_URL}"' in client.get(reverse("admin:index")).content.decode()
    assert f'href="{LIST_URL}"' in client.get(reverse("curation:review")).content.decode()


# --- the list and the page ---------------------------------------------------------------


def test_the_list_shows_changed_pages_newest_first_with_their_unconfirmed_units(expert):
    older_source, older_rate, *_ = changed_page("carers-older")
    newer_source, newer_rate, claim, _ = changed_page("carers-newer")

    assert [p.pk for p in changed_pages()][:2] == [newer_source.pk, older_source.pk]
    html = signed_in(expert).get(LIST_URL).content.decode()
    assert html.index(f'id="page-row-{newer_source.pk}"') < html.index(
        f'id="page-row-{older_source.pk}"'
    )
    assert f'id="listed-unit-{newer_rate.pk}"' in html
    assert f'id="listed-unit-{older_rate.pk}"' in html
    assert f'id="listed-unit-{claim.pk}"' not in html  # still stated: confirmed


def test_the_page_marks_the_changed_amount_and_lists_the_three_kinds_of_unit(expert):
    source, rate, claim, new_rate = changed_page()
    candidate = CandidateFactory(older=rate, newer=new_rate)

    html = signed_in(expert).get(page_url(source)).content.decode()

    assert '<del class="diff-figure">£81.90</del>' in html
    assert '<ins class="diff-figure">£83.30</ins>' in html
    assert f'id="unit-row-{rate.pk}"' in html and f'id="unit-row-{claim.pk}"' not in html
    assert f'id="new-unit-{new_rate.pk}"' in html
    assert f'id="candidate-{candidate.pk}"' in html
    assert f"{reverse('curation:review')}?pair={candidate.pk}" in html  # decided there


# --- confirming and retiring ---------------------------------------------------------------


def test_confirming_by_htmx_serves_the_unit_again_audited_and_revertible(expert):
    source, rate, *_ = changed_page()
    client = signed_in(expert)

    response = client.post(confirm_url(rate), {"note": "same rate, reworded"}, **HTMX)

    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith(f'<tr id="unit-row-{rate.pk}"')  # the row, for the swap
    rate.refresh_from_db()
    assert rate.unconfirmed_at is None and rate.confirmed_at is not None
    event = AuditEvent.objects.get(action=CONFIRM_ACTION, target_id=rate.pk)
    assert event.actor == expert and event.note == "same rate, reworded"
    assert event.before["unit"][str(rate.pk)]["unconfirmed_at"] is not None
    assert event.after["unit"][str(rate.pk)]["unconfirmed_at"] is None
    assert reverse("curation:changes-revert", args=[event.pk]) in body

    undo = client.post(reverse("curation:changes-revert", args=[event.pk]), **HTMX)

    assert undo.status_code == 200
    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None
    assert AuditEvent.objects.filter(reverts=event).exists()


def test_a_plain_post_redirects_to_the_page_and_a_second_confirmation_is_refused(expert, editor):
    source, rate, *_ = changed_page()

    response = signed_in(expert).post(confirm_url(rate))

    assert response.status_code == 302 and response["Location"] == page_url(source)
    with pytest.raises(FreshnessDecisionRefused, match="confirmed already by expert1"):
        unit_confirm(unit_id=rate.pk, user=editor)


def test_confirming_needs_the_csrf_token(expert):
    _, rate, *_ = changed_page()
    client = Client(enforce_csrf_checks=True)
    client.force_login(expert)

    assert client.post(confirm_url(rate), **HTMX).status_code == 403

    rate.refresh_from_db()
    assert rate.unconfirmed_at is not None


def test_retiring_takes_the_unit_out_and_the_revert_puts_it_back(editor):
    _, rate, claim, _ = changed_page()

    event = unit_retire(unit_id=rate.pk, user=editor, note="rate replaced")

    rate.refresh_from_db(), claim.refresh_from_db()
    assert rate.deleted_at is not None and rate.ordinal is None and claim.ordinal == 1
    with pytest.raises(FreshnessDecisionRefused, match="confirmed by its page"):
        unit_retire(unit_id=claim.pk, user=editor)
    freshness_decision_revert(event_id=event.pk, user=editor)
    rate.refresh_from_db(), claim.refresh_from_db()
    assert rate.deleted_at is None and (rate.ordinal, claim.ordinal) == (1, 2)


# --- needs review ---------------------------------------------------------------------------


def test_a_concept_leaves_needs_review_once_its_last_unconfirmed_unit_is_confirmed(expert):
    concept = ConceptFactory(taxonomy_id="carers.allowance_rates")
    _, first_rate, *_ = changed_page("carers-one", concept=concept)
    _, second_rate, *_ = changed_page("carers-two", concept=concept)
    client = signed_in(expert)

    [listed] = concepts_needing_review()
    assert listed.pk == concept.pk and listed.unconfirmed_count == 2
    assert f'id="concept-row-{concept.pk}"' in client.get(LIST_URL).content.decode()

    client.post(confirm_url(first_rate), **HTMX)
    assert [c.unconfirmed_count for c in concepts_needing_review()] == [1]
    client.post(confirm_url(second_rate), **HTMX)

    assert concepts_needing_review() == []
    assert f'id="concept-row-{concept.pk}"' not in client.get(LIST_URL).content.decode()


def test_a_gone_page_lists_all_its_living_units_for_a_decision(expert, settings):
    settings.SOURCE_GONE_AFTER_FAILURES, settings.SOURCE_GONE_AFTER_DAYS = 1, 0
    source, rate, claim, new_rate = changed_page("withdrawn")
    ingest.source_record_failure(url=source.url, gone=True, reason="gov.uk answered 410")

    html = signed_in(expert).get(page_url(source)).content.decode()

    assert "which gov.uk no longer serves" in html
    for unit in (rate, claim, new_rate):
        assert unit.text in html


def test_an_unconfirmed_unit_an_expert_corrected_names_them(expert):
    from curation.services.units import unit_correct

    source, rate, _, _ = changed_page()
    unit_correct(unit_id=rate.pk, user=expert, text="Carer's Allowance was £81.90 a week.")
    page = signed_in(expert).get(page_url(source)).content.decode()
    assert "corrected by expert1</strong>" in page and "their text, not rewritten" in page
    assert "Carer&#x27;s Allowance was £81.90 a week." in page
