"""The API as the search benchmark serves it: in processes of its own, under gunicorn with
production's settings (docker-compose: `gunicorn navigator.wsgi:application -c
gunicorn.conf.py`), so as many workers as production would start on this machine.

Serving from a thread of the benchmark's own process made client and server share one
interpreter lock: the client waited for the server's after-response work, and the server for
the client's parsing, which no caller of a real deployment pays. The worker processes load
`evaluation.bench.wsgi`, which answers each benchmark question with its planned vector
(`lookup`) or embeds it with the real model first (`model`), so that the rest of every
request does the same work.

Every level of concurrent clients meets the same workers: the benchmark measures how the
workers production would start on this machine serve 1, 4 or 16 clients, not a server
sized for each level. WEB_CONCURRENCY, passed on to gunicorn, sets the number here as it
does in production.
"""

from __future__ import annotations

import os
import re
import runpy
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

import httpx
import numpy as np
from django.conf import settings
from django.db import connection

from knowledge.embeddings import Embedder

_READING = re.compile(r" \([^)]*\)")  # a glossary meaning the analysis wrote in

GUNICORN_CONFIG = "gunicorn.conf.py"  # production's, at the project root
SESSIONS_PER_WORKER = 2  # its request connection and the search's side session
READY_SECONDS = 120
QUESTIONS_FILE = "NAVIGATOR_BENCH_QUESTIONS"
EMBEDDER_MODE = "NAVIGATOR_BENCH_EMBEDDER"
APPLICATION_NAME = "navigator-bench-api"  # the workers' database sessions, to wait for their end


@dataclass
class LookupEmbedder:
    """Answers each benchmark question with its planned vector: no model in the timing."""

    name: str
    vectors: dict[str, np.ndarray]

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(text) for text in texts])

    def _vector(self, text: str) -> np.ndarray:
        # The analysis writes a glossary term's meaning after it ("ISA (Individual Savings
        # Account)"): that reading searches with the question's own vector.
        found = self.vectors.get(text)
        return found if found is not None else self.vectors[_READING.sub("", text)]


@dataclass
class EmbedThenLookup:
    """Pays for the real model on the question, then answers with the planned vector, so
    the rest of the request does the same work as without embedding."""

    real: Embedder
    lookup: LookupEmbedder

    @property
    def name(self) -> str:
        return self.real.name

    def embed(self, texts: list[str]) -> np.ndarray:
        self.real.embed(texts)
        return self.lookup.embed(texts)


@dataclass
class ServedApi:
    base_url: str
    process: subprocess.Popen
    workers: int

    def workers_peak_mb(self) -> float:
        """The largest peak resident size (VmHWM) among the worker processes."""
        peaks = [_status_mb(pid, "VmHWM") for pid in self._worker_pids()]
        return max(peaks, default=float("nan"))

    def cpu_seconds(self) -> float:
        """CPU time used so far by the workers and by their database sessions that run on
        this machine (Linux; a session that ended is no longer counted)."""
        return sum(_cpu_seconds(pid) for pid in self._worker_pids() + _session_pids())

    def _worker_pids(self) -> list[int]:
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:  # not Linux
            return []
        return [int(child) for child in children.split()]


def _session_pids() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [APPLICATION_NAME]
        )
        return [row[0] for row in cursor.fetchall()]


def _cpu_seconds(pid: int) -> float:
    """User and system time of a process, 0 if it cannot be read (gone, or not here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _status_mb(pid: int, field: str) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024  # kB
    return float("nan")


@contextmanager
def api_served(
    *, questions: dict[str, np.ndarray], model_name: str, embed: bool
) -> Iterator[ServedApi]:
    """gunicorn serving the API over the current database on a loopback port, until the
    block ends; then the workers' database sessions are gone before this returns."""
    workers = configured_workers()
    _sessions_check(workers)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        questions_file = Path(folder) / "questions.npz"
        np.savez(
            questions_file,
            texts=np.array(list(questions)),
            vectors=np.stack(list(questions.values())),
            model=np.array(model_name),
        )
        # The listening socket is made here and inherited, so its port is known at once.
        listener = socket.create_server(("127.0.0.1", 0))
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        base_url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "evaluation.bench.wsgi:application",
                "-c",
                GUNICORN_CONFIG,
                "--bind",
                f"fd://{listener.fileno()}",
                "--log-level",
                "warning",
            ],
            env=_server_environment(questions_file, embed=embed),
            cwd=settings.BASE_DIR,
            pass_fds=[listener.fileno()],
        )
        try:
            _wait_until_ready(base_url, process)
            yield ServedApi(base_url=base_url, process=process, workers=workers)
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            listener.close()
            _wait_for_sessions_to_end()


def configured_workers() -> int:
    """The workers gunicorn starts with production's settings, this environment
    (WEB_CONCURRENCY) and this machine's cores: the served API inherits the environment."""
    return runpy.run_path(str(Path(settings.BASE_DIR) / GUNICORN_CONFIG))["workers"]


def api_client(base_url: str, *, token: str) -> httpx.Client:
    # trust_env=False: a proxy from the environment must not sit between client and server.
    return httpx.Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
        trust_env=False,
    )


def _sessions_check(workers: int) -> None:
    """Fail before serving, rather than with refused connections under load, when the
    workers' sessions would not fit in the server's max_connections."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('max_connections')::int, count(*) FROM pg_stat_activity"
            " WHERE backend_type = 'client backend'"
        )
        allowed, open_now = cursor.fetchone()
    needed = SESSIONS_PER_WORKER * workers
    if open_now + needed > allowed:
        raise RuntimeError(
            f"{workers} API workers need up to {needed} database sessions; PostgreSQL allows "
            f"{allowed} and {open_now} are open: set WEB_CONCURRENCY lower or raise max_connections"
        )


def _server_environment(questions_file: Path, *, embed: bool) -> dict[str, str]:
    """This process's environment with the production switches: DEBUG off, a secret of
    its own, this database by URL (so persistent connections, as production configures).
    Production terminates TLS at its proxy; the benchmark measures the app behind it over
    plain loopback HTTP, so the app's own redirect to HTTPS is off."""
    environment = {
        key: value for key, value in os.environ.items() if key not in ("NAVIGATOR_DEMO",)
    }
    environment.update(
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url(connection.settings_dict, application_name=APPLICATION_NAME),
        DJANGO_SETTINGS_MODULE="navigator.settings",
        **{QUESTIONS_FILE: str(questions_file), EMBEDDER_MODE: "model" if embed else "lookup"},
    )
    return environment


def database_url(database: dict, *, application_name: str) -> str:
    """A libpq URL for the same connection: host, port and every OPTIONS entry (sslmode,
    a socket directory given as `?host=`, ...) go in the query string, where libpq and
    dj-database-url read them back whether the host is a name or a socket path."""
    user = quote(database["USER"] or "", safe="")
    password = quote(database["PASSWORD"] or "", safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@"
    parameters = {key: str(value) for key, value in database.get("OPTIONS", {}).items()}
    if database["HOST"]:
        parameters["host"] = database["HOST"]
    if database["PORT"]:
        parameters["port"] = str(database["PORT"])
    parameters["application_name"] = application_name
    return f"postgresql://{credentials}/{quote(database['NAME'], safe='')}?{urlencode(parameters)}"


def _wait_until_ready(base_url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the benchmark's API server exited with status {process.returncode} (its errors are above)"
            )
        try:
            httpx.get(f"{base_url}/api/v1/health", timeout=5, trust_env=False)
            return  # any answer, 503 included (no Redis, say), means it serves
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"the benchmark's API server did not answer within {READY_SECONDS} s")


def _wait_for_sessions_to_end(timeout: float = 30) -> None:
    """Dropping the throwaway database later fails while a worker's session lingers."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = %s",
                [APPLICATION_NAME],
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
