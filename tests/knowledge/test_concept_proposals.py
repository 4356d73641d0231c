"""Bootstrap proposals from the `openai` provider, through the real client against the fake
server: what it sends, what it hands back (unvalidated: curation checks each item)."""

from __future__ import annotations

import pytest
from openai import OpenAI

from knowledge.providers import (
    CategoryInfo,
    OpenAIProvider,
    PageDigest,
    ProposedConcept,
    ProviderError,
    ProviderTransientError,
)
from tests.fake_openai import fake_openai_fixture  # noqa: F401

CATEGORY = CategoryInfo("lifetime_isa", "Lifetime ISA", "Saving for a first home or later life.")
PAGES = [
    PageDigest(
        title="Lifetime ISA",
        url="https://www.gov.uk/lifetime-isa",
        headings=["Overview", "Government bonus", "Withdrawing your money"],
        excerpt="You can use a Lifetime ISA to buy your first home or save for later life.",
    )
]


def provider_for(fake) -> OpenAIProvider:
    client = OpenAI(base_url=fake.base_url, api_key="test-key", timeout=2, max_retries=0)
    return OpenAIProvider(client=client, context_model="ctx", extract_model="reader")


def propose(fake, *, existing=("lisa.bonus: Government bonus",)):
    return provider_for(fake).propose_concepts(
        category=CATEGORY, pages=PAGES, existing=list(existing), limit=7
    )


def test_openai_proposals_come_back_as_said_with_usage(fake_openai):
    fake_openai.answer(
        {
            "concepts": [
                {
                    "id_suffix": "withdrawal.charge",
                    "name": "Withdrawal charge",
                    "description": "The 25% charge on withdrawals not for a first home or after 60.",
                },
                {"id_suffix": "Bad Id", "name": "x", "description": "short"},
            ]
        },
        model="reader",
        prompt_tokens=1200,
        completion_tokens=90,
    )
    proposals, usage = propose(fake_openai)
    assert proposals == [
        ProposedConcept(
            "withdrawal.charge",
            "Withdrawal charge",
            "The 25% charge on withdrawals not for a first home or after 60.",
        ),
        ProposedConcept("Bad Id", "x", "short"),  # kept: the caller drops it and counts it
    ]
    assert (usage.model, usage.prompt_tokens, usage.completion_tokens) == ("reader", 1200, 90)
    request = fake_openai.requests[0]
    assert request.model == "reader"
    schema = request.response_format["json_schema"]
    assert schema["name"] == "LlmConceptProposals" and schema["strict"] is True
    item = schema["schema"]["$defs"]["LlmProposedConcept"]
    assert set(item["required"]) == {"id_suffix", "name", "description"}
    assert item["additionalProperties"] is False
    prompt = request.prompt
    assert "Propose at most 7 concepts" in prompt
    assert "lifetime_isa: Lifetime ISA — Saving for a first home" in prompt
    assert "lisa.bonus: Government bonus" in prompt
    assert "Headings: Overview; Government bonus; Withdrawing your money" in prompt
    assert "Address: https://www.gov.uk/lifetime-isa" in prompt


def test_openai_proposals_for_a_category_without_concepts_say_so(fake_openai):
    fake_openai.answer({"concepts": []})
    assert propose(fake_openai, existing=())[0] == []
    assert "(none yet)" in fake_openai.requests[0].prompt


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("here are some concepts", "not valid JSON"),
        ({"proposals": []}, "does not match the schema"),
        ({"concepts": [{"id_suffix": "bonus", "name": "Bonus"}]}, "does not match the schema"),
    ],
)
def test_openai_malformed_proposals_are_a_provider_error(fake_openai, content, message):
    fake_openai.answer(content)
    with pytest.raises(ProviderError) as caught:
        propose(fake_openai)
    assert not isinstance(caught.value, ProviderTransientError)
    assert message in caught.value.reason


def test_openai_server_error_is_transient(fake_openai):
    fake_openai.error(500, "upstream exploded")
    with pytest.raises(ProviderTransientError, match="HTTP 500: upstream exploded"):
        propose(fake_openai)
