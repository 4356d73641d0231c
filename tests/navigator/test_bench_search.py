import re
from io import StringIO

import pytest
from django.core.management import call_command

from knowledge.retrieval import search as search_service


def _figure(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, f"no match for {pattern!r} in:\n{text}"
    return float(found.group(1))


@pytest.mark.slow
def test_bench_search_reports_latencies_and_recall_at_a_tiny_scale(django_db_blocker):
    """The command makes and drops its own database, so it needs no test database."""
    original_embedder = search_service.get_embedder
    out, err = StringIO(), StringIO()
    with django_db_blocker.unblock():
        call_command(
            "bench_search",
            scales="0.01",
            queries=10,
            repeats=1,
            embedded_queries=3,
            stdout=out,
            stderr=err,
        )
    report = out.getvalue()

    assert "7 concepts, 78 units" in report
    for path in ("raw SQL", "service", "HTTP /api/v1/search, embedding excluded"):
        assert _figure(re.escape(path) + r".*?\s(\d+\.\d+)\s+\d+\.\d+\s+\d+\.\d+\n", report) > 0
    assert "HTTP /api/v1/search, embedding included" in report
    assert 0.0 <= _figure(r"HNSW recall@10 = (\d+\.\d+)", report) <= 1.0
    assert _figure(r"ratio (\d+\.\d+) \(target ≤ 2\)", report) > 0
    assert _figure(r"peak ([\d,]+) MB", report.replace(",", "")) > 0
    assert search_service.get_embedder is original_embedder  # the benchmark's patch is undone
    assert "dropped the throwaway database" in err.getvalue()
