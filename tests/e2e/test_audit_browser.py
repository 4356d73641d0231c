"""The audit screen in a real browser: an expert draws a sample and judges two units with
the keyboard alone (1-6, n, Enter, k), and both judgements are stored as keyed."""

import re

import pytest

from curation.models import AuditJudgement, AuditSample
from curation.roles import DOMAIN_EXPERT
from tests.e2e.conftest import admin_login
from tests.e2e.test_review_browser import member
from tests.factories import CategoryFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.slow
SWAP_TIMEOUT_MS = 30_000


def test_an_expert_judges_two_units_with_the_keyboard(page, transactional_db):
    from playwright.sync_api import expect

    member(DOMAIN_EXPERT, "expert")
    concept = ConceptFactory(category=CategoryFactory(slug="isa", name="ISAs"))
    for _ in range(3):
        UnitFactory(concept=concept)

    page.goto("/curation/audit/")
    admin_login(page, username="expert")
    expect(page).to_have_url(re.compile(r"/curation/audit/$"))
    page.fill("#id_size", "2")
    page.fill("#id_seed", "11")
    page.click("button:has-text('Draw')")
    sample = AuditSample.objects.get()
    expect(page).to_have_url(re.compile(rf"/curation/audit/samples/{sample.pk}/$"))
    page.wait_for_load_state("load")  # the keys work once the deferred scripts have run
    judge = page.locator("#audit-judge")
    expect(judge).to_have_attribute("data-position", "1")

    page.keyboard.press("y")  # yes to the unanswered (value and dates start as n/a)
    page.keyboard.press("6")  # useful: yes -> no
    page.keyboard.press("Enter")
    expect(judge).to_have_attribute("data-position", "2", timeout=SWAP_TIMEOUT_MS)
    expect(page.locator(".judged-count")).to_have_text("1")
    page.wait_for_load_state("networkidle")  # the swapped-in form is settled before its keys

    page.keyboard.press("1")  # concept: yes
    page.keyboard.press("2")
    page.keyboard.press("2")  # standalone: yes -> no
    page.keyboard.press("3")
    page.keyboard.press("n")  # type: not applicable
    page.keyboard.press("6")
    page.keyboard.press("Enter")
    expect(page.locator(".judged-count")).to_have_text("2", timeout=SWAP_TIMEOUT_MS)

    page.keyboard.press("k")
    expect(judge).to_have_attribute("data-position", "1", timeout=SWAP_TIMEOUT_MS)
    expect(page.locator('input[name="useful"][value="no"]')).to_be_checked()

    first, second = (
        AuditJudgement.objects.get(sample=sample, unit_id=unit_id) for unit_id in sample.unit_ids
    )
    assert (first.concept_right, first.value_right, first.useful) == ("yes", "na", "no")
    assert (second.concept_right, second.standalone, second.type_right, second.useful) == (
        "yes",
        "no",
        "na",
        "yes",
    )
