"""A chat model judging the claims without figures of an answer, through the real `openai`
client and the fake OpenAI-compatible server: its verdict is used and labelled as a model's,
figures never reach it, and every way it can fail leaves the rules' verdict with the
failure named."""

import datetime as dt
from decimal import Decimal

import openai
import pytest

from knowledge.models import AtomicUnit, Category, Concept, Source
from knowledge.providers import OpenAIProvider
from knowledge.reading.aboutness import RULES
from knowledge.reading.candidates import Evidence
from knowledge.verification.check import answer_verify
from knowledge.verification.judge import claim_judge
from tests.fake_openai import fake_openai_fixture, point_settings_at  # noqa: F401

JUDGE = "judge-model"
DAY = dt.date(2024, 10, 1)
CLAIM = "Your son can keep his Child Trust Fund and have a Junior ISA alongside it."


def _fact(text: str, *, amount=None, valid_from=None) -> Evidence:
    concept = Concept(
        taxonomy_id="isa.junior.eligibility",
        name="Junior ISA eligibility",
        category=Category(slug="isa", name="ISAs"),
    )
    unit = AtomicUnit(
        unit_type="eligibility" if amount is None else "threshold",
        text=text,
        value_amount=None if amount is None else Decimal(amount),
        value_unit="GBP" if amount else "",
        valid_from=valid_from,
        concept=concept,
        source=Source(url="https://www.gov.uk/junior-individual-savings-accounts"),
    )
    return Evidence(unit, 0.83, "current")


FACTS = [
    _fact("You cannot have a Junior ISA as well as a Child Trust Fund."),
    _fact("You can transfer a Child Trust Fund into a Junior ISA."),
]


def _judge(fake, *, timeout: float = 2.0) -> OpenAIProvider:
    def client(wait: float):
        return openai.OpenAI(base_url=fake.base_url, api_key="test", max_retries=0, timeout=wait)

    return OpenAIProvider(
        client=client(30),
        context_model="x",
        extract_model="x",
        analysis_client=client(timeout),
        analysis_model=JUDGE,
    )


def _verified(answer: str, judge, facts=FACTS):
    # The rules read aboutness: these facts are the claim's by construction.
    return answer_verify(
        answer=answer, as_of=DAY, judge=judge, evidence_of=lambda c, d: facts, reader=RULES
    )


def _judgement(
    verdict="contradicted", facts=(1,), explanation="The page says you cannot have both."
):
    return {"verdict": verdict, "fact_numbers": list(facts), "explanation": explanation}


def test_the_models_verdict_is_used_and_says_it_is_a_models(fake_openai):
    fake_openai.answer(_judgement(), model=JUDGE)

    (claim,) = _verified(CLAIM, _judge(fake_openai)).claims

    assert (claim.verdict, claim.reason) == ("contradicted", "meaning_differs")
    assert claim.checked_by == f"model:{JUDGE}" and claim.fallback == ""
    assert claim.explanation == "The page says you cannot have both."
    assert [e.unit.text for e in claim.evidence] == [FACTS[0].unit.text]
    assert claim.knowledge_base_value == FACTS[0].unit.text


def test_the_prompt_holds_the_claim_its_sentence_the_day_and_the_numbered_facts(fake_openai):
    fake_openai.answer(_judgement("supported", (2,)), model=JUDGE)

    _verified(CLAIM, _judge(fake_openai))

    (request,) = fake_openai.requests
    assert request.model == JUDGE and request.response_format["type"] == "json_schema"
    prompt = request.prompt
    assert CLAIM.rstrip(".") in prompt and DAY.isoformat() in prompt
    assert "[1] type: eligibility" in prompt and "[2] type: eligibility" in prompt
    assert "You can transfer a Child Trust Fund into a Junior ISA." in prompt
    assert "source: https://www.gov.uk/junior-individual-savings-accounts" in prompt


def test_a_claim_with_a_figure_never_reaches_the_model(fake_openai):
    facts = [_fact("You can put up to £9,000 a year into a Junior ISA.", amount="9000")]

    (claim,) = _verified(
        "You can put £9,000 a year into a Junior ISA.", _judge(fake_openai), facts
    ).claims

    assert fake_openai.count == 0
    assert (claim.verdict, claim.checked_by) == ("supported", "rules")


@pytest.mark.parametrize(
    ("script", "named"),
    [
        pytest.param(
            lambda f: f.error(500, {"error": {"message": "boom"}}), "500", id="server-error"
        ),
        pytest.param(lambda f: f.answer(_judgement(), delay=3), "timed out", id="timeout"),
        pytest.param(lambda f: f.answer("I think it is wrong."), "not valid JSON", id="not-json"),
        pytest.param(lambda f: f.answer(_judgement(verdict="maybe")), "schema", id="bad-verdict"),
        pytest.param(lambda f: f.answer(_judgement(facts=(7,))), "fact 7", id="unknown-fact"),
        pytest.param(lambda f: f.answer(_judgement(facts=())), "names no fact", id="no-fact"),
    ],
)
def test_when_the_model_fails_the_rules_verdict_stands_with_the_failure_named(
    fake_openai, script, named
):
    script(fake_openai)

    (claim,) = _verified(CLAIM, _judge(fake_openai, timeout=1.0)).claims

    # the rules see "cannot" in the nearest fact and not in the claim
    assert (claim.verdict, claim.reason, claim.checked_by) == (
        "contradicted",
        "meaning_differs",
        "rules",
    )
    assert claim.fallback.startswith("openai judgement failed:")
    assert named.lower() in claim.fallback.lower()


def test_the_rules_judge_by_default_and_openai_when_configured(settings, fake_openai):
    assert claim_judge() is None
    point_settings_at(fake_openai, settings, LLM_MODEL_ANALYSIS=JUDGE)
    settings.CLAIM_JUDGE_PROVIDER = "openai"
    judge = claim_judge()
    assert isinstance(judge, OpenAIProvider) and judge.analysis_model == JUDGE
