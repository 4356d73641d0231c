"""The editors' taxonomy screen in a real browser: an editor signs in, moves a unit and renames
a concept; the public API then resolves the old id and lists the unit under its new concept;
a domain expert is refused the screen."""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from curation.models import AuditEvent
from curation.roles import DOMAIN_EXPERT, EDITOR
from knowledge.models import AtomicUnit
from navigator.services import api_token_create
from tests.e2e.conftest import PASSWORD, admin_login
from tests.factories import (
    CategoryFactory,
    ConceptFactory,
    SnapshotFactory,
    SourceFactory,
    UnitFactory,
)

pytestmark = pytest.mark.slow

SWAP_TIMEOUT_MS = 30_000  # generous: a loaded CI machine, not a slow screen
OLD_ID = "isa.junior.allowance"
NEW_ID = "isa.junior.subscription_limit"
GENERAL_ID = "isa.allowance"
JUNIOR = "You can put up to £9,000 into a Junior ISA in the 2025 to 2026 tax year."
MISPLACED = "You can save up to £20,000 a year in ISAs, split across the types of account."


def member(role: str, username: str):
    user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def isa_taxonomy(transactional_db):
    """The Junior ISA concept holds a general ISA rule that belongs to the ISA allowance."""
    category = CategoryFactory(slug="isa", name="ISAs")
    junior = ConceptFactory(category=category, taxonomy_id=OLD_ID, name="Junior ISA allowance")
    general = ConceptFactory(category=category, taxonomy_id=GENERAL_ID, name="ISA allowance")
    source = SourceFactory(url="https://www.gov.uk/individual-savings-accounts")
    UnitFactory(concept=junior, snapshot=SnapshotFactory(source=source, text=JUNIOR))
    misplaced = UnitFactory(concept=junior, snapshot=SnapshotFactory(source=source, text=MISPLACED))
    return {"junior": junior, "general": general, "misplaced": misplaced}


def api_get(page, path: str, raw_token: str) -> dict:
    response = page.request.get(path, headers={"Authorization": f"Bearer {raw_token}"})
    assert response.status == 200, response.text()
    return response.json()


def test_editor_moves_a_unit_and_renames_a_concept(page, isa_taxonomy, tmp_path):
    from playwright.sync_api import expect

    member(EDITOR, "editor")
    junior, misplaced = isa_taxonomy["junior"], isa_taxonomy["misplaced"]

    page.goto("/curation/taxonomy/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/curation/taxonomy/"))
    admin_login(page, username="editor")
    expect(page).to_have_url(re.compile(r"/curation/taxonomy/$"))
    page.get_by_role("link", name="ISAs").click()
    expect(page.locator(f"#concept-{junior.pk}")).to_contain_text("2")
    page.get_by_role("link", name=OLD_ID).click()
    expect(page.locator("#concept-id")).to_have_text(OLD_ID)
    page.evaluate("window.loadedOnce = true")  # gone if a change reloaded the page

    # Move the misplaced unit to the general allowance.
    page.locator(f'input[name="unit"][value="{misplaced.pk}"]').check()
    page.fill("#move-to", GENERAL_ID)
    page.click("#move-submit")
    notice = page.locator("#concept-panel .tx-notice.success")
    expect(notice).to_contain_text(f"Moved 1 unit(s) to {GENERAL_ID}", timeout=SWAP_TIMEOUT_MS)
    expect(notice.get_by_role("button", name="Revert")).to_be_visible()
    expect(page.locator("#units")).not_to_contain_text(MISPLACED)
    assert AtomicUnit.objects.get(pk=misplaced.pk).concept_id == isa_taxonomy["general"].pk

    # Rename the concept; its old id stays as an alias.
    page.fill("#rename-new-id", NEW_ID)
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("#concept-id")).to_have_text(NEW_ID, timeout=SWAP_TIMEOUT_MS)
    expect(page.locator("#concept-aliases")).to_contain_text(OLD_ID)
    expect(page.locator("#concept-panel .tx-notice.success")).to_contain_text(
        f"Renamed {OLD_ID} to {NEW_ID}"
    )
    assert page.evaluate("window.loadedOnce") is True
    page.screenshot(path=tmp_path / "taxonomy-concept.png", full_page=True)
    assert list(AuditEvent.objects.order_by("pk").values_list("action", flat=True)) == [
        "unit.move",
        "concept.rename",
    ]

    # The public API follows: the old id answers with the renamed concept and says so, and
    # the moved unit is listed under its new concept.
    _, raw = api_token_create(name="taxonomy-browser-test")
    renamed = api_get(page, f"/api/v1/concepts/{OLD_ID}", raw)
    assert renamed["taxonomy_id"] == NEW_ID and renamed["resolved_from_alias"] == OLD_ID
    assert OLD_ID in renamed["aliases"]
    assert misplaced.pk not in _unit_ids(renamed)
    general = api_get(page, f"/api/v1/concepts/{GENERAL_ID}", raw)
    assert misplaced.pk in _unit_ids(general) and general["resolved_from_alias"] is None


def _unit_ids(concept: dict) -> set[int]:
    return {unit["id"] for unit in concept["units"]}


def test_domain_expert_is_refused_the_taxonomy_screen(page, isa_taxonomy):
    from playwright.sync_api import expect

    member(DOMAIN_EXPERT, "expert")
    page.goto("/curation/taxonomy/")
    with page.expect_response(lambda r: urlsplit(r.url).path == "/curation/taxonomy/") as refused:
        admin_login(page, username="expert")
    assert refused.value.status == 403
    expect(page.locator("body")).not_to_contain_text("Categories")
    response = page.goto(f"/curation/taxonomy/concepts/{isa_taxonomy['junior'].pk}/")
    assert response.status == 403
