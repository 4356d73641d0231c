"""Extraction end to end: validation before storing, idempotency, superseded snapshots."""

from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import (
    AtomicUnit,
    ExtractionItem,
    ExtractionRun,
    IngestItem,
    PageSnapshot,
    QualityFlag,
    Source,
)
from knowledge.providers import PageContext, UnitProposal, Usage
from knowledge.services import extract, ingest
from knowledge.services.taxonomy import taxonomy_load_file
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"


class ScriptedProvider:
    """A provider that answers what the test says (the service's validation is under test)."""

    name = "heuristic"
    prompt_version = "test-v1"

    def __init__(self, units: list[UnitProposal], category="isa"):
        self.units, self.category, self.calls = units, category, 0

    def page_context(self, *, page, categories, concepts):
        self.calls += 1
        return PageContext(
            domain="d", audience="a", period=None, category=self.category, related_categories=[]
        ), Usage()

    def extract_units(self, *, page, context, concepts):
        self.calls += 1
        return [UnitProposal(**vars(unit)) for unit in self.units], Usage()


PAGE = "How ISAs work\nEvery tax year you can save up to £20,000 in one account.\nYou’re allowed one Lifetime ISA."


@pytest.fixture
def isa_page():
    category = CategoryFactory(slug="isa", name="ISAs")
    ConceptFactory(category=category, taxonomy_id="isa.annual_allowance")
    ConceptFactory(category=category, taxonomy_id="isa.lifetime.rules")
    return SnapshotFactory(text=PAGE)


def unit(**overrides) -> UnitProposal:
    values = {
        "unit_type": "threshold",
        "text": "You can save up to £20,000 a tax year.",
        "concept_id": "isa.annual_allowance",
        "evidence_quote": "you can save up to £20,000 in one account",
        "value_amount": Decimal("20000"),
        "value_unit": "GBP",
        "value_period": "year",
    }
    values.update(overrides)
    return UnitProposal(**values)


def test_valid_units_are_stored_with_verified_offsets(isa_page):
    run = extract.snapshot_extract(snapshot_id=isa_page.pk, provider=ScriptedProvider([unit()]))
    assert run.status == ExtractionRun.Status.SUCCEEDED and run.units_made == 1
    stored = AtomicUnit.objects.get()
    assert isa_page.text[stored.evidence_start : stored.evidence_end] == stored.evidence_quote
    assert stored.evidence_verified and stored.ordinal == 1 and stored.provider == "heuristic"


@pytest.mark.parametrize(
    "bad,reason_code",
    [
        ({"concept_id": "isa.no_such_thing"}, "unknown_concept"),
        (
            {"evidence_quote": "You can save £25,000 in a year in any ISA at all."},
            "quote_not_found",
        ),
        ({"valid_from": "2025-04-06", "valid_to": "2024-04-05"}, "reversed_dates"),
        ({"valid_from": "6 April 2024"}, "bad_date"),
        ({"valid_to": "2150-01-01"}, "bad_date"),
        ({"unit_type": "opinion"}, "bad_type"),
        ({"value_unit": None}, "amount_without_unit"),
    ],
)
def test_invalid_proposals_are_kept_as_rejected_items_with_reasons(isa_page, bad, reason_code):
    run = extract.snapshot_extract(
        snapshot_id=isa_page.pk,
        provider=ScriptedProvider(
            [unit(**bad), unit(text="Other", evidence_quote="one Lifetime ISA")]
        ),
    )
    item = ExtractionItem.objects.get()
    assert (item.kind, item.reason_code) == ("rejected", reason_code)
    assert item.proposal["text"]
    assert AtomicUnit.objects.count() == 1 and run.units_rejected == 1


def test_curly_quotes_and_spacing_still_locate_the_quote(isa_page):
    extract.snapshot_extract(
        snapshot_id=isa_page.pk,
        provider=ScriptedProvider(
            [
                unit(
                    unit_type="rule",
                    value_amount=None,
                    value_unit=None,
                    evidence_quote="You're  allowed one Lifetime ISA",
                )
            ]
        ),
    )
    stored = AtomicUnit.objects.get()
    assert stored.evidence_quote == "You’re allowed one Lifetime ISA"


def test_unbound_unit_goes_to_triage_not_to_a_concept(isa_page):
    proposal = unit(concept_id=None)
    proposal.candidates = [("isa.annual_allowance", 0.61), ("isa.lifetime.rules", 0.60)]
    run = extract.snapshot_extract(snapshot_id=isa_page.pk, provider=ScriptedProvider([proposal]))
    item = ExtractionItem.objects.get()
    assert (item.kind, run.units_unassigned, AtomicUnit.objects.count()) == ("unassigned", 1, 0)
    assert item.candidates[0] == ["isa.annual_allowance", 0.61]
    assert isa_page.text[item.evidence_start : item.evidence_end].startswith("you can save")


def test_running_again_adds_nothing(isa_page):
    provider = ScriptedProvider([unit()])
    first = extract.snapshot_extract(snapshot_id=isa_page.pk, provider=provider)
    calls = provider.calls
    second = extract.snapshot_extract(snapshot_id=isa_page.pk, provider=provider)
    assert first.pk == second.pk and provider.calls == calls
    assert AtomicUnit.objects.count() == 1


def test_failure_while_storing_leaves_nothing_half_written(isa_page, monkeypatch):
    real_create = AtomicUnit.objects.create
    made = []

    def create_then_fail(**kwargs):
        if made:
            raise RuntimeError("database went away")
        made.append(real_create(**kwargs))
        return made[-1]

    monkeypatch.setattr(AtomicUnit.objects, "create", create_then_fail)
    with pytest.raises(RuntimeError):
        extract.snapshot_extract(
            snapshot_id=isa_page.pk,
            provider=ScriptedProvider(
                [unit(), unit(text="Two", evidence_quote="one Lifetime ISA")]
            ),
        )
    assert AtomicUnit.objects.count() == 0 and ExtractionItem.objects.count() == 0
    assert ExtractionRun.objects.get().status != ExtractionRun.Status.SUCCEEDED


def test_examples_are_linked_to_their_unit(isa_page):
    example = unit(
        unit_type="example",
        text="Example",
        evidence_quote="one Lifetime ISA",
        example_of=0,
        value_amount=None,
        value_unit=None,
    )
    extract.snapshot_extract(snapshot_id=isa_page.pk, provider=ScriptedProvider([unit(), example]))
    stored = AtomicUnit.objects.get(unit_type="example")
    assert stored.example_of.unit_type == "threshold"


def test_ordinals_continue_inside_a_concept(isa_page):
    other = SnapshotFactory(text=PAGE + "\nAnother page.")
    extract.snapshot_extract(snapshot_id=isa_page.pk, provider=ScriptedProvider([unit()]))
    extract.snapshot_extract(snapshot_id=other.pk, provider=ScriptedProvider([unit()]))
    assert list(AtomicUnit.objects.order_by("ordinal").values_list("ordinal", flat=True)) == [1, 2]


@pytest.fixture
def fixture_corpus():
    taxonomy_load_file()
    job = ingest.directory_job_create(root=FIXTURES)
    for ref in job.refs:
        ingest.ingest_item_run(job_id=job.pk, ref=ref)


@pytest.mark.slow
def test_fixture_corpus_with_the_real_heuristic_provider(fixture_corpus):
    out = StringIO()
    call_command("extract", all=True, quiet_progress=True, stdout=out)
    assert "provider heuristic (rule-based, no LLM)" in out.getvalue()
    assert (
        AtomicUnit.objects.filter(provider="heuristic").count() == AtomicUnit.objects.count() > 40
    )
    allowance = AtomicUnit.objects.filter(unit_type="threshold", value_amount=Decimal("20000"))
    assert allowance.filter(concept__category__slug="isa").exists()
    pension = AtomicUnit.objects.filter(
        unit_type="threshold", value_amount=Decimal("221.20")
    ).first()
    assert pension is not None and pension.concept.category.slug == "state_pension"
    assert (str(pension.valid_from), str(pension.valid_to)) == ("2024-04-06", "2025-04-05")
    assert AtomicUnit.objects.filter(unit_type="procedure").exists()
    call_command("check_evidence", stdout=StringIO())
    # units of the older State Pension page are flagged, not deleted
    source = Source.objects.get(url="https://www.gov.uk/new-state-pension")
    older = PageSnapshot.objects.filter(source=source).exclude(pk=source.current_snapshot_id).get()
    flagged = QualityFlag.objects.filter(kind="superseded_snapshot", unit__snapshot=older)
    assert flagged.exists() and flagged.count() == AtomicUnit.objects.filter(snapshot=older).count()
    count = AtomicUnit.objects.count()
    call_command("extract", all=True, quiet_progress=True, stdout=(again := StringIO()))
    assert AtomicUnit.objects.count() == count
    assert "already done earlier" in again.getvalue()


def test_check_evidence_fails_on_a_tampered_unit(isa_page):
    extract.snapshot_extract(snapshot_id=isa_page.pk, provider=ScriptedProvider([unit()]))
    call_command("check_evidence", stdout=StringIO())
    AtomicUnit.objects.update(evidence_start=1)
    with pytest.raises(CommandError, match="1 unit"):
        call_command("check_evidence", stdout=StringIO())


def test_token_counting_is_offline_and_not_truncated():
    from knowledge.embeddings import count_tokens

    assert count_tokens("The ISA allowance is £20,000.") >= 7
    assert count_tokens("word " * 1000) == 1000


@pytest.mark.slow
def test_llm_cost_estimate_counts_both_prompts(fixture_corpus):
    out = StringIO()
    call_command("estimate_llm_cost", stdout=out)
    assert "10 pages" in out.getvalue() and "estimated cost with gpt-4o-mini" in out.getvalue()


@pytest.mark.slow
def test_pipeline_chain_fetches_extracts_and_embeds_a_page():
    from knowledge import tasks

    taxonomy_load_file()
    job = ingest.directory_job_create(root=FIXTURES)
    ref = "lifetime-isa.json"
    tasks.page_pipeline(job.pk, ref).apply()
    snapshot = IngestItem.objects.get(job=job, ref=ref).snapshot
    units = AtomicUnit.objects.filter(snapshot=snapshot)
    assert units.exists() and not units.filter(embedding__isnull=True).exists()
    assert ExtractionRun.objects.get(snapshot=snapshot).status == ExtractionRun.Status.SUCCEEDED
    tasks.page_pipeline(job.pk, ref).apply()  # a redelivered chain adds nothing
    assert AtomicUnit.objects.filter(snapshot=snapshot).count() == units.count()


def test_a_running_run_is_taken_over_only_once_it_is_as_old_as_the_sweeper_calls_lost(db, settings):
    import datetime as dt

    from django.utils import timezone

    from knowledge.models import ExtractionRun
    from knowledge.services.extract import snapshot_run_claim
    from tests.factories import SnapshotFactory

    settings.JOB_STALE_AFTER_SECONDS = 3600
    snapshot = SnapshotFactory()
    run = ExtractionRun.objects.create(
        snapshot=snapshot, provider="heuristic", prompt_version="v", status="running"
    )

    def claim_after(minutes: int):
        started = timezone.now() - dt.timedelta(minutes=minutes)
        ExtractionRun.objects.filter(pk=run.pk).update(status="running", started_at=started)
        return snapshot_run_claim(
            snapshot_id=snapshot.pk, provider_name="heuristic", prompt_version="v"
        )

    assert claim_after(30) is None  # a live run of a long task is left to its worker
    assert claim_after(61).pk == run.pk
