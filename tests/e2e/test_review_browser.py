"""The superseding review in a real browser: an expert signs in, decides two pairs with the
keyboard, an editor is refused, and the public search API reflects both decisions."""

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from curation.models import SupersedingCandidate
from curation.roles import DOMAIN_EXPERT, EDITOR
from knowledge.models import AtomicUnit, Concept
from knowledge.services.embed import concepts_embed, units_embed
from knowledge.services.taxonomy import taxonomy_load_file
from navigator.services import api_token_create
from tests.e2e.conftest import PASSWORD, admin_login
from tests.factories import CandidateFactory, SnapshotFactory, SourceFactory, UnitFactory

pytestmark = pytest.mark.slow

SWAP_TIMEOUT_MS = 30_000  # generous: a loaded CI machine, not a slow screen
REJECT_NOTE = "Different rules: the Lifetime ISA limit is part of the allowance, not a new one"

PA_PAGE = (
    "Income Tax rates and Personal Allowances. How much Income Tax you pay in each tax year "
    "depends on how much of your income is above your Personal Allowance. {sentence} "
    "You do not get a Personal Allowance on taxable income over £125,140."
)
PA_OLD = "The standard Personal Allowance is £12,500, the amount of income you do not have to pay tax on."
PA_NEW = "The standard Personal Allowance is £12,570, the amount of income you do not have to pay tax on."
ISA_PAGE = "Individual Savings Accounts (ISAs). {sentence} You can have more than one type of ISA."
ISA_OLD = "You can save up to £20,000 in one type of account or split the allowance across some or all of the other types."
ISA_NEW = "You can put up to £20,000 a year into ISAs, but only £4,000 of it into a Lifetime ISA."


def member(role: str, username: str):
    user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def threshold_unit(concept, *, url: str, page: str, sentence: str, amount: int, valid_from):
    snapshot = SnapshotFactory(source=SourceFactory(url=url), text=page.format(sentence=sentence))
    return UnitFactory(
        concept=concept,
        snapshot=snapshot,
        evidence_quote=sentence,
        unit_type=AtomicUnit.Type.THRESHOLD,
        value_amount=amount,
        value_unit="GBP",
        value_period="year",
        valid_from=valid_from,
        provider=AtomicUnit.Provider.HEURISTIC,
    )


@pytest.fixture
def knowledge_base(transactional_db):
    """The project taxonomy with real MiniLM vectors, and two proposed pairs on two pages
    each: the Personal Allowance uprated (to approve) and two ISA sentences (to reject)."""
    taxonomy_load_file()
    allowance = Concept.objects.get(taxonomy_id="income_tax.personal_allowance")
    isa = Concept.objects.get(taxonomy_id="isa.annual_allowance")
    pa_old = threshold_unit(
        allowance,
        url="https://www.gov.uk/government/publications/rates-2019-to-2020",
        page=PA_PAGE,
        sentence=PA_OLD,
        amount=12500,
        valid_from=dt.date(2019, 4, 6),
    )
    pa_new = threshold_unit(
        allowance,
        url="https://www.gov.uk/income-tax-rates",
        page=PA_PAGE,
        sentence=PA_NEW,
        amount=12570,
        valid_from=dt.date(2021, 4, 6),
    )
    isa_old = threshold_unit(
        isa,
        url="https://www.gov.uk/individual-savings-accounts",
        page=ISA_PAGE,
        sentence=ISA_OLD,
        amount=20000,
        valid_from=dt.date(2017, 4, 6),
    )
    isa_new = threshold_unit(
        isa,
        url="https://www.gov.uk/lifetime-isa",
        page=ISA_PAGE,
        sentence=ISA_NEW,
        amount=20000,
        valid_from=dt.date(2024, 4, 6),
    )
    concepts_embed()
    units_embed()
    uprating = CandidateFactory(
        older=pa_old,
        newer=pa_new,
        confidence=0.93,
        rationale="Same threshold with a new amount from a later tax year.",
    )
    different = CandidateFactory(
        older=isa_old,
        newer=isa_new,
        confidence=0.61,
        text_similarity=0.62,
        cosine=0.84,
        rationale="Both state the £20,000 ISA allowance.",
    )
    return uprating, different


def search_unit_ids(browser, token: str, **body) -> dict[int, str]:
    """Unit id -> temporal status of every unit a search returns."""
    response = browser.request.post(
        "/api/v1/search",
        data=json.dumps(body),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert response.status == 200, response.text()
    return {
        unit["id"]: unit["temporal_status"]
        for concept in response.json()["concepts"]
        for group in concept["sources"]
        for unit in group["units"]
    }


def test_expert_decides_with_the_keyboard_and_the_api_follows(
    page, browser, knowledge_base, tmp_path
):
    from playwright.sync_api import expect

    uprating, different = knowledge_base
    member(DOMAIN_EXPERT, "expert")
    member(EDITOR, "editor")
    _, token = api_token_create(name="chat assistant")
    pa_query = {"query": "How much is the Personal Allowance before I pay Income Tax?"}
    isa_query = {"query": "How much can I save in ISAs each tax year?"}
    before = search_unit_ids(browser, token, **pa_query)
    assert {uprating.older_id, uprating.newer_id} <= set(before)  # both current so far

    page.goto("/curation/review/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/curation/review/"))
    admin_login(page, username="expert")
    expect(page).to_have_url(re.compile(r"/curation/review/$"))

    shown = page.locator("#review-pair article.pair")
    expect(shown).to_have_attribute("data-pair-id", str(uprating.pk))
    expect(shown.locator("ins.diff-figure")).to_have_text("£12,570")
    expect(shown.locator("del.diff-figure")).to_have_text("£12,500")
    expect(shown).to_contain_text("heuristic (rule-based, no LLM)")
    expect(page.locator(".review-keys")).to_contain_text("approve")
    page.screenshot(path=tmp_path / "review-queue.png", full_page=True)

    # j and k move through the queue without deciding anything.
    page.keyboard.press("j")
    expect(shown).to_have_attribute("data-pair-id", str(different.pk), timeout=SWAP_TIMEOUT_MS)
    expect(page.locator(f"#pair-row-{different.pk}")).to_have_class(re.compile(r"\bcurrent\b"))
    page.keyboard.press("k")
    expect(shown).to_have_attribute("data-pair-id", str(uprating.pk), timeout=SWAP_TIMEOUT_MS)

    page.keyboard.press("a")
    notice = page.locator(".review-notice")
    expect(notice).to_contain_text(f"Approved pair {uprating.pk}.", timeout=SWAP_TIMEOUT_MS)
    expect(shown).to_have_attribute("data-pair-id", str(different.pk))
    expect(page.locator(".decided-count")).to_have_text("1")

    # Letters typed into the note are text; Escape leaves the note, then r rejects.
    page.keyboard.press("n")
    expect(page.locator("#review-note")).to_be_focused()
    page.keyboard.type(REJECT_NOTE)
    expect(page.locator("#review-note")).to_have_value(REJECT_NOTE)
    expect(shown).to_have_attribute("data-pair-id", str(different.pk))
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    expect(notice).to_contain_text(f"Rejected pair {different.pk}.", timeout=SWAP_TIMEOUT_MS)
    expect(page.locator(".pending-count")).to_have_text("0")
    expect(page.locator("#review-pair")).to_contain_text("Nothing to review")
    expect(page.locator('#review-progress g.day[data-total="2"]')).to_have_count(1)
    page.screenshot(path=tmp_path / "review-done.png", full_page=True)

    decided = {c.pk: c for c in SupersedingCandidate.objects.select_related("reviewer")}
    assert decided[uprating.pk].status == "approved"
    assert decided[different.pk].status == "rejected"
    assert decided[different.pk].note == REJECT_NOTE
    assert {c.reviewer.username for c in decided.values()} == {"expert"}

    # An editor who signs in is refused.
    browser.clear_cookies()
    page.goto("/curation/review/")
    admin_login(page, username="editor")
    expect(page).to_have_url(re.compile(r"/curation/review/$"))
    response = page.goto("/curation/review/")
    assert response.status == 403
    expect(page.locator("body")).not_to_contain_text("Pending pairs")

    # The API: the replaced Personal Allowance is gone today, back inside its validity.
    today = search_unit_ids(browser, token, **pa_query)
    assert uprating.older_id not in today and today.get(uprating.newer_id) == "current"
    in_2020 = search_unit_ids(browser, token, as_of="2020-06-01", **pa_query)
    assert in_2020.get(uprating.older_id) == "current"
    assert uprating.newer_id not in in_2020  # not valid until April 2021
    # The rejected pair changed nothing: both ISA units are still current.
    isa = search_unit_ids(browser, token, **isa_query)
    assert isa.get(different.older_id) == "current" and isa.get(different.newer_id) == "current"
