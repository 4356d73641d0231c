"""Superseding adjudication in both providers: the heuristic rules, and the `openai` provider
through the real client against the fake OpenAI-compatible server."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from openai import OpenAI

from knowledge.providers import (
    OpenAIProvider,
    ProviderError,
    ProviderTransientError,
    UnitText,
)
from knowledge.providers.heuristic import HeuristicProvider
from knowledge.text.compare import (
    figures,
    masked,
    masked_similarity,
    near_identical,
    text_similarity,
)
from tests.fake_openai import fake_openai_fixture  # noqa: F401


def threshold(
    text: str, amount: str, *, period: str = "year", start: int | None = None, unit: str = "GBP"
) -> UnitText:
    return UnitText(
        unit_type="threshold",
        text=text,
        concept="income_tax.personal_allowance: Personal Allowance",
        value_amount=Decimal(amount),
        value_unit=unit,
        value_period=period,
        valid_from=dt.date(start, 4, 6) if start else None,
        valid_to=None,
    )


OLD_PA = threshold("The Personal Allowance is £12,500 a year.", "12500", start=2019)
NEW_PA = threshold("The Personal Allowance is £12,570 a year.", "12570", start=2021)


# --- text comparison --------------------------------------------------------------------------


def test_text_similarity_ignores_case_quotes_and_spaces():
    assert text_similarity("You\u2019re  eligible", "you're eligible") == 1.0
    assert text_similarity("£12,500", "£12,570") < 1.0


def test_figures_differ_when_an_amount_percentage_number_or_date_differs():
    base = "From 6 April 2024 you pay 20% on £12,570 if you're 18 or over."
    assert figures(base) == figures(base.replace("pay", "owe"))
    for changed in ("£12,500", "21%", "7 April 2024", "16 or over", "6 May 2024"):
        original = {
            "£12,500": "£12,570",
            "21%": "20%",
            "7 April 2024": "6 April 2024",
            "16 or over": "18 or over",
            "6 May 2024": "6 April 2024",
        }[changed]
        assert figures(base) != figures(base.replace(original, changed)), changed


def test_near_identical_needs_alike_texts_and_the_same_figures():
    text = "The standard Personal Allowance is {} a year for most people in the UK."
    assert near_identical(text.format("£12,570"), text.format("£12,570") + " ", threshold=0.98)
    assert not near_identical(text.format("£12,500"), text.format("£12,570"), threshold=0.98)
    assert not near_identical(text.format("£12,570"), "Something else.", threshold=0.98)


def test_masking_hides_amounts_and_dates_but_keeps_other_numbers():
    assert masked("In the 2024 to 2025 tax year it is £221.20 a week") == "in the # it is # a week"
    assert masked_similarity("18 to 20: £6.45", "18 to 20: £6.56") == 1.0
    assert masked_similarity("18 to 20: £6.45", "21 to 24: £8.20") < 1.0


# --- the heuristic adjudicator ----------------------------------------------------------------


def adjudicate(older: UnitText, newer: UnitText):
    return HeuristicProvider().adjudicate_superseding(older=older, newer=newer)


def test_heuristic_same_quantity_new_value_and_dates_is_the_same_rule():
    verdict = adjudicate(OLD_PA, NEW_PA)
    assert verdict.same_rule is True
    assert verdict.confidence == 1.0  # identical words once figures are masked
    assert verdict.rationale == (
        "heuristic (rule-based, no LLM): £12,500 → £12,570; valid from 2019-04-06 → 2021-04-06"
    )
    assert verdict.usage.model == "heuristic-v1"
    assert (verdict.usage.prompt_tokens, verdict.usage.completion_tokens) == (0, 0)


def test_heuristic_new_validity_alone_is_the_same_rule():
    older = threshold("The allowance is £20,000 a year.", "20000", start=2023)
    verdict = adjudicate(older, threshold(older.text, "20000", start=2024))
    assert verdict.same_rule is True
    assert "valid from 2023-04-06 → 2024-04-06" in verdict.rationale
    assert "£" not in verdict.rationale.split(":", 1)[1]  # the value did not change


@pytest.mark.parametrize(
    ("newer", "why"),
    [
        (
            UnitText(
                unit_type="rule",
                text="The Personal Allowance is £12,570 a year.",
                valid_from=dt.date(2021, 4, 6),
            ),
            "different unit types",
        ),
        (
            threshold("The Personal Allowance is £242 a week.", "242", period="week", start=2021),
            "different quantities",
        ),
        (
            threshold("The Personal Allowance is 20% a year.", "20", unit="percent", start=2021),
            "different quantities",
        ),
        (
            threshold("The Personal Allowance is £12,500 a year.", "12500", start=2019),
            "a restatement",
        ),
        (
            threshold(
                "You get a bonus of £12,570 when you open a Lifetime ISA for a first home.",
                "12570",
                start=2021,
            ),
            "the words differ too much",
        ),
    ],
)
def test_heuristic_says_not_the_same_rule_and_why(newer, why):
    verdict = adjudicate(OLD_PA, newer)
    assert verdict.same_rule is False
    assert why in verdict.rationale
    assert verdict.rationale.startswith("heuristic (rule-based, no LLM): ")


def test_heuristic_treats_an_unknown_period_as_compatible():
    older = threshold("Single and 25 or over £317.82", "317.82", period="", start=2019)
    newer = threshold("Single and 25 or over £393.45", "393.45", period="month", start=2024)
    assert adjudicate(older, newer).same_rule is True


def test_heuristic_never_pairs_different_figures_of_one_sentence():
    older = threshold("You could save £10,240 in a cash ISA and £3,000 in another.", "3000")
    newer = threshold("You could save £2,000 in a cash ISA and £15,000 in another.", "2000")
    verdict = adjudicate(older, newer)
    assert verdict.same_rule is False
    assert "different figures of their sentences" in verdict.rationale


def test_heuristic_compares_amounts_in_the_text_of_units_without_a_value():
    older = UnitText(unit_type="eligibility", text="You pay if you earn above £155 a week.")
    newer = UnitText(unit_type="eligibility", text="You pay if you earn above £242 a week.")
    verdict = adjudicate(older, newer)
    assert verdict.same_rule is True
    assert "£155 → £242" in verdict.rationale


# --- the openai adjudicator -------------------------------------------------------------------


def provider_for(fake, *, max_retries: int = 0) -> OpenAIProvider:
    client = OpenAI(base_url=fake.base_url, api_key="test-key", timeout=2, max_retries=max_retries)
    return OpenAIProvider(
        client=client, context_model="ctx", extract_model="ext", adjudicate_model="judge-model"
    )


def test_openai_adjudication_sends_a_strict_schema_and_returns_the_verdict(fake_openai):
    fake_openai.answer(
        {"same_rule": True, "confidence": 0.9, "rationale": "£12,500 → £12,570"},
        model="judge-model",
        prompt_tokens=321,
        completion_tokens=17,
    )
    verdict = provider_for(fake_openai).adjudicate_superseding(older=OLD_PA, newer=NEW_PA)
    assert (verdict.same_rule, verdict.confidence, verdict.rationale) == (
        True,
        0.9,
        "£12,500 → £12,570",
    )
    assert (verdict.usage.model, verdict.usage.prompt_tokens, verdict.usage.completion_tokens) == (
        "judge-model",
        321,
        17,
    )
    request = fake_openai.requests[0]
    assert request.model == "judge-model"
    schema = request.response_format["json_schema"]
    assert schema["name"] == "LlmAdjudication" and schema["strict"] is True
    assert set(schema["schema"]["required"]) == {"same_rule", "confidence", "rationale"}
    assert "older" not in schema["schema"]["properties"]  # the model never picks the order
    assert OLD_PA.text in request.prompt and NEW_PA.text in request.prompt
    assert request.prompt.index(OLD_PA.text) < request.prompt.index(NEW_PA.text)
    assert "valid from: 2019-04-06" in request.prompt


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("same rule: yes", "not valid JSON"),
        ({"same_rule": True, "rationale": "x"}, "does not match the schema"),
        ({"same_rule": True, "confidence": 7, "rationale": "x"}, "does not match the schema"),
        ({"same_rule": "perhaps", "confidence": 0.5, "rationale": "x"}, "does not match"),
    ],
)
def test_openai_malformed_adjudication_is_a_provider_error(fake_openai, content, message):
    fake_openai.answer(content)
    with pytest.raises(ProviderError) as caught:
        provider_for(fake_openai).adjudicate_superseding(older=OLD_PA, newer=NEW_PA)
    assert not isinstance(caught.value, ProviderTransientError)
    assert message in caught.value.reason


def test_openai_server_error_is_transient_after_the_clients_retries(fake_openai):
    for _ in range(2):
        fake_openai.error(500, "upstream exploded")
    with pytest.raises(ProviderTransientError) as caught:
        provider_for(fake_openai, max_retries=1).adjudicate_superseding(older=OLD_PA, newer=NEW_PA)
    assert "HTTP 500" in caught.value.reason
    assert fake_openai.count == 2
