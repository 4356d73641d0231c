"""`make eval-llm` without a key says so in one line; `manage.py eval_llm` runs end to end
against the fake OpenAI-compatible server on a two-page corpus: the model builds the
knowledge base (both extraction passes, adjudication), an audit sample is drawn, the three
evaluations run with the model paths on and off, and one report holds the figures side by
side with each step's tokens and cost."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import AtomicUnit
from tests.fake_openai import (  # noqa: F401
    Reply,
    chat_completion,
    fake_openai_fixture,
    point_settings_at,
    tool_call_completion,
)

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("individual-savings-accounts.json", "lifetime-isa.json")
ISA = "https://www.gov.uk/individual-savings-accounts"
LISA = "https://www.gov.uk/lifetime-isa"
_SENTENCE_WITH_AMOUNT = re.compile(r"[A-Z][^.\n]{5,200}£\d[\d,]*[^.\n]*\.")


def stand_in_model(request) -> Reply:
    """Answers each request as its shape asks: a page's context, a unit quoting the page's
    first sentence with an amount, verdicts, an analysis, a tool call."""
    body = request.body or {}
    if body.get("tools"):
        return Reply(body=tool_call_completion("knowledgeBaseSearch"))
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
    prompt = request.prompt
    if schema == "PageContext":
        answer = {
            "domain": "ISAs",
            "audience": "savers",
            "period": None,
            "category": "isa",
            "related_categories": [],
        }
    elif schema == "LlmUnits":
        quotes = _SENTENCE_WITH_AMOUNT.findall(prompt.split("concepts", 1)[-1])
        answer = {
            "units": [
                {
                    "unit_type": "threshold",
                    "text": quote,
                    "concept_id": "isa.annual_allowance",
                    "evidence_quote": quote,
                    "valid_from": None,
                    "valid_to": None,
                    "period_basis": "none",
                    "value_amount": None,
                    "value_unit": None,
                    "value_period": None,
                    "figures": [],
                    "example_of": None,
                }
                for quote in quotes[:2]
            ]
        }
    elif schema == "LlmAdjudication":
        answer = {"same_rule": False, "confidence": 0.9, "rationale": "different rules"}
    elif schema == "LlmQueryAnalysis":
        answer = {
            "turn_type": "new",
            "scope": "topic",
            "topic_shift": False,
            "entities": {},
            "standalone_query": "ISA allowance",
            "strategy": "specific",
            "sub_queries": [],
        }
    elif schema == "LlmClaimJudgement":
        answer = {"verdict": "unsupported", "fact_numbers": [], "explanation": "stand-in"}
    else:
        return Reply(400, {"error": {"message": f"stand-in: no answer for {schema!r}"}})
    return Reply(body=chat_completion(answer, prompt_tokens=1000, completion_tokens=100))


def lines(*records) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


@pytest.fixture
def inputs(tmp_path):
    corpus = tmp_path / "pages"
    corpus.mkdir()
    for page in PAGES:
        shutil.copy(ROOT / "fixtures" / "govuk" / page, corpus / page)
    gold = {"isa": [{"url": ISA, "span": "ISA"}], "lisa": [{"url": LISA, "span": "Lifetime ISA"}]}
    questions = [
        {"id": f"q{n}", "question": q, "answerable": True, "gold": gold[g], "kind": "specific"}
        for n, (q, g) in enumerate(
            [
                ("What's the ISA allowance?", "isa"),
                ("How many ISAs can I open?", "isa"),
                ("How much can I pay into a Lifetime ISA?", "lisa"),
                ("When can I take money out of a Lifetime ISA?", "lisa"),
            ]
        )
    ] + [
        {"id": f"u{n}", "question": q, "answerable": False, "gold": [], "category": c}
        for n, (q, c) in enumerate(
            [
                ("What's the 401(k) limit?", "US"),
                ("How much is council tax in Leeds?", "Council"),
                ("What's the VAT rate on books?", "VAT"),
            ]
        )
    ]
    verify = [
        {
            "id": f"v{n}",
            "answer": f"You can save up to £{amount} in ISAs in a tax year.",
            "claims": [
                {
                    "text": f"You can save up to £{amount} in ISAs",
                    "verdict": "supported" if amount == "20,000" else "contradicted",
                    "gold": [{"url": f"https://www.gov.uk/page-{n}"}],
                }
            ],
        }
        for n, amount in enumerate(["20,000", "15,000", "20,000", "4,000", "20,000"])
    ]
    tools = [
        {"id": "t1", "message": "What's the ISA allowance?", "should_call": True},
        {"id": "t2", "message": "What's 2 + 2?", "should_call": False},
    ]
    paths = {}
    for name, records in (("questions", questions), ("verify", verify), ("tools", tools)):
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text(lines(*records))
    return corpus, paths


def test_make_eval_llm_without_a_key_says_so_in_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "MAKEFLAGS")}
    result = subprocess.run(
        ["make", "--no-print-directory", "eval-llm"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode != 0
    assert len(said) == 1 and "eval-llm needs OPENAI_API_KEY" in said[0]


def test_the_command_needs_a_key(settings, tmp_path):
    settings.LLM_API_KEY = ""
    with pytest.raises(CommandError, match="needs a model"):
        call_command("eval_llm", "--out", str(tmp_path))


def test_eval_llm_writes_a_complete_report_from_the_fake_server(
    transactional_db, fake_openai, settings, inputs, tmp_path
):
    call_command("load_taxonomy", verbosity=0)
    point_settings_at(fake_openai, settings, LLM_MODEL_ANALYSIS="gpt-4o-mini")
    fake_openai.responder = stand_in_model
    corpus, files = inputs
    out = tmp_path / "report"
    try:
        run_eval_llm(corpus, files, out)
    finally:
        steps = {s["name"]: s for s in json.loads((out / "report.json").read_text())["steps"]}
        assert not {name: step["error"] for name, step in steps.items() if step["error"]}
    report = (out / "report.md").read_text()
    for heading in (
        "### Retrieval",
        "### Claim verification",
        "### When the knowledge base is called",
        "### Extraction",
        "## Steps",
        "## Audit sample",
    ):
        assert heading in report, heading
    extraction = steps["extract (openai)"]
    assert extraction["figures"]["units_made"] >= 2 and extraction["prompt_tokens"] >= 4000
    assert extraction["cost_usd"] > 0
    assert steps["eval_tool_calls (openai router, 2 runs)"]["figures"]["recall"] == 1.0
    assert steps["eval_tool_calls (openai router, 2 runs)"]["prompt_tokens"] == 2 * 2 * 100
    assert steps["eval_tool_calls (heuristic router)"]["prompt_tokens"] == 0
    assert steps["eval_retrieval --cv (openai analysis)"]["prompt_tokens"] > 0
    assert steps["eval_retrieval --cv (heuristic analysis)"]["prompt_tokens"] == 0
    living = AtomicUnit.objects.alive().count()
    assert living >= 2 and len(steps["audit sample"]["figures"]["units"]) == min(3, living)
    assert "| extract (openai) |" in report and "| **all** |" in report


def test_a_failing_step_is_reported_and_the_run_goes_on(
    transactional_db, fake_openai, settings, inputs, tmp_path
):
    call_command("load_taxonomy", verbosity=0)
    point_settings_at(fake_openai, settings)
    fake_openai.responder = lambda request: Reply(
        500, {"error": {"message": "stand-in outage", "type": "server_error"}}
    )
    corpus, files = inputs
    out = tmp_path / "report"
    with pytest.raises(CommandError, match=r"step\(s\) failed \(.*eval_tool_calls \(openai router"):
        call_command(
            "eval_llm",
            *("--corpus", str(corpus), "--questions", str(files["questions"])),
            *("--verify-cases", str(files["verify"]), "--tool-cases", str(files["tools"])),
            *("--runs", "1", "--out", str(out)),
        )
    steps = {s["name"]: s for s in json.loads((out / "report.json").read_text())["steps"]}
    assert "500" in steps["eval_tool_calls (openai router, 1 runs)"]["error"]
    assert steps["eval_tool_calls (heuristic router)"]["figures"]["recall"] == 1.0
    assert steps["extract (openai)"]["figures"]["by_status"] == {"failed": 2}
    assert "| eval_tool_calls (openai router, 1 runs) |" in (out / "report.md").read_text()


def run_eval_llm(corpus, files, out):
    call_command(
        "eval_llm",
        *("--corpus", str(corpus), "--questions", str(files["questions"])),
        *("--verify-cases", str(files["verify"]), "--tool-cases", str(files["tools"])),
        *("--captured-on", "2024-12-15", "--audit-size", "3", "--runs", "2", "--out", str(out)),
    )


@pytest.mark.slow
def test_the_script_make_runs_builds_its_own_database_and_writes_the_report(
    fake_openai, inputs, tmp_path
):
    """`.ci/eval_llm` (what `make eval-llm` runs once installed), end to end in a process of
    its own: a fresh embedded database under var/eval-*, the model at the fake server."""
    fake_openai.responder = stand_in_model
    corpus, files = inputs
    var_dir = f"var/eval-llm-test-{os.getpid()}"
    out = tmp_path / "report"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NAVIGATOR_VAR_DIR")},
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "EVAL_LLM_VAR_DIR": var_dir,
        "LLM_MAX_RETRIES": "0",
    }
    try:
        result = subprocess.run(
            [
                ".ci/eval_llm",
                *("--corpus", str(corpus), "--questions", str(files["questions"])),
                *("--verify-cases", str(files["verify"]), "--tool-cases", str(files["tools"])),
                *("--audit-size", "2", "--runs", "1", "--out", str(out)),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        shutil.rmtree(ROOT / var_dir, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "eval-llm: report written to" in result.stdout
    steps = {s["name"]: s for s in json.loads((out / "report.json").read_text())["steps"]}
    assert steps["extract (openai)"]["figures"]["units_made"] >= 2
    assert not [name for name, step in steps.items() if step["error"]]
