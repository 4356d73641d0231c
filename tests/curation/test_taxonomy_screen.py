"""The editors' screens: taxonomy browser and search, unit moves and concept changes, quality
flags, triage, bootstrap, the change log with reverts; who may use them; CSRF; htmx fragments."""

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from curation.models import AuditEvent, BootstrapJob
from curation.services import bootstrap_jobs
from curation.services.bootstrap import ReextractReport
from curation.services.taxonomy import concept_rename, units_move
from knowledge.models import (
    AtomicUnit,
    Concept,
    ConceptAlias,
    ExtractionItem,
    ExtractionRun,
    QualityFlag,
)
from knowledge.selectors import concept_resolve
from tests.factories import (
    CategoryFactory,
    ConceptFactory,
    SnapshotFactory,
    SourceFactory,
    UnitFactory,
)

pytestmark = pytest.mark.django_db

TAXONOMY_URL = "/curation/taxonomy/"
FLAGS_URL = "/curation/taxonomy/flags/"
TRIAGE_URL = "/curation/taxonomy/triage/"
BOOTSTRAP_URL = "/curation/taxonomy/bootstrap/"
CHANGES_URL = "/curation/taxonomy/changes/"
HTMX = {"HTTP_HX_REQUEST": "true"}
JUNIOR_TEXT = "You can put up to £9,000 into a Junior ISA in the 2025 to 2026 tax year."


@pytest.fixture
def isa():
    """An ISA category: two active concepts (one holding three units), a proposal, an alias."""
    category = CategoryFactory(slug="isa", name="ISAs")
    junior = ConceptFactory(
        category=category, taxonomy_id="isa.junior.allowance", name="Junior ISA allowance"
    )
    general = ConceptFactory(category=category, taxonomy_id="isa.allowance", name="ISA allowance")
    proposal = ConceptFactory(
        category=category,
        taxonomy_id="isa.proposed_topic",
        name="Proposed topic",
        description="Proposed by the heuristic bootstrap (no LLM) from a section heading.",
        status=Concept.Status.PROPOSED,
    )
    ConceptAlias.objects.create(alias="isa.junior.limit", concept=junior)
    source = SourceFactory(url="https://www.gov.uk/junior-individual-savings-accounts")
    units = [
        UnitFactory(
            concept=junior,
            snapshot=SnapshotFactory(source=source, text=JUNIOR_TEXT),
            evidence_quote=JUNIOR_TEXT,
            unit_type=AtomicUnit.Type.THRESHOLD,
            value_amount=9000,
            value_unit="GBP",
            value_period="year",
            valid_from=dt.date(2025, 4, 6),
            valid_to=dt.date(2026, 4, 5),
        ),
        UnitFactory(concept=junior),
        UnitFactory(concept=junior),
    ]
    return {
        "category": category,
        "junior": junior,
        "general": general,
        "proposal": proposal,
        "units": units,
    }


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def concept_url(concept) -> str:
    return reverse("curation:taxonomy-concept", args=[concept.pk])


def change_url(concept, action: str) -> str:
    return reverse("curation:taxonomy-concept-change", args=[concept.pk, action])


def page_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def last_event() -> AuditEvent:
    return AuditEvent.objects.order_by("-pk").first()


# --- who may use the screens -------------------------------------------------------------------


def _get_urls(isa) -> list[str]:
    return [
        TAXONOMY_URL,
        reverse("curation:taxonomy-category", args=["isa"]),
        concept_url(isa["junior"]),
        FLAGS_URL,
        TRIAGE_URL,
        BOOTSTRAP_URL,
        CHANGES_URL,
    ]


def test_anonymous_people_are_sent_to_the_admin_login(client, isa):
    for url in _get_urls(isa):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(f"/admin/login/?next={url}")
    htmx = client.get(TAXONOMY_URL, {"q": "isa"}, **HTMX)
    assert (htmx.status_code, htmx["HX-Refresh"]) == (401, "true")


def test_domain_experts_and_other_staff_are_refused(client, expert, isa):
    staff = get_user_model().objects.create_user("staff1", password="pw-123456", is_staff=True)
    for user in (expert, staff):
        client.force_login(user)
        for url in _get_urls(isa):
            assert client.get(url).status_code == 403, (user, url)
        refused = client.post(change_url(isa["junior"], "rename"), {"new_id": "isa.junior.x"})
        assert refused.status_code == 403
    assert not AuditEvent.objects.exists()
    assert Concept.objects.get(pk=isa["junior"].pk).taxonomy_id == "isa.junior.allowance"


def test_editors_see_every_screen(editor_client, isa):
    for url in _get_urls(isa):
        assert editor_client.get(url).status_code == 200, url


def test_changes_need_a_csrf_token(editor, isa):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    url = change_url(isa["junior"], "rename")
    refused = client.post(url, {"new_id": "isa.junior.subscription_limit"}, **HTMX)
    assert refused.status_code == 403
    assert not AuditEvent.objects.exists()

    page = page_of(client.get(concept_url(isa["junior"])))
    assert "X-CSRFToken" in page and "csrfmiddlewaretoken" in page
    token = client.cookies["csrftoken"].value
    accepted = client.post(
        url, {"new_id": "isa.junior.subscription_limit"}, HTTP_X_CSRFTOKEN=token, **HTMX
    )
    assert accepted.status_code == 200
    assert Concept.objects.get(pk=isa["junior"].pk).taxonomy_id == "isa.junior.subscription_limit"


def test_changes_are_posts_only(editor_client, isa):
    assert editor_client.get(change_url(isa["junior"], "retire")).status_code == 405
    assert editor_client.get(f"{CHANGES_URL}1/revert/").status_code == 405


# --- browsing and search -------------------------------------------------------------------------


def test_the_taxonomy_lists_categories_with_concept_counts(editor_client, isa):
    page = page_of(editor_client.get(TAXONOMY_URL))
    assert "ISAs" in page and reverse("curation:taxonomy-category", args=["isa"]) in page
    row = page[page.index("ISAs") : page.index("</tr>", page.index("ISAs"))]
    assert '<td class="num">2</td>' in row  # two active
    assert 'tx-status proposed">1<' in row  # one proposal, shown apart
    assert "admin/base" not in page and 'id="header"' in page  # the admin's frame


def test_a_category_lists_its_concepts_with_status_units_and_aliases(editor_client, isa):
    page = page_of(editor_client.get(reverse("curation:taxonomy-category", args=["isa"])))
    for concept in ("isa.junior.allowance", "isa.allowance", "isa.proposed_topic"):
        assert concept in page
    junior_row = page[page.index(f'id="concept-{isa["junior"].pk}"') :]
    junior_row = junior_row[: junior_row.index("</tr>")]
    assert '<td class="num">3</td>' in junior_row and "isa.junior.limit" in junior_row
    assert page.index("isa.proposed_topic") < page.index("isa.allowance")  # proposals first
    assert '<tr class="proposed"' in page


def test_a_concept_lists_its_units(editor_client, isa):
    page = page_of(editor_client.get(concept_url(isa["junior"])))
    assert JUNIOR_TEXT in page
    assert "£9,000" in page and "a year" in page
    assert "6 Apr 2025 to 5 Apr 2026" in page
    assert "https://www.gov.uk/junior-individual-savings-accounts" in page
    assert f'name="unit" value="{isa["units"][0].pk}"' in page
    assert reverse("curation:snapshot", args=[isa["units"][0].snapshot_id]) in page
    assert 'list="concept-ids"' in page and '<option value="isa.allowance">' in page


def test_the_concept_panel_is_an_htmx_fragment(editor_client, isa):
    fragment = page_of(editor_client.get(concept_url(isa["junior"]), **HTMX))
    assert fragment.lstrip().startswith('<div id="concept-panel"')
    assert "<html" not in fragment and JUNIOR_TEXT in fragment


def test_unknown_things_are_404(editor_client, isa):
    assert editor_client.get(reverse("curation:taxonomy-concept", args=[999999])).status_code == 404
    category = reverse("curation:taxonomy-category", args=["no_such_category"])
    assert editor_client.get(category).status_code == 404
    assert editor_client.post(change_url(isa["junior"], "explode")).status_code == 404


def test_search_finds_concepts_by_id_name_and_old_id_and_units_by_text(editor_client, isa):
    page = page_of(editor_client.get(TAXONOMY_URL, {"q": "junior"}))
    assert "isa.junior.allowance" in page and "Units whose text matches" in page
    by_alias = page_of(editor_client.get(TAXONOMY_URL, {"q": "junior.limit"}, **HTMX))
    assert by_alias.lstrip().startswith('<div id="search-results"') and "<html" not in by_alias
    assert "isa.junior.allowance" in by_alias
    by_text = page_of(editor_client.get(TAXONOMY_URL, {"q": "2025 to 2026"}, **HTMX))
    assert "Units whose text matches" in by_text and "isa.junior.allowance" in by_text
    nothing = page_of(editor_client.get(TAXONOMY_URL, {"q": "zzzz nothing"}, **HTMX))
    assert "Nothing matches" in nothing


# --- concept changes ---------------------------------------------------------------------------


def test_moving_units_changes_their_concept_and_offers_a_revert(editor_client, isa):
    moved = isa["units"][:2]
    data = {"unit": [u.pk for u in moved], "to": "isa.allowance", "note": "general rules"}
    page = page_of(editor_client.post(change_url(isa["junior"], "move"), data, **HTMX))
    assert {u.concept_id for u in AtomicUnit.objects.filter(pk__in=[u.pk for u in moved])} == {
        isa["general"].pk
    }
    event = last_event()
    assert (event.action, event.note, event.actor.username) == (
        "unit.move",
        "general rules",
        "editor1",
    )
    assert "Moved 2 unit(s) to isa.allowance" in page
    assert reverse("curation:taxonomy-change-revert", args=[event.pk]) in page
    assert f"{CHANGES_URL}#change-{event.pk}" in page
    assert page.lstrip().startswith('<div id="concept-panel"')


def test_a_move_may_name_the_target_by_an_old_id(editor_client, editor, isa):
    general = isa["general"]
    concept_rename(concept_id=general.pk, new_id="isa.annual_allowance", user=editor)
    unit = isa["units"][2]
    data = {"unit": [unit.pk], "to": "isa.allowance"}
    page_of(editor_client.post(change_url(isa["junior"], "move"), data, **HTMX))
    assert AtomicUnit.objects.get(pk=unit.pk).concept_id == general.pk


@pytest.mark.parametrize(
    "data, message",
    [
        ({"to": "isa.allowance"}, "choose at least one unit"),
        ({"unit": ["x"], "to": "isa.allowance"}, "choose units by their checkboxes"),
        ({"unit": ["UNIT"], "to": "isa.nowhere"}, "no concept or old id &#x27;isa.nowhere&#x27;"),
        ({"unit": ["UNIT"], "to": ""}, "give the taxonomy id of a concept"),
        ({"unit": ["UNIT"], "to": "isa.proposed_topic"}, "is proposed, not active"),
        ({"unit": ["UNIT"], "to": "isa.junior.allowance"}, "already in isa.junior.allowance"),
    ],
)
def test_a_bad_move_says_why_and_changes_nothing(editor_client, isa, data, message):
    data = {
        k: [isa["units"][0].pk if v == "UNIT" else v for v in vs] if isinstance(vs, list) else vs
        for k, vs in data.items()
    }
    page = page_of(editor_client.post(change_url(isa["junior"], "move"), data, **HTMX))
    assert "Units were not moved" in page and message in page
    assert 'class="tx-notice error"' in page
    assert isa["junior"].units.count() == 3 and not AuditEvent.objects.exists()


def test_renaming_keeps_the_old_id_as_an_alias(editor_client, isa):
    url = change_url(isa["junior"], "rename")
    page = page_of(editor_client.post(url, {"new_id": "isa.junior.subscription_limit"}, **HTMX))
    assert "Renamed isa.junior.allowance to isa.junior.subscription_limit" in page
    assert last_event().action == "concept.rename"
    found, via = concept_resolve(taxonomy_id="isa.junior.allowance")
    assert (found.pk, via) == (isa["junior"].pk, "isa.junior.allowance")
    assert '<span class="tx-id" id="concept-id">isa.junior.subscription_limit</span>' in page


@pytest.mark.parametrize(
    "new_id, message",
    [
        ("Not Dotted", "lower-case dotted words"),
        ("isa.allowance", "isa.allowance is another concept&#x27;s id"),
        ("isa.junior.allowance", "taxonomy_id: that is already its id"),
    ],
)
def test_a_bad_rename_says_why(editor_client, isa, new_id, message):
    url = change_url(isa["junior"], "rename")
    page = page_of(editor_client.post(url, {"new_id": new_id}, **HTMX))
    assert "The concept was not renamed" in page and message in page
    assert not AuditEvent.objects.exists()


def test_merging_moves_units_and_retires_the_concept(editor_client, isa):
    url = change_url(isa["junior"], "merge")
    page = page_of(editor_client.post(url, {"into": "isa.allowance"}, **HTMX))
    assert "Merged isa.junior.allowance into isa.allowance (3 unit(s) moved)" in page
    assert isa["general"].units.count() == 3
    assert Concept.objects.get(pk=isa["junior"].pk).status == "retired"
    assert concept_resolve(taxonomy_id="isa.junior.allowance")[0].pk == isa["general"].pk


def test_merging_into_itself_is_refused(editor_client, isa):
    url = change_url(isa["junior"], "merge")
    page = page_of(editor_client.post(url, {"into": "isa.junior.allowance"}, **HTMX))
    assert "The concept was not merged" in page
    assert "a concept cannot be merged into itself" in page
    assert Concept.objects.get(pk=isa["junior"].pk).status == "active"


def test_retiring_needs_an_empty_concept(editor_client, isa):
    page = page_of(editor_client.post(change_url(isa["junior"], "retire"), **HTMX))
    assert "The concept was not retired" in page
    assert "isa.junior.allowance still holds 3 unit(s); move or merge them first" in page
    assert Concept.objects.get(pk=isa["junior"].pk).status == "active"

    page = page_of(editor_client.post(change_url(isa["general"], "retire"), **HTMX))
    assert "isa.allowance: active → retired" in page
    assert Concept.objects.get(pk=isa["general"].pk).status == "retired"
    assert last_event().action == "concept.retired"
    assert 'id="retire-form"' not in page  # nothing more to do to a retired concept


def test_editing_the_name_and_description(editor_client, isa):
    data = {"name": "Junior ISA subscription limit", "description": "How much may go in a year."}
    page = page_of(editor_client.post(change_url(isa["junior"], "edit"), data, **HTMX))
    assert "Edited the name and description of isa.junior.allowance" in page
    concept = Concept.objects.get(pk=isa["junior"].pk)
    assert (concept.name, concept.description) == tuple(data.values())
    refused = page_of(
        editor_client.post(
            change_url(isa["junior"], "edit"), {"name": "", "description": "x"}, **HTMX
        )
    )
    assert "were not changed" in refused and "name: 1 to 200 characters" in refused


def test_approving_a_proposal(editor_client, isa):
    page = page_of(editor_client.get(concept_url(isa["proposal"])))
    assert "Proposed by bootstrap" in page and 'id="approve-form"' in page
    page = page_of(editor_client.post(change_url(isa["proposal"], "approve"), **HTMX))
    assert "isa.proposed_topic: proposed → active" in page
    assert Concept.objects.get(pk=isa["proposal"].pk).status == "active"
    again = page_of(editor_client.post(change_url(isa["proposal"], "approve"), **HTMX))
    assert "is not a proposal" in again


def test_a_plain_form_post_redirects_back_with_a_message(editor_client, isa):
    url = change_url(isa["junior"], "rename")
    response = editor_client.post(url, {"new_id": "isa.junior.subscription_limit"}, follow=True)
    assert response.redirect_chain == [(concept_url(isa["junior"]), 302)]
    page = page_of(response)
    assert "Renamed isa.junior.allowance to isa.junior.subscription_limit" in page
    assert f'href="{CHANGES_URL}#change-{last_event().pk}"' in page  # its audit entry
    refused = page_of(editor_client.post(url, {"new_id": "Bad Id"}, follow=True))
    assert 'class="error"' in refused and "lower-case dotted words" in refused


# --- quality flags -----------------------------------------------------------------------------


@pytest.fixture
def flags(isa):
    misplaced = QualityFlag.objects.create(
        unit=isa["units"][1],
        kind=QualityFlag.Kind.MISPLACED,
        raised_by="heuristic",
        reason="closer to isa.allowance than to its own concept",
        margin=0.0712,
        suggested_concept=isa["general"],
    )
    stale = QualityFlag.objects.create(
        unit=isa["units"][2],
        kind=QualityFlag.Kind.STALE_SOURCE,
        raised_by="openai",
        reason="its page changed since extraction",
    )
    other_category = UnitFactory(concept=ConceptFactory(category=CategoryFactory(slug="pensions")))
    elsewhere = QualityFlag.objects.create(
        unit=other_category,
        kind=QualityFlag.Kind.UNVERIFIED_EVIDENCE,
        raised_by="heuristic",
        reason="quote not found in the page",
    )
    return {"misplaced": misplaced, "stale": stale, "elsewhere": elsewhere}


def test_open_flags_are_listed_and_say_who_raised_them(editor_client, flags, isa):
    page = page_of(editor_client.get(FLAGS_URL))
    assert "Misplaced unit" in page and "Source changed since extraction" in page
    assert "Raised by the heuristic check (rule-based, not an LLM)" in page
    assert "Raised by an LLM (openai)" in page
    assert "closer by 0.071" in page
    assert "isa.allowance" in page and "isa.junior.allowance" in page
    assert "Accept (move)" in page


def test_flags_filter_by_kind_and_category_as_a_fragment(editor_client, flags):
    by_kind = page_of(editor_client.get(FLAGS_URL, {"kind": "misplaced"}, **HTMX))
    assert by_kind.lstrip().startswith('<div id="flag-list"') and "<html" not in by_kind
    assert f'id="flag-{flags["misplaced"].pk}"' in by_kind
    assert f'id="flag-{flags["stale"].pk}"' not in by_kind
    by_category = page_of(editor_client.get(FLAGS_URL, {"category": "pensions"}, **HTMX))
    assert f'id="flag-{flags["elsewhere"].pk}"' in by_category
    assert f'id="flag-{flags["misplaced"].pk}"' not in by_category


def test_accepting_a_misplaced_flag_moves_the_unit(editor_client, flags, isa):
    data = {"flag": flags["misplaced"].pk, "decision": "accept", "kind": "misplaced"}
    page = page_of(editor_client.post(reverse("curation:taxonomy-flags-resolve"), data, **HTMX))
    assert AtomicUnit.objects.get(pk=isa["units"][1].pk).concept_id == isa["general"].pk
    assert QualityFlag.objects.get(pk=flags["misplaced"].pk).status == "accepted"
    event = last_event()
    assert event.action == "flag.accept" and "unit moved to isa.allowance" in page
    assert reverse("curation:taxonomy-change-revert", args=[event.pk]) in page
    assert f'id="flag-{flags["misplaced"].pk}"' not in page  # no longer open


def test_dismissing_a_flag_and_a_second_decision_is_refused(editor_client, flags):
    url = reverse("curation:taxonomy-flags-resolve")
    data = {"flag": flags["stale"].pk, "decision": "dismiss"}
    page = page_of(editor_client.post(url, data, **HTMX))
    assert QualityFlag.objects.get(pk=flags["stale"].pk).status == "dismissed"
    assert "Dismissed source changed since extraction" in page
    again = page_of(editor_client.post(url, data, **HTMX))
    assert f"Flag {flags['stale'].pk} was not dismissed" in again and "already dismissed" in again


def test_flags_are_resolved_in_bulk_and_failures_reported(editor_client, flags):
    flags["stale"].status = "dismissed"
    flags["stale"].save()
    ids = [flags["misplaced"].pk, flags["stale"].pk, flags["elsewhere"].pk]
    url = reverse("curation:taxonomy-flags-resolve")
    page = page_of(editor_client.post(url, {"flag": ids, "decision": "accept"}, **HTMX))
    assert "Accepted 2 flag(s)" in page and "skipped 1" in page
    assert f"flag {flags['stale'].pk} skipped: flag: already dismissed" in page
    assert set(QualityFlag.objects.values_list("status", flat=True)) == {"accepted", "dismissed"}
    assert AuditEvent.objects.filter(action="flag.accept").count() == 2


def test_a_flag_decision_needs_a_choice_and_a_flag(editor_client, flags):
    url = reverse("curation:taxonomy-flags-resolve")
    assert "tick at least one flag" in page_of(
        editor_client.post(url, {"decision": "accept"}, **HTMX)
    )
    assert "choose accept or dismiss" in page_of(
        editor_client.post(url, {"flag": flags["stale"].pk}, **HTMX)
    )
    assert not AuditEvent.objects.exists()


# --- triage ------------------------------------------------------------------------------------


def make_item(*, quote: str, kind="unassigned", candidates=()):
    snapshot = SnapshotFactory(text=JUNIOR_TEXT)
    run = ExtractionRun.objects.create(
        snapshot=snapshot, provider="heuristic", prompt_version="v1", status="done"
    )
    proposal = {
        "unit_type": "threshold",
        "text": "Junior ISA limit £9,000",
        "concept_id": None,
        "evidence_quote": quote,
        "valid_from": "2025-04-06",
        "valid_to": "2026-04-05",
        "value_amount": "9000",
        "value_unit": "GBP",
        "value_period": "year",
        "example_of": None,
        "validity_basis": "quote",
        "section": "",
        "candidates": [],
    }
    return ExtractionItem.objects.create(
        run=run,
        snapshot=snapshot,
        kind=kind,
        reason_code="no_confident_concept",
        reason="no concept beat the runner-up by the margin",
        proposal=proposal,
        candidates=[list(pair) for pair in candidates],
    )


def test_triage_lists_items_with_the_best_candidate_filled_in(editor_client, isa):
    item = make_item(
        quote="up to £9,000 into a Junior ISA",
        candidates=[("isa.allowance", 0.61), ("isa.junior.allowance", 0.64)],
    )
    page = page_of(editor_client.get(TRIAGE_URL))
    assert "Junior ISA limit £9,000" in page and "up to £9,000 into a Junior ISA" in page
    assert "no concept beat the runner-up by the margin" in page
    assert f'id="assign-{item.pk}" name="concept" value="isa.junior.allowance"' in page
    best, runner_up = "<li><code>isa.junior.allowance</code>", "<li><code>isa.allowance</code>"
    assert page.index(best) < page.index(runner_up)
    fragment = page_of(editor_client.get(TRIAGE_URL, {"kind": "rejected"}, **HTMX))
    assert fragment.lstrip().startswith('<div id="item-list"') and "Nothing to triage" in fragment


def test_a_candidates_score_is_shown_within_0_to_1_and_explained(editor_client, isa):
    make_item(
        quote="up to £9,000",
        candidates=[("isa.junior.allowance", 1.066), ("isa.allowance", 0.3), ("isa.gone", -0.2)],
    )
    page = page_of(editor_client.get(TRIAGE_URL))
    assert "1.066" not in page
    shown = re.findall(r'<span class="tx-score" title="([^"]+)">match (\d\.\d\d)</span>', page)
    values = [float(value) for _, value in shown]
    assert len(values) == 3 and values == sorted(values, reverse=True)
    assert 0 < values[0] < 1 and values[-1] == 0  # a share of the highest score possible
    assert all("similarity" in title and "1 would be" in title for title, _ in shown)


def test_a_renamed_candidate_is_offered_by_its_new_id(editor_client, editor, isa):
    item = make_item(quote="up to £9,000", candidates=[("isa.junior.allowance", 0.7)])
    concept_rename(concept_id=isa["junior"].pk, new_id="isa.junior.cap", user=editor)
    page = page_of(editor_client.get(TRIAGE_URL))
    assert f'id="assign-{item.pk}" name="concept" value="isa.junior.cap"' in page
    assert "now <code>isa.junior.cap</code>" in page


def test_assigning_an_item_makes_a_unit(editor_client, isa):
    item = make_item(quote="up to £9,000 into a Junior ISA")
    url = reverse("curation:taxonomy-item-assign", args=[item.pk])
    page = page_of(editor_client.post(url, {"concept": "isa.allowance"}, **HTMX))
    unit = AtomicUnit.objects.get(concept=isa["general"])
    assert unit.evidence_quote == "up to £9,000 into a Junior ISA" and unit.evidence_verified
    assert ExtractionItem.objects.get(pk=item.pk).status == "assigned"
    assert f"Item {item.pk} became unit {unit.pk} under isa.allowance" in page
    assert page.lstrip().startswith(f'<article class="tx-card resolved" id="item-{item.pk}"')
    assert last_event().action == "triage.assign"


def test_an_item_whose_quote_is_gone_cannot_be_assigned(editor_client, isa):
    item = make_item(quote="a sentence the page never said", kind="rejected")
    url = reverse("curation:taxonomy-item-assign", args=[item.pk])
    page = page_of(editor_client.post(url, {"concept": "isa.allowance"}, **HTMX))
    assert f"Item {item.pk} was not assigned" in page and "quote_not_found" in page
    assert "discard it instead" in page and 'name="reason"' in page  # still open
    assert not AtomicUnit.objects.filter(concept=isa["general"]).exists()
    unknown = page_of(editor_client.post(url, {"concept": "isa.nowhere"}, **HTMX))
    assert "no concept or old id" in unknown


def test_discarding_an_item_needs_a_reason(editor_client, isa):
    item = make_item(quote="up to £9,000")
    url = reverse("curation:taxonomy-item-discard", args=[item.pk])
    page = page_of(editor_client.post(url, {"reason": "  "}, **HTMX))
    assert "say why it is discarded" in page
    assert ExtractionItem.objects.get(pk=item.pk).status == "open"
    page = page_of(editor_client.post(url, {"reason": "navigation text, not a rule"}, **HTMX))
    item.refresh_from_db()
    assert (item.status, item.resolution_note) == ("discarded", "navigation text, not a rule")
    assert f"Item {item.pk} discarded" in page and last_event().action == "triage.discard"


# --- bootstrap ---------------------------------------------------------------------------------


def new_category_pages():
    """A category without concepts and two pages of its own sharing a section heading."""
    category = CategoryFactory(slug="pet_savings", name="Pet savings")
    for n, heading in ((1, "Vet bills"), (2, "Vet bills")):
        text = f"{heading} Pet owners can claim help with vet bills up to £500 a year. Page {n}."
        source = SourceFactory(url=f"https://www.gov.uk/pet-savings/page-{n}")
        SnapshotFactory(
            source=source,
            text=text,
            sections=[{"heading_path": [heading], "start": 0, "end": len(text)}],
        )
    return category


def test_bootstrap_lists_proposals_by_category(editor_client, isa):
    page = page_of(editor_client.get(BOOTSTRAP_URL))
    assert 'id="category-isa"' in page and "isa.proposed_topic" in page
    assert "heuristic" in page and "Re-extract now" in page


def test_bootstrap_proposes_concepts_from_pages_given_by_prefix(
    editor_client, django_capture_on_commit_callbacks
):
    category = new_category_pages()
    url = reverse("curation:taxonomy-bootstrap-propose", args=[category.slug])
    data = {"url_prefixes": "https://www.gov.uk/pet-savings/", "prefix": "pets", "limit": "5"}
    with django_capture_on_commit_callbacks(execute=True):
        page = page_of(editor_client.post(url, data, **HTMX))
    assert "Proposing concepts for Pet savings: queued as job #" in page
    assert page.lstrip().startswith('<section class="module tx-section" id="category-pet_savings"')
    proposed = Concept.objects.filter(category=category)
    assert proposed.exists() and set(proposed.values_list("status", flat=True)) == {"proposed"}
    job = BootstrapJob.objects.get()
    assert "pets.vet_bills" in job.outcome and "Read 2 page(s)" in job.outcome
    with django_capture_on_commit_callbacks(execute=True):
        editor_client.post(url, data, **HTMX)
    again = BootstrapJob.objects.order_by("-pk").first()
    assert "proposed 0 new concept(s)" in again.outcome and "Already taken" in again.details[0]


def test_bootstrap_without_pages_says_so(editor_client):
    category = CategoryFactory(slug="empty_topic")
    url = reverse("curation:taxonomy-bootstrap-propose", args=[category.slug])
    page = page_of(editor_client.post(url, {"limit": "5"}, **HTMX))
    assert "No concepts were proposed" in page and "no pages found" in page
    bad = page_of(editor_client.post(url, {"limit": "many"}, **HTMX))
    assert "limit: a whole number" in bad


def test_proposals_are_renamed_and_approved_from_the_bootstrap_page(editor_client, isa):
    proposal = isa["proposal"]
    data = {"new_id": "isa.transfers", "panel": "bootstrap"}
    page = page_of(editor_client.post(change_url(proposal, "rename"), data, **HTMX))
    assert page.lstrip().startswith('<section class="module tx-section" id="category-isa"')
    assert "Renamed isa.proposed_topic to isa.transfers" in page
    page = page_of(
        editor_client.post(change_url(proposal, "approve"), {"panel": "bootstrap"}, **HTMX)
    )
    assert "isa.transfers: proposed → active" in page
    assert Concept.objects.get(pk=proposal.pk).status == "active"
    plain = editor_client.post(change_url(proposal, "retire"), {"panel": "bootstrap"})
    assert plain.status_code == 302 and plain["Location"] == f"{BOOTSTRAP_URL}#category-isa"


def test_re_extraction_needs_approved_concepts(editor_client):
    category = new_category_pages()
    url = reverse("curation:taxonomy-bootstrap-reextract", args=[category.slug])
    page = page_of(editor_client.post(url, {}, **HTMX))
    assert "Nothing was re-extracted" in page and "approve some concepts first" in page


def test_re_extraction_reports_what_it_made(
    editor_client, isa, monkeypatch, django_capture_on_commit_callbacks
):
    asked = {}

    def reextract(*, category_slug, url_prefixes=None, user=None, progress):
        asked.update(category_slug=category_slug, url_prefixes=url_prefixes, user=user.username)
        return ReextractReport(pages=2, units_made=5, runs=[1, 2])

    monkeypatch.setattr(bootstrap_jobs, "category_reextract", reextract)
    url = reverse("curation:taxonomy-bootstrap-reextract", args=["isa"])
    data = {"url_prefixes": "https://www.gov.uk/isa\n\nhttps://www.gov.uk/junior-isa\n"}
    with django_capture_on_commit_callbacks(execute=True):
        page = page_of(editor_client.post(url, data, **HTMX))
    assert "Re-extracting the pages of ISAs: queued as job #" in page
    job = BootstrapJob.objects.get()
    assert (
        job.outcome == "Re-extracted 2 page(s) of ISAs: 5 new unit(s) bound to its active concepts."
    )
    assert asked == {
        "category_slug": "isa",
        "url_prefixes": ["https://www.gov.uk/isa", "https://www.gov.uk/junior-isa"],
        "user": "editor1",
    }


# --- the change log and reverts ----------------------------------------------------------------


def test_the_change_log_shows_before_and_after(editor_client, editor, isa):
    units_move(unit_ids=[isa["units"][0].pk], concept_id=isa["general"].pk, user=editor)
    concept_rename(concept_id=isa["junior"].pk, new_id="isa.junior.limit_2025", user=editor)
    page = page_of(editor_client.get(CHANGES_URL))
    assert "unit.move" in page and "concept.rename" in page
    assert "Moved 1 unit(s) to isa.allowance" in page
    assert "isa.junior.limit_2025" in page and "taxonomy id" in page
    move_row = page[page.index('data-action="unit.move"') :]
    move_row = move_row[: move_row.index("</form>")]
    # Concepts are named by their id now (the junior one was renamed after the move).
    assert f"unit {isa['units'][0].pk} &middot; concept" in move_row
    assert '<td class="before">isa.junior.limit_2025</td>' in move_row
    assert '<td class="after">isa.allowance</td>' in move_row
    fragment = page_of(editor_client.get(CHANGES_URL, **HTMX))
    assert fragment.lstrip().startswith('<div id="change-log"')


def test_reverting_through_the_screen_puts_things_back(editor_client, editor, isa):
    event = units_move(unit_ids=[isa["units"][0].pk], concept_id=isa["general"].pk, user=editor)
    url = reverse("curation:taxonomy-change-revert", args=[event.pk])
    page = page_of(editor_client.post(url, **HTMX))
    assert "Reverted: Moved 1 unit(s) to isa.allowance" in page
    assert AtomicUnit.objects.get(pk=isa["units"][0].pk).concept_id == isa["junior"].pk
    revert = last_event()
    assert revert.reverts_id == event.pk and revert.action == "unit.move.revert"
    assert f'reverted by <a href="#change-{revert.pk}">#{revert.pk}</a>' in page
    again = page_of(editor_client.post(url, **HTMX))
    assert f"Change {event.pk} was not reverted" in again and "reverted already" in again


def test_a_revert_refused_because_of_a_later_change_says_so(editor_client, editor, isa):
    first = units_move(unit_ids=[isa["units"][0].pk], concept_id=isa["general"].pk, user=editor)
    units_move(unit_ids=[isa["units"][0].pk], concept_id=isa["junior"].pk, user=editor)
    url = reverse("curation:taxonomy-change-revert", args=[first.pk])
    page = page_of(editor_client.post(url, **HTMX))
    assert "revert the later change first" in page


def test_a_revert_from_a_notice_returns_to_its_page(editor_client, editor, isa):
    event = concept_rename(concept_id=isa["junior"].pk, new_id="isa.junior.cap", user=editor)
    url = reverse("curation:taxonomy-change-revert", args=[event.pk])
    back = concept_url(isa["junior"])
    response = editor_client.post(url, {"next": back})
    assert (response.status_code, response["Location"]) == (302, back)
    assert Concept.objects.get(pk=isa["junior"].pk).taxonomy_id == "isa.junior.allowance"
    elsewhere = editor_client.post(url, {"next": "https://elsewhere.example/"})
    assert elsewhere["Location"] == CHANGES_URL


def test_only_taxonomy_changes_are_reverted_here(editor_client, isa):
    decision = AuditEvent.objects.create(
        action="candidate.approve",
        target_type="concept",
        target_id=isa["junior"].pk,
        summary="not a taxonomy change",
    )
    url = reverse("curation:taxonomy-change-revert", args=[decision.pk])
    assert editor_client.post(url, **HTMX).status_code == 404
    assert editor_client.post(f"{CHANGES_URL}999999/revert/", **HTMX).status_code == 404


def test_the_home_page_and_jobs_screen_link_editors_here(editor_client, expert):
    assert 'href="/curation/taxonomy/"' in page_of(editor_client.get("/"))
    jobs = page_of(editor_client.get("/curation/jobs/"))
    assert 'href="/curation/taxonomy/"' in jobs and f'href="{CHANGES_URL}"' in jobs
    editor_client.force_login(expert)
    assert 'href="/curation/taxonomy/"' not in page_of(editor_client.get("/curation/jobs/"))
