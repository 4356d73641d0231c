"""Editors' taxonomy changes and triage: effects, audit entries, exact reverts, rights."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied

from curation.models import AuditEvent
from curation.services.audit import RevertRefused
from curation.services.taxonomy import (
    TaxonomyChangeRefused,
    concept_approve,
    concept_edit,
    concept_merge,
    concept_rename,
    concept_retire,
    taxonomy_change_revert,
    units_move,
)
from curation.services.triage import triage_assign, triage_discard
from knowledge.models import AtomicUnit, Concept, ConceptAlias, ExtractionItem, ExtractionRun
from knowledge.selectors import concept_resolve
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db


def _placement():
    return {
        unit.pk: (unit.concept_id, unit.ordinal)
        for unit in AtomicUnit.objects.alive().order_by("pk")
    }


def _concepts():
    return {c.pk: (c.taxonomy_id, c.name, c.description, c.status) for c in Concept.objects.all()}


def _aliases():
    return sorted(ConceptAlias.objects.values_list("alias", "concept_id"))


@pytest.fixture
def two_concepts():
    category = CategoryFactory()
    junior = ConceptFactory(category=category, taxonomy_id="isa.junior.allowance")
    general = ConceptFactory(category=category, taxonomy_id="isa.allowance")
    units = [UnitFactory(concept=junior) for _ in range(3)] + [UnitFactory(concept=general)]
    return junior, general, units


def _revert_restores(event, user, snapshot_before):
    taxonomy_change_revert(event_id=event.pk, user=user)
    assert (_placement(), _concepts(), _aliases()) == snapshot_before
    with pytest.raises(RevertRefused):
        taxonomy_change_revert(event_id=event.pk, user=user)


def test_moving_units_renumbers_both_concepts_and_reverts(two_concepts, editor):
    junior, general, units = two_concepts
    before = (_placement(), _concepts(), _aliases())
    event = units_move(
        unit_ids=[units[0].pk], concept_id=general.pk, user=editor, note="general rule"
    )
    placement = _placement()
    assert placement[units[0].pk] == (general.pk, 2)
    assert [placement[u.pk] for u in units[1:3]] == [(junior.pk, 1), (junior.pk, 2)]
    assert event.action == "unit.move" and event.actor == editor and event.note == "general rule"
    assert event.before["unit"][str(units[0].pk)] == {"concept": junior.pk, "ordinal": 1}
    _revert_restores(event, editor, before)


def test_a_moved_unit_is_compared_again_by_the_superseding_detector(two_concepts, editor):
    from curation.models import DetectionRun, UnitDetectorCheck

    junior, general, units = two_concepts
    run = DetectionRun.objects.create(provider="heuristic")
    for unit in units:
        UnitDetectorCheck.objects.create(unit=unit, run=run)
    units_move(unit_ids=[units[0].pk], concept_id=general.pk, user=editor)
    checked = set(UnitDetectorCheck.objects.values_list("unit_id", flat=True))
    assert checked == {unit.pk for unit in units[1:]}


def test_renaming_keeps_the_old_id_resolving_and_reverts(two_concepts, editor):
    junior, _, _ = two_concepts
    before = (_placement(), _concepts(), _aliases())
    event = concept_rename(
        concept_id=junior.pk, new_id="isa.junior.subscription_limit", user=editor
    )
    found, via = concept_resolve(taxonomy_id="isa.junior.allowance")
    assert (found.pk, via) == (junior.pk, "isa.junior.allowance")
    assert concept_resolve(taxonomy_id="isa.junior.subscription_limit")[0].pk == junior.pk
    _revert_restores(event, editor, before)
    assert concept_resolve(taxonomy_id="isa.junior.allowance") == (junior, None)


def test_renaming_back_to_an_old_id_drops_that_alias(two_concepts, editor):
    junior, _, _ = two_concepts
    concept_rename(concept_id=junior.pk, new_id="isa.junior.limit", user=editor)
    concept_rename(concept_id=junior.pk, new_id="isa.junior.allowance", user=editor)
    assert _aliases() == [("isa.junior.limit", junior.pk)]


@pytest.mark.parametrize(
    "new_id, message",
    [("Not Dotted", "lower-case dotted"), ("isa.allowance", "another concept"), ("", "dotted")],
)
def test_a_bad_new_id_is_refused_and_changes_nothing(two_concepts, editor, new_id, message):
    junior, _, _ = two_concepts
    before = (_concepts(), _aliases())
    with pytest.raises(TaxonomyChangeRefused, match=message):
        concept_rename(concept_id=junior.pk, new_id=new_id, user=editor)
    assert (_concepts(), _aliases()) == before and not AuditEvent.objects.exists()


def test_merging_moves_units_and_aliases_retires_and_reverts(two_concepts, editor):
    junior, general, units = two_concepts
    ConceptAlias.objects.create(alias="isa.junior.old_id", concept=junior)
    before = (_placement(), _concepts(), _aliases())
    event = concept_merge(concept_id=junior.pk, into_id=general.pk, user=editor)
    assert {placement for placement in _placement().values()} == {
        (general.pk, n) for n in (1, 2, 3, 4)
    }
    junior.refresh_from_db()
    assert junior.status == "retired"
    assert concept_resolve(taxonomy_id="isa.junior.allowance")[0].pk == general.pk
    assert concept_resolve(taxonomy_id="isa.junior.old_id")[0].pk == general.pk
    _revert_restores(event, editor, before)


def test_retiring_needs_an_empty_concept_and_reverts(two_concepts, editor):
    junior, general, units = two_concepts
    with pytest.raises(TaxonomyChangeRefused, match="still holds 3"):
        concept_retire(concept_id=junior.pk, user=editor)
    empty = ConceptFactory(category=junior.category)
    before = (_placement(), _concepts(), _aliases())
    event = concept_retire(concept_id=empty.pk, user=editor)
    assert Concept.objects.get(pk=empty.pk).status == "retired"
    _revert_restores(event, editor, before)


def test_editing_and_approving_a_proposed_concept_are_audited_and_revert(editor):
    proposed = ConceptFactory(status=Concept.Status.PROPOSED)
    before = (_placement(), _concepts(), _aliases())
    edit = concept_edit(
        concept_id=proposed.pk,
        name="Junior ISA transfers",
        description="Moving a Junior ISA between providers.",
        user=editor,
    )
    approve = concept_approve(concept_id=proposed.pk, user=editor)
    assert Concept.objects.get(pk=proposed.pk).status == "active"
    assert edit.before["concept"][str(proposed.pk)].keys() == {"name", "description"}
    # The two touched different fields, so either may be reverted first.
    taxonomy_change_revert(event_id=edit.pk, user=editor)
    taxonomy_change_revert(event_id=approve.pk, user=editor)
    assert (_placement(), _concepts(), _aliases()) == before


def test_a_revert_over_a_later_change_is_refused(two_concepts, editor):
    junior, general, units = two_concepts
    first = units_move(unit_ids=[units[0].pk], concept_id=general.pk, user=editor)
    units_move(unit_ids=[units[0].pk], concept_id=junior.pk, user=editor)
    with pytest.raises(RevertRefused, match="changed since"):
        taxonomy_change_revert(event_id=first.pk, user=editor)


def test_moving_into_a_retired_or_proposed_concept_is_refused(two_concepts, editor):
    junior, _, units = two_concepts
    for status in (Concept.Status.RETIRED, Concept.Status.PROPOSED):
        target = ConceptFactory(category=junior.category, status=status)
        with pytest.raises(TaxonomyChangeRefused, match="not active"):
            units_move(unit_ids=[units[0].pk], concept_id=target.pk, user=editor)


def test_domain_experts_and_anonymous_cannot_change_the_taxonomy(two_concepts, expert):
    from django.contrib.auth.models import AnonymousUser

    junior, general, units = two_concepts
    for user in (expert, AnonymousUser()):
        with pytest.raises(PermissionDenied):
            units_move(unit_ids=[units[0].pk], concept_id=general.pk, user=user)
        with pytest.raises(PermissionDenied):
            concept_rename(concept_id=junior.pk, new_id="isa.junior.x", user=user)
    assert not AuditEvent.objects.exists()


# --- triage ------------------------------------------------------------------------------------


def _item(*, quote: str, kind="unassigned", **proposal):
    snapshot = SnapshotFactory(
        text="You can put up to £9,000 into a Junior ISA in the 2025 to 2026 tax year."
    )
    run = ExtractionRun.objects.create(
        snapshot=snapshot, provider="heuristic", prompt_version="v1", status="done"
    )
    data = {
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
    } | proposal
    return ExtractionItem.objects.create(
        run=run,
        snapshot=snapshot,
        kind=kind,
        reason_code="no_confident_concept",
        reason="no concept beat the runner-up",
        proposal=data,
    )


def test_assigning_an_item_creates_its_unit_with_verified_evidence_and_reverts(editor):
    concept = ConceptFactory()
    item = _item(quote="up to £9,000 into a Junior ISA")
    event = triage_assign(item_id=item.pk, concept_id=concept.pk, user=editor)
    unit = AtomicUnit.objects.get(concept=concept)
    assert unit.evidence_verified and unit.evidence_quote == "up to £9,000 into a Junior ISA"
    assert item.snapshot.text[unit.evidence_start : unit.evidence_end] == unit.evidence_quote
    assert (unit.valid_from, unit.value_amount, unit.ordinal) == (dt.date(2025, 4, 6), 9000, 1)
    item.refresh_from_db()
    assert item.status == "assigned" and event.action == "triage.assign"
    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert not AtomicUnit.objects.filter(concept=concept).exists()
    assert ExtractionItem.objects.get(pk=item.pk).status == "open"


def test_an_item_whose_quote_is_not_in_the_page_cannot_be_assigned(editor):
    concept = ConceptFactory()
    item = _item(quote="a sentence the page never said", kind="rejected")
    with pytest.raises(TaxonomyChangeRefused, match="quote_not_found"):
        triage_assign(item_id=item.pk, concept_id=concept.pk, user=editor)
    assert ExtractionItem.objects.get(pk=item.pk).status == "open"
    assert not AtomicUnit.objects.exists()


def test_discarding_keeps_the_reason_and_needs_one(editor):
    item = _item(quote="up to £9,000")
    with pytest.raises(TaxonomyChangeRefused, match="say why"):
        triage_discard(item_id=item.pk, user=editor, reason=" ")
    triage_discard(item_id=item.pk, user=editor, reason="navigation text, not a rule")
    item.refresh_from_db()
    assert (item.status, item.resolution_note) == ("discarded", "navigation text, not a rule")
    with pytest.raises(TaxonomyChangeRefused, match="already discarded"):
        triage_discard(item_id=item.pk, user=editor, reason="again")
