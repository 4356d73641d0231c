"""superseding_report: precision by band from the experts' decisions, and the proposals
against the gold superseding chains."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from curation.models import SupersedingCandidate
from evaluation.superseding import (
    OTHER,
    OUTSIDE,
    SKIP,
    STEP,
    superseding_gold_check,
    superseding_quality,
)
from tests.factories import CategoryFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db
Status = SupersedingCandidate.Status


def candidate(
    *,
    cosine: float = 0.9,
    confidence: float = 0.8,
    status: str = Status.PENDING,
    similarity: float = 0.5,
    older=None,
    newer=None,
) -> SupersedingCandidate:
    concept = (older or newer).concept if (older or newer) else ConceptFactory()
    older = older or UnitFactory(concept=concept)
    newer = newer or UnitFactory(concept=concept)
    return SupersedingCandidate.objects.create(
        older=older,
        newer=newer,
        concept=concept,
        text_similarity=similarity,
        cosine=cosine,
        same_rule=True,
        confidence=confidence,
        rationale="r",
        adjudicator="heuristic",
        newer_basis="later valid_from",
        status=status,
        decided_at=None if status == Status.PENDING else timezone.now(),
    )


def test_precision_by_cosine_and_confidence_band():
    candidate(cosine=0.81, confidence=0.95, status=Status.APPROVED)
    candidate(cosine=0.84, confidence=0.45, status=Status.REJECTED)
    candidate(cosine=0.86, confidence=0.75, status=Status.FLAGGED)
    candidate(cosine=0.93, confidence=0.75, status=Status.PENDING)
    candidate(cosine=1.0, confidence=1.0, status=Status.APPROVED)
    report = superseding_quality()
    assert (report.proposals, report.decided, report.pending) == (5, 4, 1)
    cosine = {
        band.label: (band.correct, band.wrong, band.pending, band.precision)
        for band in report.by_cosine
    }
    assert cosine == {
        "0.80–0.85": (1, 1, 0, 0.5),
        "0.85–0.90": (1, 0, 0, 1.0),
        "0.90–0.95": (0, 0, 1, None),
        "0.95–1.00": (1, 0, 0, 1.0),  # 1.0 falls in the top band
    }
    confidence = {band.label: (band.correct, band.wrong) for band in report.by_confidence}
    assert confidence["0.00–0.50"] == (0, 1)
    assert confidence["0.70–0.80"] == (1, 0)  # the pending one is not counted
    assert confidence["0.90–1.00"] == (2, 0)
    assert "no recommendation yet (2 decided" in report.recommendations[0]


def test_recommends_raising_the_cosine_threshold_when_the_lowest_band_is_mostly_wrong():
    for index in range(10):
        candidate(cosine=0.82, status=Status.APPROVED if index == 0 else Status.REJECTED)
    line = superseding_quality().recommendations[0]
    assert line.startswith("SUPERSEDING_MIN_COSINE=0.80: raise it to 0.85")
    assert "10%" in line


def test_recommends_lowering_the_duplicate_cut_when_near_duplicates_were_flagged():
    for _ in range(10):
        candidate(similarity=0.96, status=Status.FLAGGED)
    line = superseding_quality().recommendations[1]
    assert line.startswith("SUPERSEDING_DUPLICATE_SIMILARITY=0.98: lower it to 0.95")


def test_the_report_says_so_when_there_is_nothing_to_report(tmp_path):
    out = StringIO()
    call_command("superseding_report", json_path=str(tmp_path / "r.json"), stdout=out)
    assert "No superseding proposals yet" in out.getvalue()
    figures = json.loads((tmp_path / "r.json").read_text())
    assert figures["quality"]["proposals"] == 0


# --- against the gold chains ------------------------------------------------------------------


def gold_file(tmp_path):
    values = [
        ("11850", "2018-04-06", "2019-04-05"),
        ("12500", "2019-04-06", "2021-04-05"),
        ("12570", "2021-04-06", None),
    ]
    fact = {
        "fact_id": "income_tax.personal_allowance",
        "category": "Income Tax",
        "unit": "GBP/year",
        "values": [
            {
                "value": int(value),
                "valid_from": start,
                "valid_to": end,
                "date_basis": "as_in_source",
            }
            for value, start, end in values
        ],
        "corpus_matches": [
            {
                "value": int(value),
                "valid_from": start,
                "printed": f"£{int(value):,}",
                "printed_as": "as stated",
                "period_consistent": True,
            }
            for value, start, _ in values
        ],
    }
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([fact]))
    return path


@pytest.fixture
def chain_units():
    income_tax = CategoryFactory(slug="income_tax", name="Income Tax")
    concept = ConceptFactory(category=income_tax)
    units = {
        amount: UnitFactory(
            concept=concept,
            unit_type="threshold",
            value_amount=Decimal(amount),
            value_unit="GBP",
            valid_from=dt.date(year, 4, 6),
        )
        for amount, year in (("11850", 2018), ("12500", 2019), ("12570", 2021), ("100", 2020))
    }
    elsewhere = ConceptFactory()
    units["other"] = UnitFactory(concept=elsewhere)
    units["other2"] = UnitFactory(concept=elsewhere)
    return units


def test_gold_check_scores_steps_recall_and_precision(tmp_path, chain_units):
    u = chain_units
    step = candidate(older=u["11850"], newer=u["12500"])
    candidate(older=u["11850"], newer=u["12570"])  # skips 12,500
    candidate(older=u["100"], newer=u["12570"])  # one end is no value of the chain
    candidate(older=u["other"], newer=u["other2"])  # nothing to do with the gold
    candidate(older=u["12500"], newer=u["100"], status=Status.REJECTED)  # not pending: ignored
    check = superseding_gold_check(gold_path=gold_file(tmp_path))
    assert [(s.older_value, s.newer_value, s.proposals) for s in check.steps] == [
        (Decimal(11850), Decimal(12500), (step.pk,)),
        (Decimal(12500), Decimal(12570), ()),
    ]
    assert (check.steps_found, check.steps_reachable, check.recall) == (1, 2, 0.5)
    assert check.proposals == 4
    assert check.by_kind[STEP] == 1 and check.by_kind[SKIP] == 1
    assert check.by_kind[OTHER] == 1 and check.by_kind[OUTSIDE] == 1
    assert check.precision_gold == 0.25
    assert check.precision_on_gold_facts == 0.5  # the step and the skip pair chain values


def test_report_command_with_a_gold_file(tmp_path, chain_units):
    candidate(older=chain_units["11850"], newer=chain_units["12500"])
    out = StringIO()
    call_command(
        "superseding_report",
        gold=str(gold_file(tmp_path)),
        sample=5,
        json_path=str(tmp_path / "r.json"),
        stdout=out,
    )
    text = out.getvalue()
    assert "11850 → 12500: found (1 proposals" in text
    assert "recall: 1/2 steps (50%)" in text
    figures = json.loads((tmp_path / "r.json").read_text())
    assert figures["gold"]["steps_found"] == 1
    assert figures["gold"]["precision_gold"] == 1.0


def test_report_command_refuses_a_missing_or_malformed_gold_file(tmp_path):
    with pytest.raises(CommandError, match="gold file not found"):
        call_command("superseding_report", gold=str(tmp_path / "none.json"), stdout=StringIO())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"fact_id": "x"}]))
    with pytest.raises(CommandError, match="unit: missing"):
        call_command("superseding_report", gold=str(bad), stdout=StringIO())
