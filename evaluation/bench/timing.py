"""Latencies of the three paths a question can take: the raw unit query, the search
service, and the HTTP API served by processes of its own; the API under several clients at
once; and the embedding of one question alone, the other half of a search's floor."""

from __future__ import annotations

import datetime as dt
import logging
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import numpy as np
from django.db import transaction
from django.utils import timezone

from evaluation.bench.draws import BenchQueries
from evaluation.bench.load import LoadLevel, load_measure
from evaluation.bench.options import BenchOptions, Progress
from evaluation.bench.serve import ServedApi, api_client, api_served
from knowledge import retrieval
from knowledge.domain.questions import ConversationTurn
from knowledge.embeddings import get_embedder
from knowledge.providers import HeuristicProvider
from knowledge.query.vocabulary import taxonomy_file_vocabulary
from navigator.models import ApiToken
from navigator.services import api_token_create

K = 5
UNIT_LIMIT = 2 * K * 10  # what concept_search asks nearest_units for
WARMUP_CALLS = 5
BENCH_TOKEN = "bench-search"
# A person every kind of applicability the synthetic units carry is compared with.
BENCH_PROFILE = {
    "age": 40,
    "nation": "scotland",
    "annual_income": 65000,
    "employment": "self_employed",
    "partner": True,
    "children_ages": [4],
    "benefits": ["universal_credit"],
}


@dataclass
class Latencies:
    raw_sql_ms: list[float]
    service_ms: list[float]
    http_ms: list[float]
    http_embedded_ms: list[float]
    endpoint_ms: list[float]  # the endpoint's own `timings_ms.http`, embedding excluded
    embed_ms: list[float]  # the model's share of the embedding-included requests
    service_stages_ms: dict[str, list[float]]  # concept_search's own timings
    # The query analysis inside the endpoint (vocabulary check included), and the heuristic
    # analysis alone with the project's whole glossary and life-event map, in conversation.
    analysis_ms: list[float] = field(default_factory=list)
    analysis_alone_ms: list[float] = field(default_factory=list)
    api_peak_mb: float = float("nan")  # the largest API worker's peak resident size
    api_model_peak_mb: float = float("nan")  # the same with the embedding model loaded
    api_workers: int = 0
    # The real model embedding one question per call in this process, nothing else running.
    embed_alone_ms: list[float] = field(default_factory=list)
    concurrency: list[LoadLevel] = field(default_factory=list)
    # HTTP with a profile that every kind of unit applicability is compared with.
    http_profile_ms: list[float] = field(default_factory=list)

    @property
    def limit_p95_ms(self) -> float:
        """What a search cannot go below: one question's embedding and the unit query."""
        return p95(self.embed_alone_ms) + p95(self.raw_sql_ms)

    @property
    def e2e_p95_ms(self) -> float:
        return p95(self.http_embedded_ms)


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95)) if values else float("nan")


def latencies_measure(
    *, queries: BenchQueries, options: BenchOptions, floor: float, day: dt.date, progress: Progress
) -> Latencies:
    """Each path goes over all the questions in a pass of its own, the passes in turn and in
    a rotating order. Timing the three paths question by question favoured the later ones:
    the first to ask left the index pages in shared_buffers (at 100×, 47 ms p50 for the
    service against 33 ms for HTTP around it). Then the API under load, at each level of
    clients; then HTTP with the real embedder on a few, and the real embedder alone.
    The API runs in gunicorn workers of its own (evaluation.bench.serve)."""
    pairs = list(zip(queries.texts, queries.vectors, strict=True))
    result = Latencies([], [], [], [], [], [], defaultdict(list))
    for vector in queries.vectors:  # brings pages into the OS cache, untimed
        _raw_sql_ms(vector, floor=floor, day=day)
    with _api_client(dict(pairs), embed=False) as (client, server, token):
        for text, vector in pairs[:WARMUP_CALLS]:
            _service_timings(vector)
            _http_timings(client, text=text)
        passes = [
            lambda: _raw_sql_pass(result, pairs, floor=floor, day=day),
            lambda: _service_pass(result, pairs),
            lambda: _http_pass(result, pairs, client=client),
            lambda: _http_profile_pass(result, pairs, client=client),
        ]
        for repeat in range(options.repeats):
            progress(f"  repeat {repeat + 1}/{options.repeats}")
            turn = repeat % len(passes)
            for timed_pass in passes[turn:] + passes[:turn]:
                timed_pass()
        if options.concurrency:
            progress(f"  concurrent clients {', '.join(map(str, options.concurrency))}")
            result.concurrency = load_measure(
                server=server,
                token=token,
                k=K,
                texts=queries.texts,
                levels=options.concurrency,
                repeats=options.repeats,
            )
        result.api_peak_mb = server.workers_peak_mb()
        result.api_workers = server.workers
    result.analysis_alone_ms = analysis_alone_measure(queries.texts, repeats=options.repeats)
    if options.embedded_queries:
        progress(f"  HTTP with the local embedder ({options.embedded_queries} queries)")
        with _api_client(dict(pairs), embed=True) as (client, server, _):
            _http_embedded_pass(result, queries.texts[: options.embedded_queries], client=client)
            result.api_model_peak_mb = server.workers_peak_mb()
        progress("  the local embedder alone, one question a call")
        result.embed_alone_ms = embedding_alone_measure(queries.texts, repeats=options.repeats)
    return result


def _raw_sql_pass(result: Latencies, pairs: list, *, floor: float, day: dt.date) -> None:
    for _, vector in pairs:
        result.raw_sql_ms.append(_raw_sql_ms(vector, floor=floor, day=day))


def _service_pass(result: Latencies, pairs: list) -> None:
    for _, vector in pairs:
        elapsed, stages = _service_timings(vector)
        result.service_ms.append(elapsed)
        for stage, ms in stages.items():
            result.service_stages_ms[stage].append(ms)


def _http_pass(result: Latencies, pairs: list, *, client: httpx.Client) -> None:
    for text, _ in pairs:
        elapsed, stages = _http_timings(client, text=text)
        result.http_ms.append(elapsed)
        result.endpoint_ms.append(stages["http"])
        result.analysis_ms.append(stages["analysis"])


def _http_profile_pass(result: Latencies, pairs: list, *, client: httpx.Client) -> None:
    for text, _ in pairs:
        elapsed, _ = _http_timings(client, text=text, profile=BENCH_PROFILE)
        result.http_profile_ms.append(elapsed)


def _http_embedded_pass(result: Latencies, texts: list[str], *, client: httpx.Client) -> None:
    for text in texts[: 2 * WARMUP_CALLS]:  # the model's first calls are far slower
        _http_timings(client, text=text)
    for text in texts:
        elapsed, stages = _http_timings(client, text=text)
        result.http_embedded_ms.append(elapsed)
        result.embed_ms.append(stages["embed"])


def embedding_alone_measure(texts: list[str], *, repeats: int) -> list[float]:
    """The real embedder on one text per call, in this process, after warm-up. It is called
    itself, not through query_vectors, whose held vectors would answer a repeated text."""
    embedder = get_embedder()
    for text in texts[: 2 * WARMUP_CALLS]:  # the model's first calls are far slower
        embedder.embed([text])
    timings = []
    for _ in range(repeats):
        for text in texts:
            started = time.perf_counter()
            embedder.embed([text])
            timings.append(_ms_since(started))
    return timings


def analysis_alone_measure(texts: list[str], *, repeats: int) -> list[float]:
    """The heuristic analysis of each text as the next turn of a conversation (the text
    before it as the earlier question), with the vocabulary of the project's taxonomy file."""
    vocabulary = taxonomy_file_vocabulary()
    provider = HeuristicProvider()
    today = timezone.localdate()
    timings = []
    for _ in range(repeats):
        for earlier, text in zip(texts, texts[1:], strict=False):
            turns = [ConversationTurn("user", earlier), ConversationTurn("assistant", "It is.")]
            started = time.perf_counter()
            provider.analyse_query(
                query=text, conversation=turns, vocabulary=vocabulary, today=today
            )
            timings.append(_ms_since(started))
    return timings


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _raw_sql_ms(vector: np.ndarray, *, floor: float, day: dt.date) -> float:
    """Only the unit query is timed, in its transaction with the service's SET LOCALs."""
    with transaction.atomic():
        retrieval.tune_index_scans()
        started = time.perf_counter()
        retrieval.nearest_units(vector, floor=floor, limit=UNIT_LIMIT, category_ids=None, day=day)
        return _ms_since(started)


def _service_timings(vector: np.ndarray) -> tuple[float, dict[str, float]]:
    started = time.perf_counter()
    params = retrieval.SearchParams(query="benchmark question", k=K)
    result = retrieval.concept_search(params=params, query_vector=vector)
    return _ms_since(started), result.timings_ms


def _http_timings(
    client: httpx.Client, *, text: str, profile: dict | None = None
) -> tuple[float, dict[str, float]]:
    """The round trip as the client sees it, and the stage timings the endpoint reports."""
    body = {"query": text, "k": K} | ({"profile": profile} if profile else {})
    started = time.perf_counter()
    response = client.post("/api/v1/search", json=body)
    elapsed = _ms_since(started)
    response.raise_for_status()
    return elapsed, response.json()["timings_ms"]


@contextmanager
def _api_client(
    questions: dict[str, np.ndarray], *, embed: bool
) -> Iterator[tuple[httpx.Client, ServedApi, str]]:
    """A client holding a fresh token, the API served by its own processes, and the token
    (for more clients)."""
    ApiToken.objects.filter(name=BENCH_TOKEN).delete()
    _, raw = api_token_create(name=BENCH_TOKEN)
    served = api_served(questions=questions, model_name=get_embedder().name, embed=embed)
    with _quiet_httpx(), served as server, api_client(server.base_url, token=raw) as client:
        yield client, server, raw


@contextmanager
def _quiet_httpx() -> Iterator[None]:
    """httpx logs every request at INFO, which would bury the progress output."""
    logger = logging.getLogger("httpx")
    saved = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(saved)
