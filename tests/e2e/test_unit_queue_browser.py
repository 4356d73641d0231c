"""The review queue in a real browser: an expert signs off, retires and sends to triage with
the keyboard alone (s, j, k, r, t, typing the reason and Enter), each swap keeping the place."""

import os
import re

import pytest

from curation.roles import DOMAIN_EXPERT
from knowledge.models import AtomicUnit, ExtractionItem, ExtractionRun
from navigator.models import QueryLog
from tests.e2e.conftest import admin_login
from tests.e2e.test_review_browser import member
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.slow
SWAP_TIMEOUT_MS = 30_000


def test_an_expert_works_the_queue_with_the_keyboard(page, transactional_db):
    from playwright.sync_api import expect

    member(DOMAIN_EXPERT, "expert")
    concept = ConceptFactory(category=CategoryFactory(slug="isa", name="ISAs"))
    snapshot = SnapshotFactory(text="You can save up to £20,000 a year. Other words.")
    run = ExtractionRun.objects.create(snapshot=snapshot, provider="heuristic", prompt_version="v1")
    extracted = UnitFactory(
        concept=concept,
        snapshot=snapshot,
        extraction_run=run,
        evidence_quote="You can save up to £20,000 a year.",
    )
    by_hand, unserved = UnitFactory(concept=concept), UnitFactory(concept=concept)
    QueryLog.objects.create(
        endpoint="/api/v1/search", status_code=200, result_units=[extracted.pk, by_hand.pk]
    )

    page.goto("/curation/units/queue/")
    admin_login(page, username="expert")
    expect(page).to_have_url(re.compile(r"/curation/units/queue/$"))
    page.wait_for_load_state("load")  # the keys work once the deferred scripts have run
    if shots := os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=f"{shots}/unit-queue.png", full_page=True)
    current = page.locator("#queue-list .queue-row.current")
    expect(current).to_have_attribute("data-unit-id", str(extracted.pk))

    page.keyboard.press("s")  # signed off: 1 × 0.1 now, below the one served second
    expect(page.locator(".review-notice")).to_contain_text(
        f"Signed off unit {extracted.pk}", timeout=SWAP_TIMEOUT_MS
    )
    expect(current).to_have_attribute("data-unit-id", str(by_hand.pk))
    page.keyboard.press("j")
    expect(current).to_have_attribute("data-unit-id", str(extracted.pk))
    page.keyboard.press("k")
    expect(current).to_have_attribute("data-unit-id", str(by_hand.pk))

    page.keyboard.press("r")
    page.keyboard.type("navigation text, not a rule")
    page.keyboard.press("Enter")
    expect(page.locator(".review-notice")).to_contain_text(
        f"Retired unit {by_hand.pk}", timeout=SWAP_TIMEOUT_MS
    )
    expect(current).to_have_attribute("data-unit-id", str(extracted.pk))

    page.keyboard.press("t")
    page.keyboard.type("two rules in one")
    page.keyboard.press("Enter")
    expect(page.locator(".review-notice")).to_contain_text(
        f"Unit {extracted.pk} sent to triage", timeout=SWAP_TIMEOUT_MS
    )
    expect(current).to_have_attribute("data-unit-id", str(unserved.pk))

    assert AtomicUnit.objects.get(pk=by_hand.pk).deleted_at is not None
    assert AtomicUnit.objects.get(pk=extracted.pk).deleted_at is not None
    assert ExtractionItem.objects.get().reason == "From the review queue: two rules in one"
