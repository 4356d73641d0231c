"""Changes racing on one concept, in real threads with real transactions: whoever moves units
into a concept, merges, retires, deletes or reverts holds the concept's lock, so ordinals
stay 1..n without duplicates, nothing is lost, and a change that comes second and no longer
makes sense is refused with a reason, never a 500.

Each race holds the first change open inside its transaction (after it has read what it
needs, before it commits) until the others have finished or a few seconds have passed: without
the lock the others slip past it and the clash is certain; with it they wait their turn."""

import threading

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.urls import reverse

from curation.models import AuditEvent
from curation.services import taxonomy as taxonomy_services
from curation.services.superseding import candidate_flag_for_deletion
from curation.services.taxonomy import (
    TaxonomyChangeRefused,
    concept_merge,
    concept_retire,
    units_move,
)
from knowledge.models import AtomicUnit, Concept, ExtractionRun
from knowledge.providers import UnitProposal
from knowledge.services.extract import proposal_store
from tests.factories import CandidateFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOLD_SECONDS = 3  # how long a held change waits for the others before committing anyway


def _user(django_user_model, name: str, role: str):
    user = django_user_model.objects.create_user(name, password="pw-123456", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


class Hold:
    """Replace `module.name` so the first call signals `reached` and then waits (inside its
    transaction) until `release` is set or HOLD_SECONDS pass."""

    def __init__(self, monkeypatch, module, name: str):
        self.reached, self.release = threading.Event(), threading.Event()
        original = getattr(module, name)

        def held(*args, **kwargs):
            result = original(*args, **kwargs)
            if not self.reached.is_set():
                self.reached.set()
                self.release.wait(timeout=HOLD_SECONDS)
            return result

        monkeypatch.setattr(module, name, held)


def _run(target, outcomes: dict, key: str, **kwargs):
    def body():
        try:
            outcomes[key] = target(**kwargs)
        except Exception as exc:  # noqa: BLE001 - the test asserts on whatever came out
            outcomes[key] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    return thread


def _ordinals(concept) -> list[int]:
    return list(
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .order_by("ordinal")
        .values_list("ordinal", flat=True)
    )


def test_two_moves_into_one_concept_both_land_numbered_in_turn(django_user_model, monkeypatch):
    editor = _user(django_user_model, "ed", "editor")
    target = ConceptFactory(taxonomy_id="isa.allowance")
    UnitFactory(concept=target)
    first, second = ConceptFactory(taxonomy_id="isa.one"), ConceptFactory(taxonomy_id="isa.two")
    a, b = UnitFactory(concept=first), UnitFactory(concept=second)
    hold = Hold(monkeypatch, taxonomy_services, "detector_checks_clear")
    outcomes = {}
    one = _run(units_move, outcomes, "one", unit_ids=[a.pk], concept_id=target.pk, user=editor)
    assert hold.reached.wait(timeout=10)
    two = _run(units_move, outcomes, "two", unit_ids=[b.pk], concept_id=target.pk, user=editor)
    two.join(timeout=HOLD_SECONDS)  # without a lock it reaches its commit meanwhile
    hold.release.set()
    one.join(timeout=30), two.join(timeout=30)

    assert all(isinstance(outcome, AuditEvent) for outcome in outcomes.values()), outcomes
    assert _ordinals(target) == [1, 2, 3]
    assert set(
        AtomicUnit.objects.filter(pk__in=[a.pk, b.pk]).values_list("concept", flat=True)
    ) == {target.pk}


def test_a_move_racing_an_extraction_into_the_same_concept_numbers_both(
    django_user_model, monkeypatch
):
    """Extraction locks the concept before taking ordinals too, so neither overtakes."""
    editor = _user(django_user_model, "ed", "editor")
    target = ConceptFactory(taxonomy_id="isa.allowance")
    UnitFactory(concept=target)
    moving = UnitFactory(concept=ConceptFactory(taxonomy_id="isa.other"))
    text = "You can save up to £20,000 a year in ISAs."
    snapshot = SnapshotFactory(text=text)
    run = ExtractionRun.objects.create(snapshot=snapshot, provider="heuristic", prompt_version="v1")
    proposal = UnitProposal(
        unit_type="rule", text=text, concept_id="isa.allowance", evidence_quote=text
    )
    hold = Hold(monkeypatch, taxonomy_services, "detector_checks_clear")
    outcomes = {}
    move = _run(
        units_move, outcomes, "move", unit_ids=[moving.pk], concept_id=target.pk, user=editor
    )
    assert hold.reached.wait(timeout=10)
    extract = _run(
        proposal_store, outcomes, "extract", proposal=proposal, snapshot=snapshot, run=run
    )
    extract.join(timeout=HOLD_SECONDS)
    hold.release.set()
    move.join(timeout=30), extract.join(timeout=30)

    assert not [o for o in outcomes.values() if isinstance(o, Exception)], outcomes
    assert _ordinals(target) == [1, 2, 3]


def test_a_merge_racing_a_retire_of_its_target_leaves_no_retired_concept_holding_units(
    django_user_model, monkeypatch
):
    editor = _user(django_user_model, "ed", "editor")
    merged, target = ConceptFactory(taxonomy_id="isa.old"), ConceptFactory(taxonomy_id="isa.new")
    UnitFactory(concept=merged), UnitFactory(concept=merged)
    hold = Hold(monkeypatch, taxonomy_services, "detector_checks_clear")
    outcomes = {}
    merge = _run(
        concept_merge, outcomes, "merge", concept_id=merged.pk, into_id=target.pk, user=editor
    )
    assert hold.reached.wait(timeout=10)
    retire = _run(concept_retire, outcomes, "retire", concept_id=target.pk, user=editor)
    retire.join(timeout=HOLD_SECONDS)
    hold.release.set()
    merge.join(timeout=30), retire.join(timeout=30)

    target.refresh_from_db()
    holding = AtomicUnit.objects.alive().filter(concept=target).count()
    assert not (target.status == Concept.Status.RETIRED and holding), outcomes
    kinds = sorted(type(outcome).__name__ for outcome in outcomes.values())
    assert kinds == ["AuditEvent", "TaxonomyChangeRefused"], outcomes
    assert AuditEvent.objects.count() == 1


def test_two_experts_and_an_editor_on_one_concept_lose_and_duplicate_nothing(
    django_user_model, monkeypatch
):
    """The editor moves two units in while two experts each remove a unit of it."""
    alice = _user(django_user_model, "alice", "domain expert")
    bob = _user(django_user_model, "bob", "domain expert")
    editor = _user(django_user_model, "ed", "editor")
    concept = ConceptFactory(taxonomy_id="income_tax.personal_allowance")
    units = [UnitFactory(concept=concept) for _ in range(4)]
    first = CandidateFactory(older=units[0], newer=units[1])
    second = CandidateFactory(older=units[2], newer=units[3])
    elsewhere = ConceptFactory(taxonomy_id="income_tax.rates")
    arriving = [UnitFactory(concept=elsewhere) for _ in range(2)]
    staying = UnitFactory(concept=elsewhere)
    every_unit = {unit.pk for unit in [*units, *arriving, staying]}
    hold = Hold(monkeypatch, taxonomy_services, "detector_checks_clear")
    outcomes = {}
    move = _run(
        units_move,
        outcomes,
        "editor",
        unit_ids=[u.pk for u in arriving],
        concept_id=concept.pk,
        user=editor,
    )
    assert hold.reached.wait(timeout=10)
    experts = [
        _run(candidate_flag_for_deletion, outcomes, "alice", candidate_id=first.pk, user=alice),
        _run(candidate_flag_for_deletion, outcomes, "bob", candidate_id=second.pk, user=bob),
    ]
    for thread in experts:
        thread.join(timeout=HOLD_SECONDS)
    hold.release.set()
    for thread in (move, *experts):
        thread.join(timeout=30)

    assert not [o for o in outcomes.values() if isinstance(o, Exception)], outcomes
    assert set(AtomicUnit.objects.values_list("pk", flat=True)) == every_unit  # none lost
    alive = set(AtomicUnit.objects.alive().filter(concept=concept).values_list("pk", flat=True))
    assert alive == {units[1].pk, units[3].pk, *(u.pk for u in arriving)}
    assert _ordinals(concept) == [1, 2, 3, 4]
    assert _ordinals(elsewhere) == [1]
    assert AuditEvent.objects.count() == 3


def test_reverting_a_deletion_after_its_concept_gained_a_unit_is_refused_on_screen(
    client, django_user_model
):
    expert = _user(django_user_model, "alice", "domain expert")
    editor = _user(django_user_model, "ed", "editor")
    concept = ConceptFactory(taxonomy_id="isa.allowance")
    older, newer = UnitFactory(concept=concept), UnitFactory(concept=concept)
    candidate = CandidateFactory(older=older, newer=newer)
    candidate_flag_for_deletion(candidate_id=candidate.pk, user=expert)
    deletion = AuditEvent.objects.get()
    arrived = UnitFactory(concept=ConceptFactory(taxonomy_id="isa.other"))
    units_move(unit_ids=[arrived.pk], concept_id=concept.pk, user=editor)

    client.force_login(expert)
    url = reverse("curation:review-revert", args=[deletion.pk])
    response = client.post(url, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    page = response.content.decode()
    assert f"Decision {deletion.pk} was not reverted" in page
    assert "isa.allowance" in page and f"unit {arrived.pk}" in page
    older.refresh_from_db()
    assert older.deleted_at is not None
    assert _ordinals(concept) == [1, 2]
    assert not AuditEvent.objects.filter(reverts=deletion).exists()


def test_a_clash_found_only_at_commit_is_a_refusal(django_user_model, monkeypatch):
    """Whatever slips past the locks, the database's deferred ordinal check is said as a
    refusal the screen shows."""
    editor = _user(django_user_model, "ed", "editor")
    target = ConceptFactory(taxonomy_id="isa.allowance")
    UnitFactory(concept=target)
    moving = UnitFactory(concept=ConceptFactory(taxonomy_id="isa.other"))

    def clashing(*, unit_ids):  # gives the moved unit the ordinal its new neighbour holds
        AtomicUnit.objects.filter(pk__in=unit_ids).update(ordinal=1)

    monkeypatch.setattr(taxonomy_services, "detector_checks_clear", clashing)
    with pytest.raises(TaxonomyChangeRefused, match="at the same time"):
        units_move(unit_ids=[moving.pk], concept_id=target.pk, user=editor)
    moving.refresh_from_db()
    assert moving.concept.taxonomy_id == "isa.other"
