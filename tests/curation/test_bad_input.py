"""Every field of every curation screen's POST, sent a NUL byte (PostgreSQL refuses it in
text) or a Unicode digit that is not a decimal one ("²".isdigit() is true, int("²") fails):
the screen answers with its own refusal naming the field, never a 500, and stores nothing."""

import pytest
from django.urls import reverse

from curation.models import AuditEvent
from knowledge.models import Concept, ExtractionItem, ExtractionRun, QualityFlag
from tests.factories import (
    CandidateFactory,
    CategoryFactory,
    ConceptFactory,
    SnapshotFactory,
    UnitFactory,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
FREE_TEXT = {"note", "description", "name", "reason", "url_prefixes"}
BAD_VALUES = {"nul": "a\x00b", "superscript two": "²"}


@pytest.fixture
def world():
    category = CategoryFactory(slug="isa", name="ISAs")
    concept = ConceptFactory(category=category, taxonomy_id="isa.allowance")
    other = ConceptFactory(category=category, taxonomy_id="isa.junior")
    proposal = ConceptFactory(
        category=category, taxonomy_id="isa.topic", status=Concept.Status.PROPOSED
    )
    unit = UnitFactory(concept=concept)
    flag = QualityFlag.objects.create(
        unit=unit, kind=QualityFlag.Kind.MISPLACED, reason="misplaced"
    )
    snapshot = SnapshotFactory()
    run = ExtractionRun.objects.create(
        snapshot=snapshot, provider="heuristic", prompt_version="v1", status="succeeded"
    )
    item = ExtractionItem.objects.create(
        run=run,
        snapshot=snapshot,
        kind=ExtractionItem.Kind.UNASSIGNED,
        reason="no concept",
        proposal={"text": "x", "unit_type": "rule", "evidence_quote": "x"},
    )
    return {
        "concept": concept,
        "other": other,
        "proposal": proposal,
        "unit": unit,
        "flag": flag,
        "item": item,
        "candidate": CandidateFactory(),
    }


def _change(action):
    return lambda w: reverse("curation:taxonomy-concept-change", args=[w["concept"].pk, action])


# (screen, its URL, a valid POST, the field spoilt, the words naming that field on screen)
EDITOR_POSTS = [
    (
        "move",
        _change("move"),
        lambda w: {"unit": w["unit"].pk, "to": "isa.junior"},
        "unit",
        "units",
    ),
    ("move", _change("move"), lambda w: {"unit": w["unit"].pk, "to": "isa.junior"}, "to", "to"),
    ("move", _change("move"), lambda w: {"unit": w["unit"].pk, "to": "isa.junior"}, "note", "note"),
    ("rename", _change("rename"), lambda w: {"new_id": "isa.renamed"}, "new_id", "taxonomy_id"),
    ("merge", _change("merge"), lambda w: {"into": "isa.junior"}, "into", "into"),
    ("retire", _change("retire"), lambda w: {}, "note", "note"),
    ("edit", _change("edit"), lambda w: {"name": "N", "description": "D"}, "name", "name"),
    (
        "edit",
        _change("edit"),
        lambda w: {"name": "N", "description": "D"},
        "description",
        "description",
    ),
    (
        "flags",
        lambda w: reverse("curation:taxonomy-flags-resolve"),
        lambda w: {"decision": "dismiss", "flag": w["flag"].pk},
        "flag",
        "flags",
    ),
    (
        "flags",
        lambda w: reverse("curation:taxonomy-flags-resolve"),
        lambda w: {"decision": "dismiss", "flag": w["flag"].pk},
        "note",
        "note",
    ),
    (
        "assign",
        lambda w: reverse("curation:taxonomy-item-assign", args=[w["item"].pk]),
        lambda w: {"concept": "isa.allowance"},
        "concept",
        "concept",
    ),
    (
        "discard",
        lambda w: reverse("curation:taxonomy-item-discard", args=[w["item"].pk]),
        lambda w: {"reason": "duplicate"},
        "reason",
        "reason",
    ),
    (
        "propose",
        lambda w: reverse("curation:taxonomy-bootstrap-propose", args=["isa"]),
        lambda w: {"limit": "5"},
        "limit",
        "limit",
    ),
    (
        "propose",
        lambda w: reverse("curation:taxonomy-bootstrap-propose", args=["isa"]),
        lambda w: {"limit": "5"},
        "prefix",
        "prefix",
    ),
    (
        "propose",
        lambda w: reverse("curation:taxonomy-bootstrap-propose", args=["isa"]),
        lambda w: {"limit": "5"},
        "url_prefixes",
        "url_prefixes",
    ),
    (
        "reextract",
        lambda w: reverse("curation:taxonomy-bootstrap-reextract", args=["isa"]),
        lambda w: {},
        "url_prefixes",
        "url_prefixes",
    ),
]


@pytest.mark.parametrize("bad", BAD_VALUES.values(), ids=BAD_VALUES.keys())
@pytest.mark.parametrize(
    ("url", "valid", "field", "named"),
    [post[1:] for post in EDITOR_POSTS],
    ids=[f"{post[0]}-{post[3]}" for post in EDITOR_POSTS],
)
def test_an_editors_field_with_a_nul_or_a_unicode_digit_is_refused_by_name(
    client, editor, world, url, valid, field, named, bad
):
    client.force_login(editor)
    events = AuditEvent.objects.count()
    data = valid(world) | {field: bad}
    response = client.post(url(world), data, **HTMX)
    page = response.content.decode()
    if field in FREE_TEXT and bad == "²":
        assert response.status_code == 200, page[:300]
        return  # a superscript is fine in free text
    assert response.status_code == 200, page[:300]
    assert f"{named}: " in page, page
    assert AuditEvent.objects.count() == events


def test_the_taxonomy_search_with_a_nul_byte_finds_nothing_and_says_why(client, editor, world):
    client.force_login(editor)
    response = client.get(reverse("curation:taxonomy"), {"q": "isa\x00"}, **HTMX)
    assert response.status_code == 200
    assert "q: " in response.content.decode()


@pytest.mark.parametrize("bad", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_an_experts_decision_note_with_a_nul_is_refused_by_name(client, expert, world, bad):
    client.force_login(expert)
    candidate = world["candidate"]
    url = reverse("curation:review-decide", args=[candidate.pk])
    response = client.post(url, {"decision": "approve", "note": f"why{bad}"}, **HTMX)
    page = response.content.decode()
    assert response.status_code == 200, page[:300]
    candidate.refresh_from_db()
    if bad == "²":
        assert candidate.status == "approved"
        return
    assert "note: " in page and candidate.status == "pending"


@pytest.mark.parametrize("field", ["ids", "note"])
@pytest.mark.parametrize("bad", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_bulk_approval_with_a_nul_or_a_unicode_digit_is_refused_by_name(
    client, expert, world, field, bad
):
    client.force_login(expert)
    candidate = world["candidate"]
    data = {"ids": [str(candidate.pk)], "note": "ok"} | {field: bad}
    response = client.post(reverse("curation:review-bulk-approve"), data, **HTMX)
    page = response.content.decode()
    assert response.status_code == 200, page[:300]
    candidate.refresh_from_db()
    if field == "note" and bad == "²":
        assert candidate.status == "approved"
        return
    assert f"{'pairs' if field == 'ids' else 'note'}: " in page, page
    assert candidate.status == "pending"
