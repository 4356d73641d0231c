"""The unit editor in a real browser: an expert opens a wrongly dated threshold, widens its
quote with the keyboard to take in the sentence that dates it, sets its dates, saves with
Ctrl+Enter, and the public search API serves the corrected unit, saying who corrected it."""

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from curation.roles import DOMAIN_EXPERT
from knowledge.models import AtomicUnit, Concept
from knowledge.services.embed import concepts_embed, units_embed
from knowledge.services.taxonomy import taxonomy_load_file
from navigator.services import api_token_create
from tests.e2e.conftest import PASSWORD, admin_login
from tests.factories import SnapshotFactory, SourceFactory, UnitFactory

pytestmark = pytest.mark.slow

SWAP_TIMEOUT_MS = 30_000
RATE = "Eldest or only child: £26.05 a week."
DATING = "These rates are for the 2025 to 2026 tax year."
PAGE = f"Child Benefit rates. There are 2 Child Benefit rates. {RATE} {DATING} You can get Child Benefit for each child."


@pytest.fixture
def wrongly_dated(transactional_db):
    taxonomy_load_file()
    concept = Concept.objects.get(taxonomy_id="child_benefit.eldest_weekly")
    unit = UnitFactory(
        concept=concept,
        snapshot=SnapshotFactory(
            source=SourceFactory(url="https://www.gov.uk/child-benefit/what-youll-get"), text=PAGE
        ),
        evidence_quote=RATE,
        text="The Child Benefit rate for the eldest or only child is £26.05 a week.",
        unit_type=AtomicUnit.Type.THRESHOLD,
        value_amount=26.05,
        value_unit="GBP",
        value_period="week",
        valid_from=dt.date(2014, 4, 6),  # the page's old update date, not the rate's year
        validity_basis="open",
        provider=AtomicUnit.Provider.HEURISTIC,
    )
    concepts_embed()
    units_embed()
    return unit


def served(browser, token: str, unit_id: int) -> dict | None:
    response = browser.request.post(
        "/api/v1/search",
        data=json.dumps(
            {"query": "How much Child Benefit for the eldest child?", "as_of": "2025-12-01"}
        ),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert response.status == 200, response.text()
    units = [
        unit
        for concept in response.json()["concepts"]
        for group in concept["sources"]
        for unit in group["units"]
    ]
    return next((unit for unit in units if unit["id"] == unit_id), None)


def test_an_expert_redates_a_threshold_and_widens_its_quote_with_the_keyboard(
    page, browser, wrongly_dated, tmp_path
):
    from playwright.sync_api import expect

    expert = get_user_model().objects.create_user("expert", password=PASSWORD, is_staff=True)
    expert.groups.add(Group.objects.get(name=DOMAIN_EXPERT))
    _, token = api_token_create(name="chat assistant")
    before = served(browser, token, wrongly_dated.pk)
    assert before is not None and before["corrected_by"] is None

    page.goto(f"/curation/units/{wrongly_dated.pk}/edit/")
    admin_login(page, username="expert")
    expect(page).to_have_url(re.compile(rf"/curation/units/{wrongly_dated.pk}/edit/$"))
    expect(page.locator("#quote-mark")).to_have_text(RATE)
    expect(page.locator("#unit-editor")).to_contain_text("Heuristic (rule-based, no LLM)")

    # p goes to the page text; "." ends the quote with the next sentence; ← takes a word back
    # and → gives it again: the quote now holds the sentence that dates the rate.
    page.wait_for_load_state("load")  # the keys' handlers are the page script's, run at load
    page.keyboard.press("p")
    expect(page.locator("#page-text")).to_be_focused()
    page.keyboard.press(".")
    expect(page.locator("#quote-mark")).to_have_text(f"{RATE} {DATING}")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#quote-mark")).to_have_text(f"{RATE} {DATING.rsplit(' ', 1)[0]}")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#quote-text")).to_have_text(f"{RATE} {DATING}")

    page.keyboard.press("d")
    expect(page.locator("#id_valid_from")).to_be_focused()
    page.fill("#id_valid_from", "2025-04-06")
    page.fill("#id_valid_to", "2026-04-05")
    page.select_option("#id_validity_basis", "stated year")
    page.fill("#id_note", "The rate is for 2025 to 2026, as the next sentence says")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#unit-editor .messagelist")).to_contain_text(
        "Corrected", timeout=SWAP_TIMEOUT_MS
    )
    expect(page.locator(".corrected-by")).to_contain_text("Corrected by expert")
    expect(page.locator(".machine-diff")).to_contain_text("2014-04-06")
    # The form shows the unit as it now is, so that saving it again changes nothing unasked.
    expect(page.locator("#id_valid_from")).to_have_value("2025-04-06")
    expect(page.locator("#id_valid_to")).to_have_value("2026-04-05")
    page.screenshot(path=tmp_path / "unit-corrected.png", full_page=True)
    if shots := __import__("os").environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=f"{shots}/unit-corrected.png", full_page=True)

    # A refused correction shows its reason in place (the server answers 422).
    page.fill("#id_valid_to", "2024-04-05")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#unit-editor .messagelist")).to_contain_text(
        "valid_to: 2024-04-05 is before valid_from 2025-04-06", timeout=SWAP_TIMEOUT_MS
    )

    unit = AtomicUnit.objects.get(pk=wrongly_dated.pk)
    assert (unit.valid_from, unit.valid_to) == (dt.date(2025, 4, 6), dt.date(2026, 4, 5))
    assert unit.evidence_quote == f"{RATE} {DATING}" and unit.evidence_verified
    after = served(browser, token, unit.pk)
    assert after is not None, "the corrected unit is served"
    assert (after["valid_from"], after["valid_to"]) == ("2025-04-06", "2026-04-05")
    assert after["evidence"]["quote"] == f"{RATE} {DATING}"
    assert after["corrected_by"] == "expert" and after["review_status"] == "approved"
