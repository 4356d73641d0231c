import json
import re
import runpy
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from knowledge.retrieval import search as search_service

GUNICORN_CONFIG = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def _figure(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, f"no match for {pattern!r} in:\n{text}"
    return float(found.group(1))


@pytest.mark.slow
def test_bench_search_reports_latencies_recall_and_load_at_a_tiny_scale(
    django_db_blocker, monkeypatch, tmp_path
):
    """The command makes and drops its own database, so it needs no test database. Two
    workers are enough for two clients, and start faster than the machine's default."""
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    original_embedder = search_service.get_embedder
    out, err = StringIO(), StringIO()
    figures_file = tmp_path / "bench.json"
    with django_db_blocker.unblock():
        call_command(
            "bench_search",
            scales="0.01",
            queries=10,
            repeats=1,
            embedded_queries=3,
            concurrency="2,1",
            json_file=str(figures_file),
            stdout=out,
            stderr=err,
        )
    report = out.getvalue()

    assert "7 concepts, 78 units" in report
    for path in ("raw SQL", "service", "HTTP /api/v1/search, embedding excluded"):
        assert _figure(re.escape(path) + r".*?\s(\d+\.\d+)\s+\d+\.\d+\s+\d+\.\d+\n", report) > 0
    assert "HTTP /api/v1/search, embedding included" in report
    assert (
        0.0
        <= _figure(r"recall@10 against exact search at ef_search=\d+: (\d+\.\d+)", report)
        <= 1.0
    )
    assert "(target ≥ 0.98)" in report and "query analysis inside the endpoint: p95" in report
    assert _figure(r"limit_p95_ms = .*? = (\d+\.\d+) ms", report) > 0
    assert _figure(r"\n\s+2\s+(\d+\.\d+)\s", report) > 0  # 2 clients' requests per second
    assert "0.01×: 2 clients at once: 0 errors in 10 requests" in report
    assert _figure(r"peak ([\d,]+) MB", report.replace(",", "")) > 0
    assert search_service.get_embedder is original_embedder  # the benchmark's patch is undone
    assert "dropped the throwaway database" in err.getvalue()

    (scale,) = json.loads(figures_file.read_text())["scales"]
    assert scale["scale"] == 0.01 and scale["api_workers"] == 2
    assert isinstance(scale["hnsw_used"], bool)
    for key in ("e2e_p95_ms", "limit_p95_ms", "e2e_to_limit_p95", "http_to_raw_sql_p95"):
        assert scale[key] > 0, key
    for path in scale["paths"].values():
        assert path["n"] > 0 and 0 < path["p50_ms"] <= path["p95_ms"]
    for spread in ("analysis", "embedding_in_request", "embedding_alone"):
        assert 0 < scale[spread]["p50_ms"] <= scale[spread]["p95_ms"], spread
    assert [level["clients"] for level in scale["concurrency"]] == [1, 2]
    for level in scale["concurrency"]:
        assert level["errors"] == 0 and level["requests"] == 10
        assert level["rps"] > 0 and 0 < level["p50_ms"] <= level["p95_ms"]
        assert level["server_cpu_ms_per_request"] > 0 and level["client_cpu_ms_per_request"] > 0
    assert scale["indexes"]["unit_bytes"] > 0 and scale["memory_mb"]["api_worker_peak"] > 0
    assert 0 <= scale["recall_at_10"][0]["mean"] <= 1
    assert {check["name"] for check in scale["acceptance"]} >= {
        "analysis_p95_ms",
        "recall_at_10",
        "errors_1_clients",
        "errors_2_clients",
    }


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"concurrency": "0"}, "--concurrency: numbers must be positive"),
        ({"concurrency": "1,x"}, "--concurrency: not a list of numbers"),
        ({"recall_ef": "400,1600"}, "--recall-ef: pgvector takes ef_search up to 1000"),
        ({"json_file": "/no/such/folder/bench.json"}, "the folder /no/such/folder does not exist"),
    ],
)
def test_bench_search_refuses_bad_arguments_before_any_work(option, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("bench_search", scales="0.01", stdout=StringIO(), stderr=StringIO(), **option)


def test_gunicorn_workers_follow_the_cores_unless_web_concurrency_says(monkeypatch):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    config = runpy.run_path(str(GUNICORN_CONFIG))
    assert config["workers"] == config["default_workers"](config["cores"]())
    assert [config["default_workers"](cores) for cores in (1, 2, 4, 8, 64)] == [3, 5, 9, 16, 16]

    monkeypatch.setenv("WEB_CONCURRENCY", "7")
    assert runpy.run_path(str(GUNICORN_CONFIG))["workers"] == 7
    monkeypatch.setenv("WEB_CONCURRENCY", "many")
    with pytest.raises(ImproperlyConfigured, match="WEB_CONCURRENCY"):
        runpy.run_path(str(GUNICORN_CONFIG))
