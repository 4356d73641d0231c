"""Quality job with the `openai` provider: the settings point at the fake OpenAI-compatible
server, so the real client and real HTTP are exercised."""

import pytest
from django.core.management import CommandError, call_command

from curation.services.flags import flag_dismiss
from curation.services.quality import quality_check
from knowledge.models import QualityFlag
from tests.factories import CategoryFactory, ConceptFactory, UnitFactory, axis_vector
from tests.fake_openai import fake_openai_fixture, point_settings_at  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def llm(fake_openai, settings):
    point_settings_at(fake_openai, settings, LLM_MODEL_ADJUDICATE="judge")
    return fake_openai


@pytest.fixture
def isa():
    """Three concepts; two units of the Junior ISA concept (asked in this order)."""
    category = CategoryFactory(slug="isa_test")
    general = ConceptFactory(
        category=category, taxonomy_id="isa.allowance", embedding=axis_vector(0)
    )
    junior = ConceptFactory(
        category=category, taxonomy_id="isa.junior.allowance", embedding=axis_vector(1)
    )
    ConceptFactory(category=category, taxonomy_id="isa.transfer", embedding=axis_vector(2))
    at_home = UnitFactory(concept=junior, embedding=axis_vector(1, 0.2))
    misplaced = UnitFactory(concept=junior, embedding=axis_vector(0, 0.2))
    return general, junior, at_home, misplaced


def belongs(prompt_tokens=300, completion_tokens=20):
    return dict(
        content={
            "belongs": True,
            "suggested_concept": None,
            "confidence": 0.9,
            "reason": "It states the Junior ISA limit.",
        },
        model="judge",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def misplaced_in(concept_id, prompt_tokens=320, completion_tokens=25):
    return dict(
        content={
            "belongs": False,
            "suggested_concept": concept_id,
            "confidence": 0.8,
            "reason": "It is the adult ISA allowance.",
        },
        model="judge",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def answer(fake, reply):
    fake.answer(reply.pop("content"), **reply)


def test_the_llm_flags_what_it_says_is_misplaced_with_its_reason_and_tokens(llm, isa):
    general, junior, at_home, misplaced = isa
    answer(llm, belongs())
    answer(llm, misplaced_in("isa.allowance"))
    report = quality_check(provider="openai")
    flag = QualityFlag.objects.get()
    assert (flag.unit, flag.suggested_concept, flag.raised_by) == (misplaced, general, "openai")
    assert flag.reason == "LLM (judge, confidence 0.80): It is the adult ISA allowance."
    assert flag.margin is None  # no vector evidence claimed for an LLM's doubt
    assert (report.provider, report.model, report.units_checked, report.flags_raised) == (
        "openai",
        "judge",
        2,
        1,
    )
    assert (report.prompt_tokens, report.completion_tokens, report.provider_errors) == (620, 45, 0)
    first, second = llm.requests
    assert at_home.text in first.prompt and misplaced.text in second.prompt
    alternatives = second.prompt.split("Alternatives (id: name — what belongs):\n", 1)[1]
    offered = [line.split(":")[0] for line in alternatives.splitlines()]
    assert offered == ["isa.allowance", "isa.transfer"]  # nearest first; never its own


def test_an_open_flag_is_not_asked_about_again(llm, isa):
    answer(llm, belongs())
    answer(llm, misplaced_in("isa.allowance"))
    quality_check(provider="openai")
    answer(llm, belongs())
    report = quality_check(provider="openai")
    assert (report.flags_raised, report.already_open, llm.count) == (0, 1, 3)


def test_a_dismissed_suggestion_is_not_raised_again_and_none_is_a_suggestion_too(llm, isa, editor):
    answer(llm, belongs())
    answer(llm, misplaced_in("isa.allowance"))
    quality_check(provider="openai")
    flag_dismiss(flag_id=QualityFlag.objects.get().pk, user=editor, note="it is junior")
    answer(llm, belongs())
    answer(llm, misplaced_in("isa.allowance"))
    report = quality_check(provider="openai")
    assert (report.flags_raised, report.dismissed_before) == (0, 1)
    answer(llm, belongs())
    answer(llm, misplaced_in(None))  # fits none of the concepts shown
    report = quality_check(provider="openai")
    flag = QualityFlag.objects.get(status="open")
    assert (report.flags_raised, flag.suggested_concept) == (1, None)


def test_bad_answers_and_server_errors_are_counted_and_the_job_goes_on(llm, isa):
    general, junior, at_home, misplaced = isa
    llm.error(500, "upstream exploded")
    answer(llm, misplaced_in("isa.allowance"))
    report = quality_check(provider="openai")
    assert (report.provider_errors, report.flags_raised) == (1, 1)
    assert "HTTP 500" in report.errors[0]
    QualityFlag.objects.all().delete()

    answer(llm, misplaced_in("isa.savings"))  # not offered
    llm.answer("belongs: yes")  # not JSON
    report = quality_check(provider="openai")
    assert (report.provider_errors, report.flags_raised, report.units_checked) == (2, 0, 2)
    assert "'isa.savings'" in report.errors[0] and "not valid JSON" in report.errors[1]
    assert not QualityFlag.objects.exists()


def test_the_heuristic_stays_the_default_whatever_llm_provider_says(llm, isa, settings):
    settings.LLM_PROVIDER = "openai"
    report = quality_check()
    assert (report.provider, report.flags_raised, llm.count) == ("heuristic", 1, 0)
    assert QualityFlag.objects.get().raised_by == "heuristic"


def test_the_command_asks_the_llm_and_reports_errors_and_tokens(llm, isa, capsys):
    llm.error(500, "upstream exploded")
    answer(llm, misplaced_in("isa.allowance", prompt_tokens=400, completion_tokens=30))
    call_command("check_quality", provider="openai", category="isa_test")
    out = capsys.readouterr().out
    assert "1 misplaced flags raised" in out and "provider: LLM (OpenAI-compatible)" in out
    assert "1 unit(s) not checked" in out and "HTTP 500" in out
    assert "tokens: 400 prompt, 30 completion (judge)" in out
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("check_quality", "--provider", "oracle")
