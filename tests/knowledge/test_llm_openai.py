"""The `openai` extraction provider end to end: the real OpenAI client against a fake
OpenAI-compatible server on 127.0.0.1, through `snapshot_extract`."""

from __future__ import annotations

import contextlib
import datetime as dt
from decimal import Decimal

import pytest
from openai import OpenAI

from knowledge.domain.extraction import ValidityBasis
from knowledge.models import AtomicUnit, Concept, ExtractionItem, ExtractionRun
from knowledge.providers import (
    OpenAIProvider,
    PageContext,
    ProviderError,
    ProviderTransientError,
)
from knowledge.services.extract import ExtractionFailed, snapshot_extract
from knowledge.text.dates import tax_year_bounds, tax_year_start_year
from knowledge.text.evidence import locate_quote
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory
from tests.fake_openai import Reply, fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db

MODEL = "gpt-4o-mini"
PAGE = (
    "Individual Savings Accounts\n"
    "How ISAs work\n"
    "Every tax year you can save up to £20,000 in one account or split the allowance "
    "across multiple accounts.\n"
    "The tax year runs from 6 April to 5 April.\n"
    "Who can open an ISA\n"
    "You must be 18 or over and a UK resident to open a cash ISA or a stocks and shares ISA.\n"
    "Junior ISAs\n"
    "In the 2024 to 2025 tax year the Junior ISA allowance is £9,000.\n"
    "Lifetime ISAs\n"
    "The \u2018Lifetime ISA\u2019 lets you put in up to £4,000 a year towards a first home.\n"
    "For example, if you put £4,000 into a Lifetime ISA the government adds £1,000.\n"
)
ALLOWANCE = (
    "Every tax year you can save up to £20,000 in one account or split the allowance "
    "across multiple accounts."
)
JUNIOR = "In the 2024 to 2025 tax year the Junior ISA allowance is £9,000."
ELIGIBLE = "You must be 18 or over and a UK resident to open a cash ISA"


# --- fixtures and helpers -------------------------------------------------------------------


def provider_for(fake, *, timeout: float = 1.0, max_retries: int = 2) -> OpenAIProvider:
    client = OpenAI(
        base_url=f"http://127.0.0.1:{fake.port}/v1",
        api_key="test-key",
        timeout=timeout,
        max_retries=max_retries,
    )
    return OpenAIProvider(client=client, context_model=MODEL, extract_model=MODEL)


@pytest.fixture
def provider(fake_openai):
    return provider_for(fake_openai)


@pytest.fixture
def isa():
    category = CategoryFactory(slug="isa", name="ISAs", description="Individual Savings Accounts")
    pensions = CategoryFactory(slug="pensions", name="Pensions", description="Workplace pensions")
    concepts = {
        "allowance": ConceptFactory(
            category=category,
            taxonomy_id="isa.annual_allowance",
            name="ISA annual allowance",
            description="How much can be paid into ISAs each tax year.",
            yearly_figures=True,
        ),
        "eligibility": ConceptFactory(
            category=category,
            taxonomy_id="isa.eligibility",
            name="Who can open an ISA",
            description="Age and residence conditions.",
        ),
        "junior": ConceptFactory(
            category=category,
            taxonomy_id="isa.junior_allowance",
            name="Junior ISA allowance",
            description="The yearly Junior ISA limit.",
        ),
        "retired": ConceptFactory(
            category=category,
            taxonomy_id="isa.old_limit",
            name="Old limit",
            description="Retired concept.",
            status=Concept.Status.RETIRED,
        ),
        "pension": ConceptFactory(
            category=pensions,
            taxonomy_id="pensions.annual_allowance",
            name="Pension annual allowance",
            description="Tax relief limit.",
        ),
    }
    return concepts


@pytest.fixture
def snapshot(isa):
    return SnapshotFactory(text=PAGE, raw={"title": "Individual Savings Accounts (ISAs)"})


def context_answer(**overrides) -> dict:
    answer = {
        "domain": "ISA allowances",
        "audience": "savers",
        "period": "2024-25",
        "category": "isa",
        "related_categories": [],
    }
    answer.update(overrides)
    return answer


def unit(**overrides) -> dict:
    answer = {
        "unit_type": "threshold",
        "text": "You can save up to £20,000 in ISAs each tax year.",
        "concept_id": "isa.annual_allowance",
        "evidence_quote": ALLOWANCE,
        "valid_from": None,
        "valid_to": None,
        "value_amount": 20000,
        "value_unit": "GBP",
        "value_period": "year",
        "example_of": None,
    }
    answer.update(overrides)
    dated = answer["valid_from"] is not None or answer["valid_to"] is not None
    answer.setdefault("period_basis", "stated" if dated else "none")
    answer.setdefault("figures", [])
    return answer


def eligibility_unit(**overrides) -> dict:
    values = {
        "unit_type": "eligibility",
        "text": "You must be 18 or over and a UK resident to open a cash ISA.",
        "concept_id": "isa.eligibility",
        "evidence_quote": ELIGIBLE,
        "value_amount": None,
        "value_unit": None,
        "value_period": None,
    }
    values.update(overrides)
    return unit(**values)


def extract(snapshot, provider) -> ExtractionRun:
    return snapshot_extract(snapshot_id=snapshot.pk, provider=provider)


def extract_fails(snapshot, provider) -> tuple[ExtractionRun, ExtractionFailed]:
    with pytest.raises(ExtractionFailed) as caught:
        extract(snapshot, provider)
    run = ExtractionRun.objects.get(snapshot=snapshot, provider="openai")
    assert caught.value.run.pk == run.pk
    return run, caught.value


def assert_nothing_stored(run: ExtractionRun) -> None:
    assert run.status == ExtractionRun.Status.FAILED
    assert run.finished_at is not None
    assert AtomicUnit.objects.filter(snapshot=run.snapshot).count() == 0
    assert ExtractionItem.objects.filter(run=run).count() == 0
    assert (run.units_made, run.units_rejected, run.units_unassigned) == (0, 0, 0)


def items(run: ExtractionRun) -> list[tuple[str, str]]:
    return list(ExtractionItem.objects.filter(run=run).values_list("kind", "reason_code"))


def assert_evidence_exact(unit_row: AtomicUnit) -> None:
    text = unit_row.snapshot.text
    assert unit_row.evidence_verified is True
    assert 0 <= unit_row.evidence_start < unit_row.evidence_end <= len(text)
    assert text[unit_row.evidence_start : unit_row.evidence_end] == unit_row.evidence_quote


def price(prompt: int, completion: int) -> Decimal:
    return (Decimal(prompt) * Decimal("0.15") + Decimal(completion) * Decimal("0.60")) / Decimal(
        1_000_000
    )


# --- the good path --------------------------------------------------------------------------


def applies_to(**given) -> dict:
    """A strict answer's applies_to: every field, empty unless given."""
    empty = {"nations": [], "employment": [], "benefits": [], "student_loan_plans": []}
    empty["tax_bands"] = []
    empty["any_of"] = []
    nulls = ["age_min", "age_max", "state_pension_age", "income_min", "income_max"]
    nulls += ["partner", "children_min", "children_max"]
    return empty | dict.fromkeys(nulls) | given


def way_in(**given) -> dict:
    """One of a strict answer's any_of: every field but nations, empty unless given."""
    way = applies_to(**given)
    return {key: value for key, value in way.items() if key not in ("nations", "any_of")}


def test_the_models_ways_in_of_a_list_of_alternatives_are_stored(fake_openai, provider, snapshot):
    said = eligibility_unit(
        applies_to=applies_to(any_of=[way_in(partner=True), way_in(children_min=1)])
    )
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [said]})

    extract(snapshot, provider)

    stored = AtomicUnit.objects.get(snapshot=snapshot, unit_type="eligibility").applicability
    assert stored == {"any_of": [{"partner": True}, {"children_min": 1}]}


def test_who_a_fact_is_for_is_the_models_when_it_says_and_the_pages_when_not(
    fake_openai, provider, snapshot
):
    said = eligibility_unit(applies_to=applies_to(age_min=18, nations=["england", "wales"]))
    bad = unit(applies_to=applies_to(benefits=["Universal Credit"]))  # not a code: not used
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [said, bad]})

    extract(snapshot, provider)

    stored = {u.unit_type: u.applicability for u in AtomicUnit.objects.filter(snapshot=snapshot)}
    assert stored["eligibility"] == {"nations": ["england", "wales"], "age_min": 18}
    assert stored["threshold"] == {}  # the page says nothing narrowing the allowance


def test_good_answers_store_verified_units_with_usage_and_cost(fake_openai, provider, snapshot):
    example = unit(
        unit_type="example",
        text="Putting £4,000 into a Lifetime ISA earns a £1,000 bonus.",
        evidence_quote="if you put £4,000 into a Lifetime ISA the government adds £1,000",
        value_amount=None,
        value_unit=None,
        value_period=None,
        example_of=0,
    )
    junior = unit(
        text="The Junior ISA allowance is £9,000 for 2024 to 2025.",
        concept_id="isa.junior_allowance",
        evidence_quote=JUNIOR,
        valid_from="2024-04-06",
        valid_to="2025-04-05",
        value_amount=9000,
    )
    fake_openai.answer(
        context_answer(related_categories=["pensions", "no-such-slug"]),
        prompt_tokens=1000,
        completion_tokens=50,
    )
    fake_openai.answer(
        {"units": [unit(), eligibility_unit(), junior, example]},
        prompt_tokens=3000,
        completion_tokens=400,
    )

    run = extract(snapshot, provider)

    run.refresh_from_db()
    assert run.status == ExtractionRun.Status.SUCCEEDED and run.error == ""
    assert run.provider == "openai" and run.model == MODEL and run.prompt_version == "v5"
    assert run.context["category"] == "isa"
    assert run.context["related_categories"] == ["pensions"]  # the unknown slug is dropped
    assert (run.units_made, run.units_rejected, run.units_unassigned) == (4, 0, 0)
    assert (run.prompt_tokens, run.completion_tokens) == (4000, 450)
    assert run.cost == price(1000, 50) + price(3000, 400) == Decimal("0.00087")
    assert {"pass1_seconds", "pass2_seconds"} <= set(run.timings)
    assert run.attempts == 1 and run.finished_at is not None
    assert items(run) == []

    units = {u.text: u for u in AtomicUnit.objects.filter(snapshot=snapshot)}
    assert len(units) == 4
    for row in units.values():
        assert_evidence_exact(row)
        assert row.provider == AtomicUnit.Provider.OPENAI
        assert row.provider_model == MODEL
        assert row.extraction_run_id == run.pk
        assert row.source_id == snapshot.source_id
    allowance = units["You can save up to £20,000 in ISAs each tax year."]
    assert allowance.evidence_quote == ALLOWANCE
    assert allowance.concept.taxonomy_id == "isa.annual_allowance" and allowance.ordinal == 1
    assert (allowance.value_amount, allowance.value_unit, allowance.value_period) == (
        Decimal("20000"),
        "GBP",
        "year",
    )
    # The same dating policy as the heuristic's: no period given, a yearly figure holds for
    # the tax year of its page's capture; a rule stays open; a stated year is kept.
    snapshot.refresh_from_db()
    captured = tax_year_bounds(tax_year_start_year(snapshot.fetched_at.date()))
    assert (allowance.valid_from, allowance.valid_to) == captured
    assert allowance.validity_basis == ValidityBasis.CAPTURE
    eligible = units["You must be 18 or over and a UK resident to open a cash ISA."]
    assert (eligible.valid_from, eligible.valid_to, eligible.validity_basis) == (None, None, "open")
    junior_row = units["The Junior ISA allowance is £9,000 for 2024 to 2025."]
    assert (junior_row.valid_from, junior_row.valid_to) == (
        dt.date(2024, 4, 6),
        dt.date(2025, 4, 5),
    )
    assert junior_row.validity_basis == ValidityBasis.STATED
    example_row = units["Putting £4,000 into a Lifetime ISA earns a £1,000 bonus."]
    assert example_row.example_of_id == allowance.pk

    # What was sent: one user message per pass, strict json_schema with every field required.
    assert fake_openai.count == 2
    first, second = fake_openai.requests
    assert all(r.path == "/v1/chat/completions" for r in fake_openai.requests)
    assert first.headers.get("authorization") == "Bearer test-key"
    for request, schema_name in ((first, "PageContext"), (second, "LlmUnits")):
        assert request.model == MODEL
        assert request.body["temperature"] == 0
        assert [m["role"] for m in request.messages] == ["user"]
        fmt = request.response_format
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["name"] == schema_name
        assert fmt["json_schema"]["strict"] is True
    context_schema = first.response_format["json_schema"]["schema"]
    assert set(context_schema["required"]) == set(PageContext.model_fields)
    assert context_schema["additionalProperties"] is False
    unit_schema = second.response_format["json_schema"]["schema"]["$defs"]["LlmUnit"]
    assert set(unit_schema["required"]) == {
        "unit_type",
        "text",
        "concept_id",
        "evidence_quote",
        "valid_from",
        "valid_to",
        "period_basis",
        "value_amount",
        "value_unit",
        "value_period",
        "figures",
        "example_of",
        "applies_to",
    }
    assert "isa: ISAs" in first.prompt and "Every tax year you can save" in first.prompt
    assert "Individual Savings Accounts (ISAs)" in first.prompt  # the snapshot's raw title
    assert "isa.annual_allowance" in second.prompt and '"category":"isa"' in second.prompt
    assert "isa.old_limit" not in second.prompt  # retired concepts are not offered
    assert "pensions.annual_allowance" in second.prompt  # a related category's concepts are

    # Idempotent: a second call makes no request and stores nothing new.
    again = extract(snapshot, provider)
    assert again.pk == run.pk and again.status == ExtractionRun.Status.SUCCEEDED
    assert fake_openai.count == 2
    assert AtomicUnit.objects.filter(snapshot=snapshot).count() == 4
    assert ExtractionRun.objects.get(pk=run.pk).attempts == 1


def test_a_unit_without_a_concept_goes_to_triage(fake_openai, provider, snapshot):
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit(), eligibility_unit(concept_id=None)]})

    run = extract(snapshot, provider)

    assert run.status == ExtractionRun.Status.SUCCEEDED
    assert (run.units_made, run.units_rejected, run.units_unassigned) == (1, 0, 1)
    assert items(run) == [("unassigned", "no_confident_concept")]
    item = ExtractionItem.objects.get(run=run)
    assert PAGE[item.evidence_start : item.evidence_end].startswith("You must be 18")


# --- unusable answers fail the run, and store nothing --------------------------------------


def test_invalid_json_in_pass_two_fails_the_run(fake_openai, provider, snapshot):
    fake_openai.answer(context_answer())
    fake_openai.answer(
        '{"units": [{"unit_type": "threshold", "text": "cut off', finish_reason="length"
    )

    run, failure = extract_fails(snapshot, provider)

    assert "not valid JSON" in run.error
    assert isinstance(failure.__cause__, ProviderError)
    assert not isinstance(failure.__cause__, ProviderTransientError)
    assert_nothing_stored(run)


def test_a_unit_missing_a_field_fails_the_run_naming_it(fake_openai, provider, snapshot):
    incomplete = unit()
    del incomplete["evidence_quote"]
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit(), incomplete]})

    run, _ = extract_fails(snapshot, provider)

    assert "units[1].evidence_quote: missing" in run.error
    assert_nothing_stored(run)


def test_a_model_refusal_fails_the_run(fake_openai, provider, snapshot):
    fake_openai.answer(None, refusal="I can't help with that.")

    run, _ = extract_fails(snapshot, provider)

    assert "refused" in run.error and "I can't help" in run.error
    assert fake_openai.count == 1
    assert_nothing_stored(run)


def test_pass_one_naming_an_unknown_category_fails_the_run(fake_openai, provider, snapshot):
    fake_openai.answer(context_answer(category="pensions-and-tax"))

    run, _ = extract_fails(snapshot, provider)

    assert "unknown category" in run.error and "pensions-and-tax" in run.error
    assert fake_openai.count == 1  # pass 2 is never asked
    assert run.context == {} and run.prompt_tokens == 0
    assert_nothing_stored(run)


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b"<html><body>Bad gateway page</body></html>", content_type="text/html"),
        Reply(200, b'{"id": "chatcmpl-1", "choices": [', content_type="application/json"),
        Reply(200, [], content_type="application/json"),
        Reply(200, {"error": {"message": "proxy says no"}}),
    ],
    ids=["html-body", "truncated-json-body", "json-list-body", "no-choices"],
)
def test_a_malformed_200_response_fails_the_run_cleanly(fake_openai, provider, snapshot, reply):
    fake_openai.reply(reply)

    run, failure = extract_fails(snapshot, provider)

    assert isinstance(failure.__cause__, ProviderError)
    assert "LLM" in run.error
    assert_nothing_stored(run)


def test_a_client_error_is_not_retried_and_names_the_status(fake_openai, provider, snapshot):
    fake_openai.error(400, "Invalid schema for response_format 'PageContext'")

    run, failure = extract_fails(snapshot, provider)

    assert fake_openai.count == 1
    assert "HTTP 400" in run.error and "Invalid schema" in run.error  # the API's own words
    assert not isinstance(failure.__cause__, ProviderTransientError)
    assert_nothing_stored(run)


# --- per-unit validation -------------------------------------------------------------------


def test_an_unknown_or_retired_concept_is_rejected_and_the_rest_is_stored(
    fake_openai, provider, snapshot
):
    fake_openai.answer(context_answer())
    fake_openai.answer(
        {
            "units": [
                unit(concept_id="isa.made_up_concept"),
                eligibility_unit(),
                unit(concept_id="isa.old_limit"),
            ]
        }
    )

    run = extract(snapshot, provider)

    assert run.status == ExtractionRun.Status.SUCCEEDED
    assert (run.units_made, run.units_rejected, run.units_unassigned) == (1, 2, 0)
    assert items(run) == [("rejected", "unknown_concept"), ("rejected", "unknown_concept")]
    rejected = ExtractionItem.objects.filter(run=run).order_by("pk").first()
    assert rejected.proposal["concept_id"] == "isa.made_up_concept"
    assert rejected.proposal["evidence_quote"] == ALLOWANCE
    assert rejected.status == ExtractionItem.Status.OPEN
    (stored,) = AtomicUnit.objects.filter(snapshot=snapshot)
    assert stored.concept.taxonomy_id == "isa.eligibility"
    assert_evidence_exact(stored)


def test_quotes_are_located_exactly_after_normalisation_or_fuzzily(fake_openai, provider, snapshot):
    straightened = (  # page has curly quotes and a line break; the quote straight, two spaces
        "Lifetime ISAs  The 'Lifetime ISA' lets you put in up to £4,000 a year"
    )
    typo = ALLOWANCE.replace("multiple accounts", "multiple acounts")
    assert locate_quote(typo, PAGE) is not None and 90 <= locate_quote(typo, PAGE).score < 100
    fake_openai.answer(context_answer())
    fake_openai.answer(
        {
            "units": [
                unit(evidence_quote="You can save up to £25,000 in a Premium Bond account."),
                unit(
                    text="The Lifetime ISA limit is £4,000 a year.",
                    evidence_quote=straightened,
                    value_amount=4000,
                ),
                unit(evidence_quote=typo),
            ]
        }
    )

    run = extract(snapshot, provider)

    assert run.status == ExtractionRun.Status.SUCCEEDED
    assert items(run) == [("rejected", "quote_not_found")]
    assert (run.units_made, run.units_rejected) == (2, 1)
    lifetime, fuzzy = AtomicUnit.objects.filter(snapshot=snapshot).order_by("ordinal")
    for row in (lifetime, fuzzy):
        assert_evidence_exact(row)
    assert lifetime.evidence_quote == (
        "Lifetime ISAs\nThe \u2018Lifetime ISA\u2019 lets you put in up to £4,000 a year"
    )
    assert "multiple accounts" in fuzzy.evidence_quote  # the page's words, not the typo
    assert fuzzy.evidence_quote in PAGE and not fuzzy.evidence_quote[0].isspace()


@pytest.mark.parametrize(
    "wrong",
    [
        {"valid_from": "2024-04-06", "period_basis": "none"},
        {"valid_from": None, "valid_to": None, "period_basis": "heading"},
    ],
)
def test_a_period_basis_that_contradicts_the_dates_fails_the_run(
    fake_openai, provider, snapshot, wrong
):
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit(), unit(**wrong)]})

    with pytest.raises(ExtractionFailed):
        extract(snapshot, provider)

    run = ExtractionRun.objects.get(snapshot=snapshot)
    assert run.status == ExtractionRun.Status.FAILED and "period_basis" in run.error
    assert not AtomicUnit.objects.filter(snapshot=snapshot).exists()  # nothing half-written


def test_bad_and_reversed_dates_are_rejected(fake_openai, provider, snapshot):
    fake_openai.answer(context_answer())
    fake_openai.answer(
        {
            "units": [
                unit(valid_from="2025-04-06", valid_to="2024-04-05"),
                unit(valid_from="1989-04-06"),
                unit(valid_to="2101-01-01"),
                unit(valid_from="6 April 2024"),
                unit(valid_from="2024-13-01"),
                unit(
                    text="The Junior ISA allowance is £9,000.",
                    concept_id="isa.junior_allowance",
                    evidence_quote=JUNIOR,
                    valid_from="2024-04-06",
                    valid_to="2025-04-05",
                    value_amount=9000,
                ),
            ]
        }
    )

    run = extract(snapshot, provider)

    assert run.status == ExtractionRun.Status.SUCCEEDED
    assert items(run) == [("rejected", "reversed_dates")] + [("rejected", "bad_date")] * 4
    reasons = list(ExtractionItem.objects.filter(run=run).values_list("reason", flat=True))
    assert "1990-2100" in reasons[1] and "1990-2100" in reasons[2]
    assert "ISO" in reasons[3] and "ISO" in reasons[4]
    (stored,) = AtomicUnit.objects.filter(snapshot=snapshot)
    assert stored.valid_from == dt.date(2024, 4, 6) and stored.valid_to == dt.date(2025, 4, 5)
    assert (run.units_made, run.units_rejected) == (1, 5)


# --- transport: retries and timeouts are bounded --------------------------------------------


def test_a_429_is_retried_then_succeeds(fake_openai, provider, snapshot):
    fake_openai.error(429, "Rate limit reached", headers={"Retry-After": "0"})
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit()]})

    run = extract(snapshot, provider)

    assert run.status == ExtractionRun.Status.SUCCEEDED and run.units_made == 1
    assert fake_openai.count == 3  # pass 1 twice (429, then 200), pass 2 once
    assert fake_openai.requests[1].headers.get("x-stainless-retry-count") == "1"


def test_429_forever_fails_as_transient_after_bounded_retries(fake_openai, provider, snapshot):
    fake_openai.always = Reply(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "10"})

    run, failure = extract_fails(snapshot, provider)

    assert fake_openai.count == 3
    assert "429" in run.error
    assert isinstance(failure.__cause__, ProviderTransientError)
    assert_nothing_stored(run)


def test_500_forever_fails_after_max_retries_plus_one_requests(fake_openai, provider, snapshot):
    fake_openai.always = Reply(
        500, {"error": {"message": "boom", "type": "server_error"}}, {"retry-after-ms": "10"}
    )

    run, failure = extract_fails(snapshot, provider)

    assert fake_openai.count == 2 + 1  # max_retries=2
    assert "HTTP 500" in run.error and "boom" in run.error
    assert isinstance(failure.__cause__, ProviderTransientError)  # the Celery task retries it
    assert_nothing_stored(run)


def test_a_timeout_fails_the_run_after_bounded_retries(fake_openai, snapshot):
    provider = provider_for(fake_openai, timeout=1.0, max_retries=1)
    fake_openai.always = Reply(200, {"never": "sent in time"}, delay=5.0)

    run, failure = extract_fails(snapshot, provider)

    assert "timeout" in run.error.lower() or "timed out" in run.error.lower()
    assert fake_openai.count == 2  # max_retries=1
    assert isinstance(failure.__cause__, ProviderTransientError)
    assert_nothing_stored(run)


def test_a_connection_refused_fails_as_transient(snapshot):
    with_nobody = OpenAI(
        base_url="http://127.0.0.1:9/v1", api_key="test-key", timeout=1.0, max_retries=0
    )
    provider = OpenAIProvider(client=with_nobody, context_model=MODEL, extract_model=MODEL)

    run, failure = extract_fails(snapshot, provider)

    assert "Connection" in run.error
    assert isinstance(failure.__cause__, ProviderTransientError)
    assert_nothing_stored(run)


# --- a failed run can be re-run -------------------------------------------------------------


def test_a_failed_run_can_be_rerun_and_then_succeeds(fake_openai, provider, snapshot):
    fake_openai.answer(context_answer(), prompt_tokens=1000, completion_tokens=50)
    fake_openai.answer("this is not JSON")
    failed, _ = extract_fails(snapshot, provider)
    assert_nothing_stored(failed)

    fake_openai.answer(context_answer(), prompt_tokens=1000, completion_tokens=50)
    fake_openai.answer({"units": [unit(), eligibility_unit()]})
    run = extract(snapshot, provider)

    run.refresh_from_db()
    assert run.pk == failed.pk
    assert run.status == ExtractionRun.Status.SUCCEEDED and run.error == ""
    assert run.attempts == 2
    assert AtomicUnit.objects.filter(snapshot=snapshot).count() == 2 == run.units_made
    assert sorted(AtomicUnit.objects.values_list("ordinal", flat=True)) == [1, 1]
    assert fake_openai.count == 4
    # A third call is a no-op.
    extract(snapshot, provider)
    assert fake_openai.count == 4


def test_a_run_failed_in_pass_one_reruns_cleanly(fake_openai, provider, snapshot):
    fake_openai.error(400, "bad request")
    failed, _ = extract_fails(snapshot, provider)
    assert_nothing_stored(failed)

    fake_openai.answer(context_answer(), prompt_tokens=200, completion_tokens=10)
    fake_openai.answer({"units": [unit()]}, prompt_tokens=300, completion_tokens=30)
    run = extract(snapshot, provider)

    run.refresh_from_db()
    assert run.status == ExtractionRun.Status.SUCCEEDED and run.attempts == 2
    assert (run.prompt_tokens, run.completion_tokens) == (500, 40)
    assert run.cost == price(500, 40)


# --- costs by dated model names, amounts too large to store -----------------------------------


def test_cost_is_recorded_when_the_api_answers_with_a_dated_model_name(
    fake_openai, provider, snapshot
):
    dated = "gpt-4o-mini-2024-07-18"
    fake_openai.answer(context_answer(), model=dated, prompt_tokens=1000, completion_tokens=50)
    fake_openai.answer({"units": [unit()]}, model=dated, prompt_tokens=3000, completion_tokens=400)

    run = extract(snapshot, provider)

    run.refresh_from_db()
    assert run.status == ExtractionRun.Status.SUCCEEDED
    assert run.cost == price(4000, 450)


def test_an_amount_too_large_to_store_is_rejected_not_crashing_the_run(
    fake_openai, provider, snapshot
):
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit(value_amount=1e20), eligibility_unit()]})

    with contextlib.suppress(ExtractionFailed):
        extract(snapshot, provider)

    run = ExtractionRun.objects.get(snapshot=snapshot)
    assert run.status in (ExtractionRun.Status.SUCCEEDED, ExtractionRun.Status.FAILED)
    if run.status == ExtractionRun.Status.SUCCEEDED:
        assert AtomicUnit.objects.filter(snapshot=snapshot).count() == 1
        assert run.units_rejected == 1


# --- the schema sent for strict structured outputs -----------------------------------------


def _objects(node, path="$"):
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _objects(value, f"{path}[{index}]")


def test_the_sdk_sends_strict_schemas_closing_every_object_and_requiring_every_property(
    fake_openai, provider, snapshot
):
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [unit()]})

    extract(snapshot, provider)

    sent = {}
    for request in fake_openai.requests:
        fmt = request.response_format
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        sent[fmt["json_schema"]["name"]] = fmt["json_schema"]["schema"]
    assert set(sent) == {"PageContext", "LlmUnits"}
    for name, schema in sent.items():
        objects = list(_objects(schema))
        assert objects, f"no object levels found in {name}"
        for path, node in objects:
            assert node["additionalProperties"] is False, (name, path)
            assert sorted(node["required"]) == sorted(node["properties"]), (name, path)
    units = sent["LlmUnits"]
    assert {path for path, _ in _objects(units)} == {
        "$",
        "$.$defs.LlmUnit",
        "$.$defs.LlmFigure",
        "$.$defs.LlmApplies",
        "$.$defs.LlmWayIn",
    }
    assert units["properties"]["units"]["items"] == {"$ref": "#/$defs/LlmUnit"}
    assert {"type": "null"} in units["$defs"]["LlmUnit"]["properties"]["concept_id"]["anyOf"]


def test_a_fault_on_our_side_of_the_sdk_is_not_blamed_on_the_endpoint():
    """A schema the SDK cannot make strict (a ValueError raised before any request) is a
    programming error to see, not a ProviderError saying the endpoint sent bad JSON."""
    from types import SimpleNamespace

    from knowledge.providers import UnitText

    def parse(**request):
        raise ValueError("this schema cannot be made strict")

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(parse=parse)))
    provider = OpenAIProvider(client=client, context_model=MODEL, extract_model=MODEL)
    unit = UnitText(unit_type="threshold", text="The allowance is £20,000.")
    with pytest.raises(ValueError, match="cannot be made strict"):
        provider.adjudicate_superseding(older=unit, newer=unit)
