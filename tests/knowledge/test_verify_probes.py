"""The claims a new user tried, checked against a knowledge base built from the real gov.uk
pages they are about (the corpus beside the project), with the aboutness reading the project
serves: an old threshold is contradicted by the one in force, the ISA allowance is never
contradicted by the Lifetime ISA's, and a Child Benefit rate for a year the knowledge base does
not hold is unchecked, naming what it holds and when that ended."""

import datetime as dt

import pytest
from django.db import connection

from knowledge import govuk
from knowledge.providers import get_provider
from knowledge.services import extract, ingest
from knowledge.services.embed import concepts_embed, units_embed
from knowledge.services.taxonomy import taxonomy_load_file
from knowledge.verification.check import answer_verify
from tests.navigator.conftest import KNOWLEDGE_TABLES

PAGES = (
    "child-benefit--what-youll-get--2023-24.json",
    "child-benefit--what-youll-get--2024-25.json",
    "child-benefit-tax-charge.json",
    "child-benefit-tax-charge--overview--pre-2024-25.json",
    "individual-savings-accounts--overview--2017-18.json",
    "individual-savings-accounts--overview--2025-26.json",
    "individual-savings-accounts--how-isas-work--2017-18-to-2023-24.json",
    "individual-savings-accounts--how-isas-work--2024-25-or-later.json",
)
# The corpus's Content API records were captured in the 2024-25 tax year.
CAPTURED = dt.date(2024, 12, 15)


@pytest.fixture(scope="module")
def probes_kb(django_db_setup, django_db_blocker, corpus_pages):
    with django_db_blocker.unblock():
        taxonomy_load_file()
        concepts_embed()
        pages = govuk.LocalDirectorySource(corpus_pages)
        for name in PAGES:
            stored = ingest.page_store(document=pages.fetch(name), captured_on=CAPTURED)
            extract.snapshot_extract(
                snapshot_id=stored.snapshot.pk, provider=get_provider("heuristic")
            )
        units_embed()
        yield
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {KNOWLEDGE_TABLES} RESTART IDENTITY CASCADE")


def _only(answer: str, **asked):
    (claim,) = answer_verify(answer=answer, **asked).claims
    return claim


@pytest.mark.django_db
def test_the_old_charge_threshold_is_contradicted_by_the_one_in_force(probes_kb):
    claim = _only("The High Income Child Benefit Charge starts when your income is over £50,000.")
    assert (claim.verdict, claim.knowledge_base_value) == ("contradicted", "£60,000")
    assert "£60,000" in claim.evidence[0].unit.text


@pytest.mark.django_db
def test_the_isa_allowance_is_never_contradicted_by_the_lifetime_isas(probes_kb):
    claim = _only("The ISA allowance is £15,000 a year.")
    assert (claim.verdict, claim.knowledge_base_value) == ("contradicted", "£20,000")
    assert not any("Lifetime" in e.unit.text for e in claim.evidence)
    assert "which has ended" in claim.caveat  # the newest period held is past


@pytest.mark.django_db
def test_a_rate_for_a_year_not_held_is_unchecked_naming_what_is_held(probes_kb):
    claim = _only(
        "Child Benefit is £26.05 a week for the eldest child.", as_of=dt.date(2026, 12, 7)
    )
    assert (claim.verdict, claim.reason) == ("unsupported", "not_held")
    assert "£25.60 (6 April 2024 to 5 April 2025)" in claim.explanation
    assert "5 April 2025" in claim.caveat


@pytest.mark.django_db
def test_the_rate_of_the_year_claimed_is_supported(probes_kb):
    claim = _only(
        "Child Benefit is £25.60 a week for the eldest child.", as_of=dt.date(2024, 10, 1)
    )
    assert (claim.verdict, claim.reason, claim.caveat) == ("supported", "value_matches", "")


@pytest.mark.django_db
def test_an_age_range_wider_than_the_lifetime_isas_is_contradicted_by_it(probes_kb):
    claim = _only("A Lifetime ISA is for people aged 18 to 49.")
    assert claim.verdict == "contradicted"
    assert "under 40" in claim.evidence[0].unit.text
    # The 2025-26 page states the bound the claim oversteps in a sentence of its own ("you
    # must also be under 40"), its lower bound in the one before it.
    assert claim.knowledge_base_value == "aged 39 or under"


@pytest.mark.django_db
def test_yes_you_can_open_a_lifetime_isa_is_contradicted_for_a_45_year_old(probes_kb):
    from knowledge.band_table import person_on
    from knowledge.domain.profile import Profile

    person = person_on(Profile.model_validate({"age": 45}), dt.date(2026, 12, 7))
    claim = _only("Yes, you can open a Lifetime ISA.", person=person)
    assert (claim.verdict, claim.reason) == ("contradicted", "not_for_this_person")
    assert "under 40" in claim.evidence[0].unit.text
