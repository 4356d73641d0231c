"""The concept screen shows whether a concept's figures are set each year, and an editor
changes it (audited, revertible); no one else may."""

import pytest
from django.urls import reverse

from curation.models import AuditEvent
from curation.services.taxonomy import taxonomy_change_revert
from knowledge.models import Concept
from tests.factories import ConceptFactory

pytestmark = pytest.mark.django_db


def change(client, concept, **data):
    url = reverse("curation:taxonomy-concept-change", args=[concept.pk, "yearly"])
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_the_screen_shows_and_an_editor_sets_yearly_figures(client, editor):
    concept = ConceptFactory(taxonomy_id="child_benefit.eldest_weekly")
    client.force_login(editor)
    page = client.get(reverse("curation:taxonomy-concept", args=[concept.pk])).content.decode()
    assert "figures not set each year" in page and 'id="yearly-figures"' in page

    response = change(client, concept, yearly_figures="on", note="uprated each April")

    assert response.status_code == 200
    assert "figures set each year" in response.content.decode()
    concept.refresh_from_db()
    assert concept.yearly_figures is True
    event = AuditEvent.objects.get(action="concept.yearly_figures")
    assert event.note == "uprated each April" and event.actor == editor
    assert event.before["concept"][str(concept.pk)]["yearly_figures"] is False

    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert Concept.objects.get(pk=concept.pk).yearly_figures is False


def test_setting_what_it_already_says_is_refused(client, editor):
    concept = ConceptFactory()
    client.force_login(editor)
    page = change(client, concept).content.decode()  # unticked: already False
    assert "already says False" in page
    assert not AuditEvent.objects.filter(action="concept.yearly_figures").exists()


def test_an_expert_may_not_change_it(client, expert):
    concept = ConceptFactory()
    client.force_login(expert)
    response = change(client, concept, yearly_figures="on")
    assert response.status_code == 403
    assert Concept.objects.get(pk=concept.pk).yearly_figures is False
