"""`eval_tool_calls`: the calling decision scored on a case file, by Navigator's own
analysis or by a chat model (the real client against the fake OpenAI-compatible server,
given the recommended prompt and every tool; no tool is run)."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from navigator.assistant import assistant_prompt
from tests.fake_openai import (  # noqa: F401
    Reply,
    chat_completion,
    fake_openai_fixture,
    point_settings_at,
    tool_call_completion,
)

CASES = [
    {
        "id": "a",
        "message": "What's the ISA allowance this year?",
        "should_call": True,
        "tags": ["plain"],
    },
    {"id": "b", "message": "What's 15% of £2,000?", "should_call": False, "tags": ["arithmetic"]},
    {"id": "c", "message": "hiya", "should_call": False, "tags": ["greeting"]},
    {
        "id": "d",
        "message": "can u tell me how the dole works",
        "should_call": True,
        "tags": ["colloquial"],
    },
    {
        "id": "e",
        "message": "Is it worth paying into a pension?",
        "should_call": True,
        "ambiguous": True,
        "tags": ["advice"],
    },
]


@pytest.fixture
def case_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(case) for case in CASES) + "\n")
    return path


def run(*args) -> tuple[str, dict]:
    from io import StringIO

    out, err = StringIO(), StringIO()
    call_command("eval_tool_calls", *map(str, args), "--json", stdout=out, stderr=err)
    text = out.getvalue()
    return text, json.loads(text.strip().splitlines()[-1])


@pytest.mark.django_db
def test_the_heuristic_router_scores_the_non_ambiguous_cases_and_the_ambiguous_apart(case_file):
    call_command("load_taxonomy", verbosity=0)
    text, report = run(case_file, "--router", "heuristic")
    assert (report["non_ambiguous"], report["ambiguous"]) == (4, 1)
    assert (report["precision"], report["recall"], report["accuracy"]) == (1.0, 1.0, 1.0)
    assert report["ambiguous_agreement"] == 1.0 and report["consistency"] == 1.0
    assert "precision 1.000, recall 1.000, accuracy 1.000 over 4 non-ambiguous" in text


@pytest.mark.django_db
def test_a_miss_is_reported_with_its_tags_and_why(tmp_path):
    call_command("load_taxonomy", verbosity=0)
    path = tmp_path / "cases.jsonl"
    wrong = {
        "id": "x",
        "message": "What's 15% of £2,000?",
        "should_call": True,
        "tags": ["arithmetic"],
    }
    path.write_text(json.dumps(CASES[0]) + "\n" + json.dumps(wrong) + "\n")
    text, report = run(path)
    assert report["recall"] == 0.5 and report["precision"] == 1.0
    assert report["misses_by_tag"] == {"arithmetic": "1/1"}
    assert report["misses"] == [
        {
            "id": "x",
            "should_call": True,
            "called": False,
            "tags": ["arithmetic"],
            "why": "arithmetic",
        }
    ]
    assert "x: wanted call (arithmetic): arithmetic" in text


def test_a_bad_case_file_names_its_line(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(CASES[0]) + "\n" + json.dumps({"id": "y", "message": "hi"}) + "\n")
    with pytest.raises(CommandError, match=r"line 2: should_call"):
        run(path)
    with pytest.raises(CommandError, match="not found"):
        run(tmp_path / "missing.jsonl")
    with pytest.raises(CommandError, match="--runs: at least 1"):
        run(path, "--runs", "0")


def test_the_model_router_needs_a_key(case_file, settings):
    settings.LLM_API_KEY = ""
    with pytest.raises(CommandError, match="--router openai needs LLM_API_KEY"):
        run(case_file, "--router", "openai")


@pytest.mark.django_db
def test_the_model_router_counts_a_knowledge_base_call_before_the_reply(
    case_file, fake_openai, settings
):
    call_command("load_taxonomy", verbosity=0)
    point_settings_at(fake_openai, settings, LLM_MODEL_ANALYSIS="assistant-model")
    fake_openai.reply(Reply(body=tool_call_completion("knowledgeBaseSearch")))  # a
    fake_openai.reply(Reply(body=tool_call_completion("calculator")))  # b: a sum, then
    fake_openai.reply(Reply(body=chat_completion("It's £300.")))  # the reply
    fake_openai.reply(Reply(body=chat_completion("Hello!")))  # c
    fake_openai.reply(Reply(body=tool_call_completion("web_search")))  # d: the web first,
    fake_openai.reply(Reply(body=tool_call_completion("knowledgeBaseSearch")))  # then Navigator
    fake_openai.reply(Reply(body=chat_completion("It depends.")))  # e
    text, report = run(case_file, "--router", "openai")
    assert (report["precision"], report["recall"], report["accuracy"]) == (1.0, 1.0, 1.0)
    assert report["ambiguous_agreement"] == 0.0
    assert report["usage"]["prompt_tokens"] == 7 * 100
    first = fake_openai.requests[0].body
    assert first["model"] == "assistant-model"
    assert first["messages"][0] == {"role": "system", "content": assistant_prompt()}
    names = {tool["function"]["name"] for tool in first["tools"]}
    assert {
        "knowledgeBaseSearch",
        "knowledgeBaseVerify",
        "knowledgeBaseAnalyze",
        "calculator",
    } <= names
    # A tool the model called is answered, not run, so the model can go on.
    after_calculator = fake_openai.requests[2].body["messages"]
    assert after_calculator[-1]["role"] == "tool" and "not run" in after_calculator[-1]["content"]


@pytest.mark.django_db
def test_a_failing_model_endpoint_is_a_clear_error(case_file, fake_openai, settings):
    point_settings_at(fake_openai, settings)
    fake_openai.error(500, message="upstream exploded")
    with pytest.raises(CommandError, match="the openai router failed"):
        run(case_file, "--router", "openai")


@pytest.mark.django_db
def test_floors_fail_a_regression_and_name_it(case_file):
    call_command("load_taxonomy", verbosity=0)
    run(case_file, "--floors", "precision=1.0,recall=1.0")
    with pytest.raises(CommandError, match="--floors: unknown figure 'speed'"):
        run(case_file, "--floors", "speed=1")


@pytest.mark.django_db
def test_a_miss_below_a_floor_fails(tmp_path):
    call_command("load_taxonomy", verbosity=0)
    path = tmp_path / "cases.jsonl"
    wrong = {"id": "x", "message": "hiya", "should_call": True, "tags": ["greeting"]}
    path.write_text(json.dumps(CASES[0]) + "\n" + json.dumps(wrong) + "\n")
    with pytest.raises(CommandError, match=r"regression: recall"):
        run(path, "--floors", "recall=0.9")
