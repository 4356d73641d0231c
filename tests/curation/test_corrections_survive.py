"""An expert's corrections outlive the machine: extraction again with the real heuristic
provider over the fixture corpus, then a new version of the corrected unit's page."""

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from curation.services.dedup import shared_quote_groups
from curation.services.signoff import unit_signoff
from curation.services.units import unit_correct
from knowledge import govuk
from knowledge.models import AtomicUnit
from knowledge.services import ingest
from tests.knowledge.test_extract import fixture_corpus as fixture_corpus  # the fixture

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
FIELDS = ("text", "unit_type", "valid_from", "valid_to", "validity_basis", "evidence_quote")


def state(unit: AtomicUnit) -> tuple:
    unit.refresh_from_db()
    return tuple(getattr(unit, field) for field in FIELDS)


def overlapping(unit: AtomicUnit) -> list[int]:
    return list(
        AtomicUnit.objects.alive()
        .filter(snapshot=unit.snapshot, evidence_start__lt=unit.evidence_end)
        .filter(evidence_end__gt=unit.evidence_start)
        .exclude(pk=unit.pk)
        .values_list("pk", flat=True)
    )


def test_a_correction_survives_extraction_again_and_a_new_page_version(
    fixture_corpus, expert, tmp_path
):
    call_command("extract", all=True, quiet_progress=True, stdout=StringIO())
    pension = AtomicUnit.objects.alive().get(value_amount=Decimal("221.20"))
    page = pension.snapshot.text
    widened_end = page.index(".", pension.evidence_end + 1) + 1  # and the sentence after it
    unit_correct(
        unit_id=pension.pk,
        user=expert,
        text="The full new State Pension is £221.20 a week in the 2024 to 2025 tax year; "
        "what you get depends on your National Insurance record.",
        evidence_end=widened_end,
        validity_basis="set by an expert",
    )
    corrected = state(pension)
    signed = AtomicUnit.objects.alive().filter(concept__category__slug="isa").first()
    unit_signoff(unit_id=signed.pk, user=expert)
    groups_before = len(shared_quote_groups())

    out = StringIO()
    call_command("extract", all=True, again=True, quiet_progress=True, stdout=out)

    # the corrected unit and the signed-off one
    assert "2 experts' units kept as they left them" in out.getvalue()
    assert state(pension) == corrected and pension.deleted_at is None
    assert overlapping(pension) == []  # no live unit shares or overlaps its quote
    assert AtomicUnit.objects.get(pk=signed.pk).deleted_at is None
    assert len(shared_quote_groups()) <= groups_before

    # A new version of the page no longer says the sentence the expert's quote took in.
    data = json.loads((FIXTURES / "new-state-pension--2024-25.json").read_text())
    assert pension.evidence_quote.endswith("depends on your National Insurance record.")
    body = data["details"]["parts"][0]["body"]
    start = body.index("<p>The amount you get depends")
    data["details"]["parts"][0]["body"] = body[:start] + body[body.index("</p>", start) + 4 :]
    data["public_updated_at"] = "2024-10-01T09:00:00+01:00"
    (tmp_path / "new-state-pension--later.json").write_text(json.dumps(data))
    stored = ingest.page_store(
        document=govuk.LocalDirectorySource(tmp_path).fetch("new-state-pension--later.json")
    )
    assert stored.outcome == ingest.Outcome.CHANGED
    pension.refresh_from_db()
    assert pension.unconfirmed_at is not None, "unconfirmed, not rewritten"
    assert state(pension) == corrected and pension.corrected_by == expert
