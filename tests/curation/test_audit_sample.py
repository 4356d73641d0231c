"""Audit samples: the seeded stratified draw, Wilson intervals, judgements audited and
reverted, fixes from the audit (move, send to triage) audited and revertible, who may."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management import call_command

from curation.models import AuditEvent, AuditJudgement
from curation.selectors.audit_sample import audit_results, wilson_interval
from curation.services.audit_sample import (
    ANSWER_FIELDS,
    AuditRefused,
    audit_change_revert,
    audit_unit_move,
    audit_unit_triage,
    judgement_record,
    sample_draw,
    stratified_quotas,
)
from curation.services.taxonomy import taxonomy_change_revert
from knowledge.models import AtomicUnit, ExtractionItem, ExtractionRun
from knowledge.services.extract import proposal_from_item, proposal_from_unit
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db

ALL_YES = dict.fromkeys(ANSWER_FIELDS, "yes")


def knowledge_base(sizes: dict[str, int]) -> dict[str, list[AtomicUnit]]:
    units = {}
    for slug, size in sizes.items():
        concept = ConceptFactory(category=CategoryFactory(slug=slug, name=slug.title()))
        units[slug] = [UnitFactory(concept=concept) for _ in range(size)]
    return units


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_matches_known_values(successes, n, low, high):
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_quotas_are_proportional_with_one_per_stratum():
    assert stratified_quotas({"a": 80, "b": 15, "c": 5}, 10) == {"a": 8, "b": 1, "c": 1}
    assert stratified_quotas({"a": 98, "b": 1, "c": 1}, 10) == {"a": 8, "b": 1, "c": 1}
    assert stratified_quotas({"a": 5, "b": 3}, 100) == {"a": 5, "b": 3}
    assert stratified_quotas({"a": 5, "b": 3, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}


def test_the_draw_is_stratified_and_repeats_for_a_seed(expert):
    units = knowledge_base({"isa": 12, "pensions": 6, "vat": 2})
    first = sample_draw(size=10, seed=42, user=expert)
    again = sample_draw(size=10, seed=42, user=expert)
    other = sample_draw(size=10, seed=7, user=expert)
    assert first.unit_ids == again.unit_ids
    assert first.unit_ids != other.unit_ids
    assert len(set(first.unit_ids)) == 10
    assert first.stratification == {
        "isa": {"live": 12, "drawn": 6},
        "pensions": {"live": 6, "drawn": 3},
        "vat": {"live": 2, "drawn": 1},
    }
    isa = {u.pk for u in units["isa"]}
    assert sum(pk in isa for pk in first.unit_ids) == 6


def test_the_draw_leaves_removed_units_out_and_filters(expert):
    units = knowledge_base({"isa": 3, "vat": 3})
    AtomicUnit.objects.filter(pk=units["isa"][0].pk).update(deleted_at="2026-01-01T00:00Z")
    sample = sample_draw(size=50, seed=1, user=expert)
    assert units["isa"][0].pk not in sample.unit_ids and len(sample.unit_ids) == 5
    vat = units["vat"][0].concept.category
    only_vat = sample_draw(size=50, seed=1, user=expert, category_id=vat.pk)
    assert sorted(only_vat.unit_ids) == sorted(u.pk for u in units["vat"])
    with pytest.raises(AuditRefused):
        sample_draw(size=5, seed=1, user=expert, provider="openai")


def test_only_experts_and_editors_audit(expert, editor):
    knowledge_base({"isa": 2})
    staff = get_user_model().objects.create_user("staff", password="pw-123456", is_staff=True)
    with pytest.raises(PermissionDenied):
        sample_draw(size=1, seed=1, user=staff)
    sample = sample_draw(size=1, seed=1, user=editor)
    with pytest.raises(PermissionDenied):
        judgement_record(
            sample_id=sample.pk, unit_id=sample.unit_ids[0], answers=ALL_YES, user=staff
        )
    with pytest.raises(PermissionDenied):  # moving is the editors' service
        audit_unit_move(
            sample_id=sample.pk,
            unit_id=sample.unit_ids[0],
            concept_id=ConceptFactory().pk,
            user=expert,
        )


def test_a_judgement_is_audited_replaced_and_reverted(expert):
    knowledge_base({"isa": 3})
    sample = sample_draw(size=3, seed=3, user=expert)
    unit_id = sample.unit_ids[0]
    created = judgement_record(sample_id=sample.pk, unit_id=unit_id, answers=ALL_YES, user=expert)
    assert created.action == "audit.judge" and "right on every count" in created.summary
    replaced = judgement_record(
        sample_id=sample.pk,
        unit_id=unit_id,
        answers={**ALL_YES, "useful": "no"},
        user=expert,
        note="navigation text",
    )
    judgement = AuditJudgement.objects.get(sample=sample, unit_id=unit_id)
    assert judgement.useful == "no" and judgement.note == "navigation text"
    audit_change_revert(event_id=replaced.pk, user=expert)
    judgement.refresh_from_db()
    assert judgement.useful == "yes" and judgement.note == ""
    audit_change_revert(event_id=created.pk, user=expert)
    assert not AuditJudgement.objects.exists()
    with pytest.raises(AuditRefused):
        judgement_record(
            sample_id=sample.pk, unit_id=unit_id, answers={"useful": "yes"}, user=expert
        )


def test_results_per_question_and_group(expert):
    knowledge_base({"isa": 2, "vat": 2})
    sample = sample_draw(size=4, seed=5, user=expert)
    answers = [ALL_YES, {**ALL_YES, "value_right": "na"}, {**ALL_YES, "useful": "no"}, ALL_YES]
    for unit_id, given in zip(sample.unit_ids, answers, strict=True):
        judgement_record(sample_id=sample.pk, unit_id=unit_id, answers=given, user=expert)
    results = audit_results(sample_id=sample.pk)
    value, useful, every = (results.overall.estimates[i] for i in (3, 5, 6))
    assert (value.successes, value.n) == (3, 3)
    assert (useful.successes, useful.n) == (3, 4)
    assert (every.successes, every.n) == (3, 4)
    assert [row.label for row in results.by_category] == ["Isa", "Vat"]
    assert [row.label for row in results.by_provider] == ["Entered by an editor"]
    assert results.over_time[0][1].n == 4


def test_a_move_from_the_audit_is_the_audited_move(editor):
    units = knowledge_base({"isa": 1})
    target = ConceptFactory(category=units["isa"][0].concept.category)
    sample = sample_draw(size=1, seed=1, user=editor)
    event = audit_unit_move(
        sample_id=sample.pk, unit_id=sample.unit_ids[0], concept_id=target.pk, user=editor
    )
    assert event.action == "unit.move" and event.note == f"from audit sample {sample.pk}"
    assert AtomicUnit.objects.get(pk=sample.unit_ids[0]).concept == target
    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert AtomicUnit.objects.get(pk=sample.unit_ids[0]).concept == units["isa"][0].concept


def extracted_units(count: int) -> list[AtomicUnit]:
    snapshot = SnapshotFactory(text="You can save up to £20,000 a year in ISAs. Other text here.")
    run = ExtractionRun.objects.create(snapshot=snapshot, provider="heuristic", prompt_version="v1")
    concept = ConceptFactory(taxonomy_id="isa.annual_allowance")
    return [
        UnitFactory(concept=concept, snapshot=snapshot, extraction_run=run, evidence_quote=q)
        for q in ("You can save up to £20,000 a year in ISAs.", "Other text here.")[:count]
    ]


def test_sending_to_triage_takes_the_unit_out_and_reverts(expert):
    first, second = extracted_units(2)
    sample = sample_draw(size=2, seed=1, user=expert)
    event = audit_unit_triage(
        sample_id=sample.pk, unit_id=first.pk, user=expert, reason="two rules"
    )
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.deleted_at is not None and first.ordinal is None and second.ordinal == 1
    item = ExtractionItem.objects.get()
    assert item.status == "open" and item.kind == "unassigned"
    assert item.proposal["concept_id"] == "isa.annual_allowance"
    assert proposal_from_item(item) == proposal_from_unit(first)  # what the unit said, whole
    assert event.action == "triage.send"
    with pytest.raises(AuditRefused):
        audit_unit_triage(sample_id=sample.pk, unit_id=first.pk, user=expert, reason="again")
    audit_change_revert(event_id=event.pk, user=expert)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.deleted_at is None and (first.ordinal, second.ordinal) == (1, 2)
    assert not ExtractionItem.objects.exists()
    assert AuditEvent.objects.filter(action="triage.send.revert").count() == 1


def test_a_hand_entered_unit_is_moved_not_triaged(expert):
    knowledge_base({"isa": 1})
    sample = sample_draw(size=1, seed=1, user=expert)
    with pytest.raises(AuditRefused, match="move it instead"):
        audit_unit_triage(sample_id=sample.pk, unit_id=sample.unit_ids[0], user=expert, reason="x")


def test_the_report_command_prints_and_writes_json(expert, tmp_path, capsys):
    knowledge_base({"isa": 2})
    sample = sample_draw(size=2, seed=1, user=expert)
    judgement_record(sample_id=sample.pk, unit_id=sample.unit_ids[0], answers=ALL_YES, user=expert)
    out = tmp_path / "audit.json"
    call_command("audit_report", "--sample", str(sample.pk), "--json", str(out))
    printed = capsys.readouterr().out
    assert "Per question" in printed and "Per category" in printed and "Isa" in printed
    assert '"every_count"' in out.read_text()


def test_a_note_or_reason_postgresql_cannot_store_is_refused_naming_it(expert):
    (unit,) = extracted_units(1)
    sample = sample_draw(size=1, seed=1, user=expert)
    with pytest.raises(AuditRefused, match="note: must not contain a NUL"):
        judgement_record(
            sample_id=sample.pk, unit_id=unit.pk, answers=ALL_YES, user=expert, note="a\x00b"
        )
    with pytest.raises(AuditRefused, match="reason: must not contain a NUL"):
        audit_unit_triage(sample_id=sample.pk, unit_id=unit.pk, user=expert, reason="a\x00b")
    with pytest.raises(AuditRefused, match="reason: say what is wrong"):
        audit_unit_triage(sample_id=sample.pk, unit_id=unit.pk, user=expert, reason="  ")
    assert not AuditJudgement.objects.exists() and not ExtractionItem.objects.exists()
