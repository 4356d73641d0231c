"""Does a unit belong to its concept? Both providers' `check_unit_placement`: the heuristic
from the vectors, and `openai` through the real client against the fake server."""

from __future__ import annotations

import numpy as np
import pytest
from openai import OpenAI

from knowledge.providers import (
    ConceptInfo,
    OpenAIProvider,
    ProviderError,
    ProviderTransientError,
    UnitText,
)
from knowledge.providers.heuristic import HeuristicProvider
from tests.fake_openai import fake_openai_fixture  # noqa: F401


def _vector(*weights: float) -> tuple[float, ...]:
    vector = np.zeros(8)
    vector[: len(weights)] = weights
    return tuple(vector)


def concept(taxonomy_id: str, name: str, vector=None) -> ConceptInfo:
    return ConceptInfo(taxonomy_id, name, f"What {name} is and who gets it.", "isa", vector)


ALLOWANCE = concept("isa.allowance", "ISA allowance", _vector(1))
JUNIOR = concept("isa.junior.allowance", "Junior ISA allowance", _vector(0, 1))
TRANSFER = concept("isa.transfer", "Transferring an ISA", _vector(0, 0, 1))
UNIT = UnitText(
    unit_type="threshold",
    text="You can put up to £9,000 into a Junior ISA in the 2024 to 2025 tax year.",
    concept="isa.allowance: ISA allowance",
    source_url="https://www.gov.uk/junior-individual-savings-accounts",
    vector=_vector(0.1, 1),
)


# --- heuristic --------------------------------------------------------------------------------


def check(unit=UNIT, *, margin=0.10):
    return HeuristicProvider(placement_margin=margin).check_unit_placement(
        unit=unit, concept=ALLOWANCE, alternatives=[JUNIOR, TRANSFER]
    )


def test_heuristic_suggests_the_nearer_concept_and_says_it_is_the_heuristic():
    placement = check()
    assert (placement.belongs, placement.suggested) == (False, "isa.junior.allowance")
    assert placement.reason == (
        "Heuristic (embedding similarity, no LLM): closer to isa.junior.allowance (1.00) than "
        "to its concept isa.allowance (0.10)"
    )
    assert placement.margin == pytest.approx(0.8955, abs=1e-4)
    assert placement.usage.model == "heuristic-v1" and placement.usage.prompt_tokens == 0


def test_heuristic_keeps_a_unit_within_the_margin():
    placement = check(UnitText(unit_type="rule", text="x", vector=_vector(1, 1.05)), margin=0.1)
    assert (placement.belongs, placement.suggested) == (True, None)
    assert 0 < placement.margin < 0.1


def test_heuristic_needs_vectors():
    with pytest.raises(ProviderError, match="embed"):
        check(UnitText(unit_type="rule", text="x"))


# --- openai -----------------------------------------------------------------------------------


def provider_for(fake, *, max_retries: int = 0) -> OpenAIProvider:
    client = OpenAI(base_url=fake.base_url, api_key="test-key", timeout=2, max_retries=max_retries)
    return OpenAIProvider(
        client=client, context_model="ctx", extract_model="ext", adjudicate_model="judge-model"
    )


def ask(fake, **kwargs):
    return provider_for(fake, **kwargs).check_unit_placement(
        unit=UNIT, concept=ALLOWANCE, alternatives=[JUNIOR, TRANSFER]
    )


def test_openai_placement_sends_a_strict_schema_and_names_an_alternative(fake_openai):
    fake_openai.answer(
        {
            "belongs": False,
            "suggested_concept": "isa.junior.allowance",
            "confidence": 0.85,
            "reason": "It states the Junior ISA limit, not the adult allowance.",
        },
        model="judge-model",
        prompt_tokens=410,
        completion_tokens=31,
    )
    placement = ask(fake_openai)
    assert (placement.belongs, placement.suggested, placement.confidence) == (
        False,
        "isa.junior.allowance",
        0.85,
    )
    assert placement.reason == "It states the Junior ISA limit, not the adult allowance."
    assert placement.margin is None
    assert (placement.usage.model, placement.usage.prompt_tokens) == ("judge-model", 410)
    request = fake_openai.requests[0]
    assert request.model == "judge-model"
    schema = request.response_format["json_schema"]
    assert schema["name"] == "LlmPlacement" and schema["strict"] is True
    assert set(schema["schema"]["required"]) == {
        "belongs",
        "suggested_concept",
        "confidence",
        "reason",
    }
    assert UNIT.text in request.prompt
    assert "Filed under:\nisa.allowance: ISA allowance — " in request.prompt
    alternatives = request.prompt.split("Alternatives (id: name — what belongs):\n", 1)[1]
    assert alternatives.splitlines()[0].startswith("isa.junior.allowance: Junior ISA allowance")
    assert "isa.transfer: Transferring an ISA" in alternatives


def test_openai_placement_that_belongs_drops_any_suggestion(fake_openai):
    fake_openai.answer(
        {
            "belongs": True,
            "suggested_concept": "isa.transfer",
            "confidence": 0.7,
            "reason": "It is the allowance.",
        }
    )
    placement = ask(fake_openai)
    assert (placement.belongs, placement.suggested) == (True, None)


def test_openai_suggesting_a_concept_it_was_not_offered_is_a_provider_error(fake_openai):
    fake_openai.answer(
        {
            "belongs": False,
            "suggested_concept": "isa.allowance.junior",
            "confidence": 0.9,
            "reason": "Junior.",
        }
    )
    with pytest.raises(ProviderError) as caught:
        ask(fake_openai)
    assert "'isa.allowance.junior'" in caught.value.reason
    assert "not one of the alternatives" in caught.value.reason


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("belongs: no", "not valid JSON"),
        ({"belongs": False, "confidence": 0.5, "reason": "x"}, "does not match the schema"),
        (
            {"belongs": False, "suggested_concept": None, "confidence": 3, "reason": "x"},
            "does not match the schema",
        ),
        (
            {"belongs": "perhaps", "suggested_concept": None, "confidence": 0.5, "reason": "x"},
            "does not match the schema",
        ),
    ],
)
def test_openai_malformed_placement_is_a_provider_error(fake_openai, content, message):
    fake_openai.answer(content)
    with pytest.raises(ProviderError) as caught:
        ask(fake_openai)
    assert not isinstance(caught.value, ProviderTransientError)
    assert message in caught.value.reason


def test_openai_server_error_is_transient_after_the_clients_retries(fake_openai):
    for _ in range(2):
        fake_openai.error(500, "upstream exploded")
    with pytest.raises(ProviderTransientError, match="HTTP 500"):
        ask(fake_openai, max_retries=1)
    assert fake_openai.count == 2
