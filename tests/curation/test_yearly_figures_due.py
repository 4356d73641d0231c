"""The Changes screen lists the concepts whose newest figures' period has ended with nothing
newer held ("needs this year's figure"); a concept with a newer period held, or whose figures
are open-ended, is not listed."""

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from curation.selectors.page_changes import concepts_needing_this_years_figure
from tests.factories import ConceptFactory, UnitFactory, tax_year

pytestmark = pytest.mark.django_db

LIST_URL = "/curation/changes/"


def _yearly(concept, *years):
    return [
        UnitFactory(concept=concept, valid_from=tax_year(y)[0], valid_to=tax_year(y)[1])
        for y in years
    ]


def test_only_concepts_past_their_newest_period_are_listed_with_that_period():
    due = ConceptFactory(taxonomy_id="child_benefit.rates")
    _yearly(due, 2023, 2024)
    renewed = ConceptFactory(taxonomy_id="state_pension.rates")
    _yearly(renewed, 2024, 2026)  # a newer period is held: 2024-25 is historical
    UnitFactory(concept=ConceptFactory(taxonomy_id="isa.rules"))  # no year: never due
    removed = ConceptFactory(taxonomy_id="jsa.rates")
    (gone,) = _yearly(removed, 2024)
    gone.deleted_at = timezone.now()
    gone.save(update_fields=["deleted_at"])

    listed = concepts_needing_this_years_figure(day=dt.date(2026, 12, 1))

    assert [(d.concept.taxonomy_id, d.newest_from, d.ended_on) for d in listed] == [
        ("child_benefit.rates", dt.date(2024, 4, 6), dt.date(2025, 4, 5))
    ]
    assert listed[0].outdated_count == 1  # 2023-24 is historical: 2024-25 is newer
    assert concepts_needing_this_years_figure(day=dt.date(2025, 4, 5)) == []  # still current


def test_the_changes_screen_shows_them_to_editors_with_a_link_to_the_concept(editor):
    today = timezone.localdate()
    concept = ConceptFactory(taxonomy_id="maternity_allowance.rates", name="Maternity rates")
    UnitFactory(
        concept=concept,
        valid_from=today - dt.timedelta(days=500),
        valid_to=today - dt.timedelta(days=135),
    )
    client = Client()
    client.force_login(editor)

    html = client.get(LIST_URL).content.decode()

    assert "Needs this year&#x27;s figure" in html or "Needs this year's figure" in html
    row = html[html.index(f'id="yearly-due-{concept.pk}"') :].split("</tr>")[0]
    assert reverse("curation:taxonomy-concept", args=[concept.pk]) in row
    assert "maternity_allowance.rates" in row
    ended = today - dt.timedelta(days=135)
    assert f"{ended.day} {ended:%b %Y}" in row


def test_with_nothing_due_the_screen_says_so(editor):
    client = Client()
    client.force_login(editor)
    html = client.get(LIST_URL).content.decode()
    assert "none needs this year" in html
