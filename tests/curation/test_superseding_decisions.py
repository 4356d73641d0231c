"""Experts' decisions on superseding pairs: effects, chains, audit, revert, concurrency, rights."""

import datetime as dt
import threading

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, connection, transaction

from curation.models import AuditEvent, SupersedingCandidate
from curation.services.audit import RevertRefused
from curation.services.superseding import (
    AlreadyDecided,
    DecisionRefused,
    candidate_approve,
    candidate_flag_for_deletion,
    candidate_reject,
    candidates_approve_bulk,
    decision_revert,
)
from knowledge.models import AtomicUnit
from tests.factories import CandidateFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db

FIELDS = ("ordinal", "superseded_by_id", "superseded_date", "deleted_at", "deleted_by_id")


def _states(*units):
    return [
        tuple(getattr(AtomicUnit.objects.get(pk=unit.pk), name) for name in FIELDS)
        for unit in units
    ]


def test_approve_makes_the_older_unit_historical_from_the_newer_start(expert):
    candidate = CandidateFactory(note="")
    candidate_approve(candidate_id=candidate.pk, user=expert, note="new tax year")
    older = AtomicUnit.objects.get(pk=candidate.older_id)
    assert older.superseded_by_id == candidate.newer_id
    assert older.superseded_date == dt.date(2025, 4, 6)
    assert older.temporal_status_on(dt.date(2025, 5, 1)).value == "historical"
    assert older.temporal_status_on(dt.date(2024, 5, 1)).value == "current"
    candidate.refresh_from_db()
    assert (candidate.status, candidate.reviewer, candidate.note) == (
        "approved",
        expert,
        "new tax year",
    )
    event = AuditEvent.objects.get(action="candidate.approved")
    assert event.actor == expert and event.target_id == candidate.pk
    assert event.before["unit"][str(older.pk)] == {"superseded_by": None, "superseded_date": None}
    assert event.after["unit"][str(older.pk)]["superseded_date"] == "2025-04-06"
    assert event.before["candidate"][str(candidate.pk)]["status"] == "pending"


def test_approve_without_a_newer_start_dates_the_superseding_on_the_decision(expert):
    older = UnitFactory()
    candidate = CandidateFactory(older=older, newer=UnitFactory(concept=older.concept))
    candidate_approve(candidate_id=candidate.pk, user=expert)
    older.refresh_from_db()
    assert older.superseded_date == dt.date.today()


def test_reject_is_remembered_and_changes_no_unit(expert):
    candidate = CandidateFactory()
    before = _states(candidate.older, candidate.newer)
    candidate_reject(candidate_id=candidate.pk, user=expert, note="different allowances")
    assert _states(candidate.older, candidate.newer) == before
    candidate.refresh_from_db()
    assert candidate.status == "rejected"
    # The pair cannot be proposed again, either way round.
    with pytest.raises(IntegrityError), transaction.atomic():
        CandidateFactory(older=candidate.newer, newer=candidate.older)


def test_flag_for_deletion_removes_the_older_unit_and_renumbers(expert):
    concept = ConceptFactory()
    first = UnitFactory(concept=concept, valid_from=dt.date(2023, 4, 6))
    second = UnitFactory(concept=concept, valid_from=dt.date(2024, 4, 6))
    third = UnitFactory(concept=concept, valid_from=dt.date(2025, 4, 6))
    candidate = CandidateFactory(older=first, newer=third)
    candidate_flag_for_deletion(candidate_id=candidate.pk, user=expert, note="bad extraction")
    first.refresh_from_db(), second.refresh_from_db(), third.refresh_from_db()
    assert first.deleted_at is not None and first.deleted_by == expert and first.ordinal is None
    assert (second.ordinal, third.ordinal) == (1, 2)
    assert AtomicUnit.objects.alive().filter(concept=concept).count() == 2


@pytest.mark.parametrize(
    "decide", [candidate_approve, candidate_reject, candidate_flag_for_deletion]
)
def test_revert_restores_the_units_exactly_and_the_pair_is_pending_again(expert, decide):
    concept = ConceptFactory()
    units = [UnitFactory(concept=concept, valid_from=dt.date(2020 + n, 4, 6)) for n in range(3)]
    candidate = CandidateFactory(older=units[0], newer=units[2])
    before = _states(*units)
    decide(candidate_id=candidate.pk, user=expert, note="x")
    assert _states(*units) != before or decide is candidate_reject
    event = AuditEvent.objects.get(target_id=candidate.pk, reverts=None)
    revert = decision_revert(event_id=event.pk, user=expert)
    assert _states(*units) == before
    candidate.refresh_from_db()
    assert (candidate.status, candidate.reviewer, candidate.decided_at, candidate.note) == (
        "pending",
        None,
        None,
        "",
    )
    assert revert.reverts == event and revert.actor == expert
    with pytest.raises(RevertRefused, match="reverted already"):
        decision_revert(event_id=event.pk, user=expert)
    decide(candidate_id=candidate.pk, user=expert)  # decidable again


def test_revert_is_refused_when_a_later_change_touched_the_same_unit(expert):
    candidate = CandidateFactory()
    candidate_approve(candidate_id=candidate.pk, user=expert)
    event = AuditEvent.objects.get(action="candidate.approved")
    AtomicUnit.objects.filter(pk=candidate.older_id).update(superseded_date=dt.date(2025, 5, 1))
    with pytest.raises(RevertRefused, match="has changed since"):
        decision_revert(event_id=event.pk, user=expert)
    assert AtomicUnit.objects.get(pk=candidate.older_id).superseded_by_id == candidate.newer_id


def test_a_second_decision_on_the_same_pair_is_told_who_decided(expert, django_user_model):
    from django.contrib.auth.models import Group

    other = django_user_model.objects.create_user("expert2", password="pw-123456")
    other.groups.add(Group.objects.get(name="domain expert"))
    candidate = CandidateFactory()
    candidate_reject(candidate_id=candidate.pk, user=expert)
    with pytest.raises(AlreadyDecided, match="already rejected by expert1"):
        candidate_approve(candidate_id=candidate.pk, user=other)
    assert AtomicUnit.objects.get(pk=candidate.older_id).superseded_by_id is None


@pytest.mark.django_db(transaction=True)
def test_two_experts_deciding_at_once_exactly_one_decision_applies(django_user_model):
    from django.contrib.auth.models import Group

    group = Group.objects.get(name="domain expert")
    experts = []
    for name in ("alice", "bob"):
        user = django_user_model.objects.create_user(name, password="pw-123456")
        user.groups.add(group)
        experts.append(user)
    candidate = CandidateFactory()
    barrier = threading.Barrier(2)
    results: dict[str, object] = {}

    def decide(user, action):
        try:
            barrier.wait(timeout=10)
            action(candidate_id=candidate.pk, user=user)
            results[user.username] = "applied"
        except AlreadyDecided as exc:
            results[user.username] = exc
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(experts[0], candidate_approve)),
        threading.Thread(target=decide, args=(experts[1], candidate_flag_for_deletion)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(type(r).__name__ for r in results.values()) == ["AlreadyDecided", "str"]
    candidate.refresh_from_db()
    winner = candidate.reviewer.username
    loser = next(name for name in results if name != winner)
    assert f"by {winner}" in str(results[loser])
    older = AtomicUnit.objects.get(pk=candidate.older_id)
    if candidate.status == "approved":
        assert older.superseded_by_id == candidate.newer_id and older.deleted_at is None
    else:
        assert older.deleted_at is not None and older.superseded_by_id is None
    assert AuditEvent.objects.filter(target_id=candidate.pk).count() == 1


def test_only_domain_experts_may_decide_or_revert(expert, editor, superuser):
    from django.contrib.auth.models import AnonymousUser

    candidate = CandidateFactory()
    for user in (editor, AnonymousUser(), None):
        with pytest.raises(PermissionDenied):
            candidate_approve(candidate_id=candidate.pk, user=user)
    candidate_approve(candidate_id=candidate.pk, user=expert)
    event = AuditEvent.objects.get()
    with pytest.raises(PermissionDenied):
        decision_revert(event_id=event.pk, user=editor)
    assert SupersedingCandidate.objects.get().reviewer == expert


def test_a_chain_grows_one_link_at_a_time(expert):
    concept = ConceptFactory()
    y23, y24, y25 = (
        UnitFactory(concept=concept, valid_from=dt.date(y, 4, 6)) for y in (2023, 2024, 2025)
    )
    candidate_approve(candidate_id=CandidateFactory(older=y24, newer=y25).pk, user=expert)
    skip_link = CandidateFactory(older=y23, newer=y25)
    with pytest.raises(DecisionRefused, match="already replaces"):
        candidate_approve(candidate_id=skip_link.pk, user=expert)
    skip_link.refresh_from_db()
    assert skip_link.status == "pending"  # the refused decision left nothing behind
    candidate_approve(candidate_id=CandidateFactory(older=y23, newer=y24).pk, user=expert)
    y23.refresh_from_db()
    assert (y23.superseded_by, y23.superseded_date) == (y24, dt.date(2024, 4, 6))


def test_the_database_refuses_overlapping_periods_in_a_chain(expert):
    concept = ConceptFactory()
    older = UnitFactory(
        concept=concept, valid_from=dt.date(2024, 4, 6), valid_to=dt.date(2026, 4, 5)
    )
    newer = UnitFactory(concept=concept, valid_from=dt.date(2025, 4, 6))
    candidate = CandidateFactory(older=older, newer=newer)
    with pytest.raises(DecisionRefused, match="overlaps"):
        candidate_approve(candidate_id=candidate.pk, user=expert)
    assert SupersedingCandidate.objects.get().status == "pending"
    with pytest.raises(IntegrityError, match="overlaps"), transaction.atomic():
        AtomicUnit.objects.filter(pk=older.pk).update(superseded_by=newer)


def test_the_database_refuses_a_cycle():
    concept = ConceptFactory()
    a, b, c = (UnitFactory(concept=concept) for _ in range(3))
    AtomicUnit.objects.filter(pk=a.pk).update(superseded_by=b)
    AtomicUnit.objects.filter(pk=b.pk).update(superseded_by=c)
    with pytest.raises(IntegrityError, match="cycle"), transaction.atomic():
        AtomicUnit.objects.filter(pk=c.pk).update(superseded_by=a)


def test_bulk_approve_reports_what_it_skipped(expert):
    concept = ConceptFactory()
    y23, y24, y25 = (
        UnitFactory(concept=concept, valid_from=dt.date(y, 4, 6)) for y in (2023, 2024, 2025)
    )
    good = CandidateFactory(older=y24, newer=y25)
    conflicting = CandidateFactory(older=y23, newer=y25)
    decided = CandidateFactory(
        older=UnitFactory(concept=concept), newer=UnitFactory(concept=concept)
    )
    candidate_reject(candidate_id=decided.pk, user=expert)
    outcome = candidates_approve_bulk(
        candidate_ids=[good.pk, conflicting.pk, decided.pk, 999999], user=expert
    )
    assert outcome.approved == [good.pk]
    assert set(outcome.skipped) == {conflicting.pk, decided.pk, 999999}
    assert "already rejected" in outcome.skipped[decided.pk]


def test_a_pair_with_a_removed_unit_cannot_be_approved(expert):
    concept = ConceptFactory()
    older, newer = UnitFactory(concept=concept), UnitFactory(concept=concept)
    third = UnitFactory(concept=concept)
    candidate_flag_for_deletion(
        candidate_id=CandidateFactory(older=older, newer=third).pk, user=expert
    )
    late = CandidateFactory(older=older, newer=newer)
    with pytest.raises(DecisionRefused, match="removed"):
        candidate_approve(candidate_id=late.pk, user=expert)


def test_a_too_long_note_is_refused(expert):
    candidate = CandidateFactory()
    with pytest.raises(DecisionRefused, match="note"):
        candidate_reject(candidate_id=candidate.pk, user=expert, note="x" * 2001)
    assert SupersedingCandidate.objects.get().status == "pending"
