"""The review queue's ranking: exposure read from the API's query log through curation's
seam, doubt from named reasons, score = exposure (floored) × doubt; the reviewed share of
what was served, overall, per category and per week; sending to triage and retiring from the
queue, audited and reverted."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from curation import exposure as exposure_seam
from curation.exposure import UnitExposure, unit_exposure
from curation.models import AuditEvent, AuditJudgement, AuditSample
from curation.selectors.unit_queue import (
    CategoryAudit,
    ServedShare,
    UnitFacts,
    approval_times,
    queue_rank,
    reviewed_share,
    reviewed_share_by_week,
    unit_doubt,
    unit_queue,
    week_share,
)
from curation.services.audit_sample import ANSWER_FIELDS
from curation.services.signoff import unit_signoff
from curation.services.triage import TriageRefused, unit_triage_send
from curation.services.unit_queue import (
    QueueChangeRefused,
    unit_queue_change_revert,
    unit_queue_retire,
)
from knowledge.models import AtomicUnit, ExtractionItem, ExtractionRun, QualityFlag
from navigator.models import QueryLog
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db

ALL_YES = dict.fromkeys(ANSWER_FIELDS, "yes")


def served(*responses: list[int], days_ago: float = 0) -> None:
    """Logged searches that served these units, in this order, `days_ago`."""
    for unit_ids in responses:
        row = QueryLog.objects.create(
            endpoint="/api/v1/search", status_code=200, result_units=list(unit_ids)
        )
        if days_ago:
            when = timezone.now() - dt.timedelta(days=days_ago)
            QueryLog.objects.filter(pk=row.pk).update(created_at=when)


def extracted_unit(concept, text: str, **fields) -> AtomicUnit:
    snapshot = SnapshotFactory(text=f"{text} Other words on the page.")
    run = ExtractionRun.objects.create(snapshot=snapshot, provider="heuristic", prompt_version="v1")
    return UnitFactory(
        concept=concept, snapshot=snapshot, extraction_run=run, evidence_quote=text, **fields
    )


@pytest.fixture
def kb(expert) -> dict[str, AtomicUnit]:
    return known_queue(expert)


def known_queue(expert) -> dict[str, AtomicUnit]:
    """Two categories; the served units' exposure and every unit's doubt are known:

    heur      ISAs  heuristic, pending          served 1st, 2nd, 3rd   1.8333 × 1.5  = 2.75
    misplaced tax   misplaced (0.14), pending   served 1st             1      × 2.15 = 2.15
    plain     tax   pending                     served 2nd, 2nd        1      × 1.4  = 1.4
    signed    ISAs  signed off                  served 3rd, 1st, 4th   1.5833 × 0.1  = 0.1583
    unconf    tax   heuristic, unconfirmed      served 40 days ago     0.01   × 2.9  = 0.029
    outdated  tax   ended 5 Apr 2021, pending   never                  0.01   × 1.9  = 0.019
    quiet     tax   signed off                  never                  0.01   × 0.1  = 0.001

    The tax category failed 2 of its 5 audit judgements (40%, doubt +0.4 when pending)."""
    isa = ConceptFactory(
        taxonomy_id="isa.allowance",
        name="ISA allowance",
        category=CategoryFactory(slug="isa", name="ISAs"),
    )
    tax = ConceptFactory(
        taxonomy_id="income_tax.personal_allowance",
        name="Personal Allowance",
        category=CategoryFactory(slug="income_tax", name="Income Tax"),
    )
    heuristic = AtomicUnit.Provider.HEURISTIC
    units = {
        "heur": extracted_unit(isa, "You can save up to £20,000 a year.", provider=heuristic),
        "signed": UnitFactory(concept=isa),
        "plain": UnitFactory(concept=tax),
        "misplaced": UnitFactory(concept=tax, provider=AtomicUnit.Provider.OPENAI),
        "unconf": UnitFactory(concept=tax, provider=heuristic, unconfirmed_at=timezone.now()),
        "outdated": UnitFactory(
            concept=tax, valid_from=dt.date(2020, 4, 6), valid_to=dt.date(2021, 4, 5)
        ),
        "quiet": UnitFactory(concept=tax),
    }
    for name in ("signed", "quiet"):
        unit_signoff(unit_id=units[name].pk, user=expert)
        units[name].refresh_from_db()
    QualityFlag.objects.create(
        unit=units["misplaced"], kind=QualityFlag.Kind.MISPLACED, reason="nearer", margin=0.14
    )
    sample = AuditSample.objects.create(seed=1, size=5, unit_ids=[])
    judged = ["plain", "misplaced", "unconf", "outdated", "quiet"]
    for index, name in enumerate(judged):
        answers = {**ALL_YES, "useful": "no"} if index < 2 else ALL_YES
        AuditJudgement.objects.create(
            sample=sample,
            unit=units[name],
            category=tax.category,
            judged_at=timezone.now(),
            **answers,
        )
    ids = {name: unit.pk for name, unit in units.items()}
    served(
        [ids["heur"], ids["plain"], ids["signed"]],
        [ids["signed"], ids["heur"]],
        [ids["misplaced"], ids["plain"], ids["heur"], ids["signed"]],
    )
    served([ids["unconf"]], days_ago=40)
    return units


def last_days(days: int) -> dict[int, UnitExposure]:
    now = timezone.now()
    return unit_exposure(since=now - dt.timedelta(days=days), until=now)


# --- exposure, through the seam the API registers ----------------------------------------------


def test_exposure_sums_one_over_rank_per_logged_response(kb):
    exposure = last_days(30)
    ids = {name: unit.pk for name, unit in kb.items()}
    assert set(exposure) == {ids["heur"], ids["plain"], ids["signed"], ids["misplaced"]}
    assert exposure[ids["heur"]] == UnitExposure(
        weight=pytest.approx(1 + 1 / 2 + 1 / 3), times=3, top=3
    )
    assert exposure[ids["signed"]] == UnitExposure(
        weight=pytest.approx(1 / 3 + 1 + 1 / 4), times=3, top=2
    )
    assert exposure[ids["plain"]] == UnitExposure(weight=1.0, times=2, top=2)
    assert last_days(60)[ids["unconf"]] == UnitExposure(weight=1.0, times=1, top=1)


def test_without_the_api_registering_its_log_nothing_was_served(kb, monkeypatch):
    monkeypatch.setattr(exposure_seam, "_reader", None)
    assert last_days(30) == {}


def test_responses_that_served_no_units_or_were_refused_add_nothing(db):
    QueryLog.objects.create(endpoint="/api/v1/search", status_code=200, result_concepts=["x"])
    QueryLog.objects.create(endpoint="/api/v1/search", status_code=401, repeats=9)
    assert last_days(1) == {}


# --- doubt and ranking (pure) ------------------------------------------------------------------


def test_each_reason_has_its_weight_and_words():
    facts = UnitFacts(
        unit_id=1,
        category_id=7,
        heuristic=True,
        misplaced=True,
        misplaced_margin=0.14,
        unconfirmed=True,
        ended_on=dt.date(2025, 4, 5),
    )
    reasons = unit_doubt(facts, audits={7: CategoryAudit(failed=2, judged=5)})
    assert [(r.code, r.weight) for r in reasons] == [
        ("machine_only", 1.0),
        ("heuristic", 0.5),
        ("misplaced", 0.75),
        ("audit_failures", pytest.approx(0.4)),
        ("unconfirmed", 1.0),
        ("outdated", 0.5),
    ]
    assert [r.words for r in reasons] == [
        "machine-only",
        "heuristic",
        "may belong to another concept (nearer by 0.14)",
        "its category failed 40% of audit judgements",
        "its page no longer states it",
        "its period ended 5 Apr 2025, nothing newer known",
    ]


def test_a_reviewed_unit_keeps_only_the_worlds_doubts():
    facts = UnitFacts(unit_id=1, category_id=7, approved=True, heuristic=True, unconfirmed=True)
    reasons = unit_doubt(facts, audits={7: CategoryAudit(failed=5, judged=5)})
    assert [(r.code, r.words) for r in reasons] == [
        ("reviewed", "signed off"),
        ("unconfirmed", "its page no longer states it"),
    ]
    corrected = UnitFacts(unit_id=2, approved=True, corrected=True)
    assert [r.words for r in unit_doubt(corrected, audits={})] == ["corrected by an expert"]


def test_score_is_exposure_times_doubt_with_a_floor_for_the_never_served():
    facts = [
        UnitFacts(unit_id=1, approved=True),  # served most, but reviewed: 3 × 0.1
        UnitFacts(unit_id=2),  # served once, second: 0.5 × 1
        UnitFacts(unit_id=3, heuristic=True),  # never served: 0.01 × 1.5
        UnitFacts(unit_id=4),  # never served: 0.01 × 1
        UnitFacts(unit_id=5, approved=True),  # never served: 0.01 × 0.1
    ]
    exposure = {1: UnitExposure(3.0, 3, 3), 2: UnitExposure(0.5, 1, 1)}
    ranked = queue_rank(facts, exposure=exposure, audits={})
    assert [e.unit_id for e in ranked] == [2, 1, 3, 4, 5]
    assert [round(e.score, 4) for e in ranked] == [0.5, 0.3, 0.015, 0.01, 0.001]


# --- the queue on a known log ------------------------------------------------------------------


def test_the_queue_is_ordered_as_computed(kb):
    ranked = unit_queue(exposure=last_days(30), today=timezone.localdate())
    names = {unit.pk: name for name, unit in kb.items()}
    order = ["heur", "misplaced", "plain", "signed", "unconf", "outdated", "quiet"]
    assert [names[e.unit_id] for e in ranked] == order
    scores = [2.75, 2.15, 1.4, 0.1583, 0.029, 0.019, 0.001]
    assert [round(e.score, 4) for e in ranked] == scores
    by_name = {names[e.unit_id]: [r.code for r in e.reasons] for e in ranked}
    assert by_name["misplaced"] == ["machine_only", "misplaced", "audit_failures"]
    assert by_name["outdated"] == ["machine_only", "audit_failures", "outdated"]
    assert by_name["signed"] == ["reviewed"]


def test_a_longer_window_brings_what_was_served_earlier_to_the_top(kb):
    ranked = unit_queue(exposure=last_days(60), today=timezone.localdate())
    assert ranked[0].unit_id == kb["unconf"].pk and round(ranked[0].score, 4) == 2.9


def test_units_out_of_the_knowledge_base_leave_the_queue(kb, expert):
    unit_queue_retire(unit_id=kb["heur"].pk, user=expert, reason="two rules in one")
    ranked = unit_queue(exposure=last_days(30), today=timezone.localdate())
    assert kb["heur"].pk not in [e.unit_id for e in ranked] and len(ranked) == 6


# --- the reviewed share of what was served -----------------------------------------------------


def test_the_reviewed_share_is_weighted_by_exposure_overall_and_per_category(kb):
    overall, by_category = reviewed_share(exposure=last_days(30))
    signed, total = 1 / 3 + 1 + 1 / 4, (1 + 1 / 2 + 1 / 3) + 1.0 + (1 / 3 + 1 + 1 / 4) + 1.0
    assert overall.reviewed == pytest.approx(signed) and overall.served == pytest.approx(total)
    assert overall.percent == 29
    assert [(c.slug, c.share.percent) for c in by_category] == [("isa", 46), ("income_tax", 0)]
    assert by_category[1].share.served == pytest.approx(2.0)


def test_a_week_counts_a_unit_reviewed_only_once_it_was_signed_off(kb):
    signed_at = timezone.now() - dt.timedelta(days=10)
    AuditEvent.objects.filter(action="signoff.unit", target_id=kb["signed"].pk).update(
        created_at=signed_at
    )
    since = approval_times(unit_ids=[kb["signed"].pk, kb["heur"].pk, kb["quiet"].pk])
    assert since == {kb["signed"].pk: signed_at, kb["quiet"].pk: since[kb["quiet"].pk]}
    week = {kb["signed"].pk: UnitExposure(1.0, 1, 1), kb["heur"].pk: UnitExposure(3.0, 3, 3)}
    assert week_share(week, since, end=signed_at) == ServedShare(reviewed=0, served=4.0)
    after = signed_at + dt.timedelta(seconds=1)
    assert week_share(week, since, end=after).fraction == 0.25
    now = timezone.now()
    weeks = [(now - dt.timedelta(days=21), now - dt.timedelta(days=14), week), (now, now, {})]
    shares = reviewed_share_by_week(weeks=weeks)
    assert [s.share.fraction for s in shares] == [0.0, None]


# --- sending to triage and retiring from the queue ---------------------------------------------


def test_triage_from_the_queue_is_audited_and_undone(kb, expert):
    event = unit_triage_send(unit_id=kb["heur"].pk, user=expert, reason="two rules")
    heur = AtomicUnit.objects.get(pk=kb["heur"].pk)
    item = ExtractionItem.objects.get()
    assert heur.deleted_at is not None and event.action == "triage.send"
    assert item.reason == "From the review queue: two rules" and item.reason_code == "review_queue"
    assert event.summary == f"Unit {heur.pk} sent to triage from the review queue (item {item.pk})"
    with pytest.raises(TriageRefused, match="has left the knowledge base"):
        unit_triage_send(unit_id=heur.pk, user=expert, reason="again")
    unit_queue_change_revert(event_id=event.pk, user=expert)
    assert AtomicUnit.objects.get(pk=heur.pk).deleted_at is None
    assert not ExtractionItem.objects.exists()


def test_a_hand_entered_unit_is_retired_not_triaged(kb, expert):
    with pytest.raises(TriageRefused, match="move it instead"):
        unit_triage_send(unit_id=kb["plain"].pk, user=expert, reason="wrong")
    with pytest.raises(QueueChangeRefused, match="reason: say why"):
        unit_queue_retire(unit_id=kb["plain"].pk, user=expert, reason=" ")
    event = unit_queue_retire(unit_id=kb["plain"].pk, user=expert, reason="navigation text")
    plain, misplaced = (AtomicUnit.objects.get(pk=kb[n].pk) for n in ("plain", "misplaced"))
    assert plain.deleted_at is not None and plain.ordinal is None and misplaced.ordinal == 1
    assert event.action == "queue.retire" and event.note == "navigation text"
    unit_queue_change_revert(event_id=event.pk, user=expert)
    plain.refresh_from_db()
    misplaced.refresh_from_db()
    assert plain.deleted_at is None and (plain.ordinal, misplaced.ordinal) == (1, 2)
    assert AuditEvent.objects.filter(action="queue.retire.revert").count() == 1


def test_only_experts_send_to_triage_or_retire_from_the_queue(kb, editor):
    with pytest.raises(PermissionDenied):
        unit_triage_send(unit_id=kb["heur"].pk, user=editor, reason="x")
    with pytest.raises(PermissionDenied):
        unit_queue_retire(unit_id=kb["plain"].pk, user=editor, reason="x")
    assert not AtomicUnit.objects.filter(deleted_at__isnull=False).exists()


def test_the_queue_undoes_its_sign_offs_and_nothing_else(kb, expert, editor):
    event = unit_signoff(unit_id=kb["plain"].pk, user=expert)
    unit_queue_change_revert(event_id=event.pk, user=expert)
    assert AtomicUnit.objects.get(pk=kb["plain"].pk).review_status == "pending"
    judged = AuditEvent.objects.create(action="audit.judge", target_type="auditsample", target_id=1)
    with pytest.raises(QueueChangeRefused, match="only sign-offs"):
        unit_queue_change_revert(event_id=judged.pk, user=expert)
    with pytest.raises(PermissionDenied):
        unit_queue_change_revert(event_id=event.pk, user=editor)
