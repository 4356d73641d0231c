"""Search under load: several clients at once against the API's gunicorn workers.

Each level shares out the same requests (every benchmark question, `repeats` times) among
its clients, which take the next one as soon as their last is answered, so the levels
differ only in how many requests are in flight. The clients are threads of this process,
each with its own connection: a request costs the client about a millisecond of CPU
against tens in the server, so the interpreter lock they share is not what limits them
(each level reports the client's CPU per request, to show it, and the server's: the
workers' and their database sessions', from which follows what the cores could answer).
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from evaluation.bench.serve import ServedApi, api_client

START_SECONDS = 300  # for every client to have made its first request


@dataclass
class LoadLevel:
    clients: int
    seconds: float  # from all clients starting together to the last answer
    latencies_ms: list[float]  # of the answers with status 200
    errors: int  # any other status, or a transport error
    client_cpu_ms: float  # this process's CPU time over the level, all clients together
    server_cpu_ms: float  # the workers' and their database sessions'
    first_error: str = ""

    @property
    def requests(self) -> int:
        return len(self.latencies_ms) + self.errors

    @property
    def cores_used(self) -> float:
        """How many cores' worth of CPU the server and the clients used over the level."""
        return (self.server_cpu_ms + self.client_cpu_ms) / 1000 / self.seconds

    @property
    def rps(self) -> float:
        """Answered requests per second (errors are not throughput)."""
        return len(self.latencies_ms) / self.seconds


@dataclass
class _ClientOutcome:
    latencies_ms: list[float]
    errors: list[str]


@dataclass(frozen=True)
class _Target:
    base_url: str
    token: str
    k: int  # results asked for, as the benchmark's other HTTP passes ask


def load_measure(
    *,
    server: ServedApi,
    token: str,
    k: int,
    texts: list[str],
    levels: tuple[int, ...],
    repeats: int,
) -> list[LoadLevel]:
    target = _Target(base_url=server.base_url, token=token, k=k)
    return [
        _level_run(target, server, texts=texts, clients=clients, repeats=repeats)
        for clients in levels
    ]


def _level_run(
    target: _Target, server: ServedApi, *, texts: list[str], clients: int, repeats: int
) -> LoadLevel:
    work: queue.SimpleQueue[str] = queue.SimpleQueue()
    for _ in range(repeats):
        for text in texts:
            work.put(text)
    start = threading.Barrier(clients + 1, timeout=START_SECONDS)
    with ThreadPoolExecutor(max_workers=clients, thread_name_prefix="bench-client") as pool:
        futures = [
            pool.submit(_client_run, target, work, start, warm_up=texts[i % len(texts)])
            for i in range(clients)
        ]
        start.wait()
        server_cpu_started = server.cpu_seconds()
        started, cpu_started = time.perf_counter(), time.process_time()
        outcomes = [future.result() for future in futures]
        seconds = time.perf_counter() - started
        client_cpu_ms = (time.process_time() - cpu_started) * 1000
        server_cpu_ms = (server.cpu_seconds() - server_cpu_started) * 1000
    errors = [error for outcome in outcomes for error in outcome.errors]
    return LoadLevel(
        clients=clients,
        seconds=seconds,
        latencies_ms=[ms for outcome in outcomes for ms in outcome.latencies_ms],
        errors=len(errors),
        client_cpu_ms=client_cpu_ms,
        server_cpu_ms=server_cpu_ms,
        first_error=errors[0] if errors else "",
    )


def _client_run(
    target: _Target, work: queue.SimpleQueue[str], start: threading.Barrier, *, warm_up: str
) -> _ClientOutcome:
    """One client: an untimed request, then the shared requests until none is left."""
    outcome = _ClientOutcome([], [])
    with api_client(target.base_url, token=target.token) as client:
        try:
            _ask(client, warm_up, k=target.k)
        finally:
            start.wait()  # even after a failure, or the others would wait for ever
        while True:
            try:
                text = work.get_nowait()
            except queue.Empty:
                return outcome
            started = time.perf_counter()
            error = _ask(client, text, k=target.k)
            if error:
                outcome.errors.append(error)
            else:
                outcome.latencies_ms.append((time.perf_counter() - started) * 1000)


def _ask(client: httpx.Client, text: str, *, k: int) -> str:
    """One search; what went wrong, or ''."""
    try:
        response = client.post("/api/v1/search", json={"query": text, "k": k})
    except httpx.HTTPError as error:
        return f"{type(error).__name__}: {error}"
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    return ""
