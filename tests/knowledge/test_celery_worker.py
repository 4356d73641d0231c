"""Celery: a real worker, over the real Redis, ingests a batch into the test database; a
worker killed in the middle of a page, or a page past its time limit, loses nothing and
leaves nothing running; the tasks' retry policy (transient LLM errors retried by Celery,
gov.uk fetches by the client)."""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from celery import Celery
from celery.exceptions import Retry
from django.db import connection

from knowledge import tasks
from knowledge.models import IngestItem, IngestJob, PageSnapshot, Source
from knowledge.providers import ProviderError, ProviderTransientError
from knowledge.services import ingest
from tests.knowledge import test_govuk

govuk_server = test_govuk.govuk_server  # the loopback gov.uk, a fixture

ROOT = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/13"  # a database of its own, flushed by the test


def redis_listening() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return False
    return True


def worker_database_url() -> str:
    db = connection.settings_dict
    host = quote(db["HOST"], safe="") if db["HOST"].startswith("/") else db["HOST"]
    port = f":{db['PORT']}" if db["PORT"] else ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{host}{port}/{db['NAME']}"


@pytest.fixture
def worker(transactional_db):
    if not redis_listening():
        pytest.fail("Redis is not listening on 127.0.0.1:6379 (.ci/run starts it)")
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    with solo_worker(BROKER) as process:
        yield process


@contextmanager
def solo_worker(broker: str) -> Iterator[subprocess.Popen]:
    """A Celery worker (one process) over `broker` and the test database, until the block
    ends."""
    env = {
        **os.environ,
        "DEBUG": "true",
        "REDIS_URL": broker,
        "DATABASE_URL": worker_database_url(),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "navigator",
            "worker",
            "--pool=solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.slow
def test_real_worker_ingests_a_batch_through_redis(worker):
    job = ingest.directory_job_create(root=ROOT / "fixtures" / "govuk")
    client = Celery("navigator-test", broker=BROKER, set_as_current=False)
    client.send_task("knowledge.tasks.ingest_batch", args=[job.pk])
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and worker.poll() is None:
        job.refresh_from_db()
        if job.status == IngestJob.Status.FINISHED:
            break
        time.sleep(0.3)
    assert worker.poll() is None, worker.stdout.read()
    progress = ingest.ingest_job_progress(job_id=job.pk)
    assert progress["status"] == "finished", progress
    assert progress["counts"]["failed"] == 0
    assert progress["done"] == job.total == 10
    assert PageSnapshot.objects.count() == 10


# --- retry policy ---------------------------------------------------------------------------


class ExtractionAttempts:
    """A snapshot extraction that fails `failures` times on a transient LLM error, then works;
    records each attempt."""

    def __init__(self, monkeypatch, *, failures: int, cause: Exception):
        from knowledge.services import extract, ingest

        self.attempts = 0
        self.failures, self.cause = failures, cause
        monkeypatch.setattr(extract, "snapshot_extract", self.extract)
        monkeypatch.setattr(ingest, "ingested_snapshot_id", lambda *, job_id, ref: 7)

    def extract(self, *, snapshot_id):
        from knowledge.services.extract import ExtractionFailed

        self.attempts += 1
        if self.attempts <= self.failures:
            run = SimpleNamespace(status="failed", error=str(self.cause))
            raise ExtractionFailed(run) from self.cause
        return SimpleNamespace(status="succeeded")


@pytest.fixture
def retries_asked(monkeypatch) -> list[dict]:
    """Celery's retry of extract_ingested, recorded instead of sent to a broker."""
    asked: list[dict] = []

    def retry(*, exc=None, **options):
        asked.append({"exc": exc, **options})
        return Retry(exc=exc, when=options.get("countdown"))

    monkeypatch.setattr(tasks.extract_ingested, "retry", retry)
    return asked


def run_as_a_worker(task, *args, retries: int = 0):
    """Call a task as a worker delivers it (not eagerly), on its `retries`-th retry."""
    task.push_request(is_eager=False, called_directly=False, retries=retries)
    try:
        return task(*args)
    finally:
        task.pop_request()


@pytest.mark.parametrize("retries", [0, 1, 2])
def test_transient_llm_error_is_retried_by_celery_with_jittered_backoff(
    monkeypatch, retries_asked, retries
):
    attempts = ExtractionAttempts(monkeypatch, failures=1, cause=ProviderTransientError("503"))
    with pytest.raises(Retry):
        run_as_a_worker(tasks.extract_ingested, 1, "/a-page", retries=retries)
    (asked,) = retries_asked
    assert isinstance(asked["exc"], tasks.RetryableExtractionFailure)
    assert 0 <= asked["countdown"] <= 30 * 2**retries  # full jitter under the backoff
    assert attempts.attempts == 1


def test_last_attempt_returns_the_failed_run_so_a_chord_still_completes(monkeypatch, retries_asked):
    ExtractionAttempts(monkeypatch, failures=1, cause=ProviderTransientError("503"))
    max_retries = tasks.extract_ingested.max_retries
    assert max_retries == 3
    assert run_as_a_worker(tasks.extract_ingested, 1, "/a-page", retries=max_retries) == "failed"
    assert retries_asked == []


def test_a_permanent_llm_error_is_not_retried(monkeypatch, retries_asked):
    ExtractionAttempts(monkeypatch, failures=1, cause=ProviderError("HTTP 400: bad request"))
    assert run_as_a_worker(tasks.extract_ingested, 1, "/a-page") == "failed"
    assert retries_asked == []


def test_eagerly_a_transient_llm_error_is_not_retried_at_once(monkeypatch, retries_asked):
    # The CLI runs tasks eagerly, where Celery would retry without waiting.
    attempts = ExtractionAttempts(monkeypatch, failures=1, cause=ProviderTransientError("503"))
    assert tasks.extract_ingested.apply(args=(1, "/a-page")).get() == "failed"
    assert attempts.attempts == 1 and retries_asked == []


def test_ingest_task_leaves_fetch_retries_to_the_govuk_client():
    assert not getattr(tasks.ingest_page, "autoretry_for", ())
    assert tasks.ingest_page.acks_late


# --- a worker lost in the middle of a page --------------------------------------------------

# A prefork worker (as in docker-compose.yml: a main process and pool processes) whose
# gov.uk client talks to the test's loopback server; each pool process builds its own.
LOOPBACK_WORKER = """
import os, sys
import django

django.setup()
from knowledge import govuk
from tests.knowledge.test_govuk import LoopbackTransport

clients = []

def loopback_client():
    if not clients:
        transport = LoopbackTransport(int(os.environ["FAKE_GOVUK_PORT"]))
        clients.append(govuk.ContentApiClient(transport=transport, max_attempts=1, timeout=30))
    return clients[0]

govuk.content_api_client = loopback_client
from navigator.celery import app

app.worker_main(sys.argv[1:])
"""
WAIT_SECONDS = 60


@pytest.fixture
def loopback_worker(transactional_db, govuk_server):
    if not redis_listening():
        pytest.fail("Redis is not listening on 127.0.0.1:6379 (.ci/run starts it)")
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    env = {
        **os.environ,
        "DEBUG": "true",
        "REDIS_URL": BROKER,
        "DATABASE_URL": worker_database_url(),
        "FAKE_GOVUK_PORT": str(govuk_server.port),
        "EMBEDDINGS_WARM_ON_START": "false",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            LOOPBACK_WORKER,
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        govuk_server.stopping.set()  # a stalled reply ends now rather than at its delay
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def wait_for(condition, worker: subprocess.Popen, what: str) -> None:
    """Poll `condition` until it holds; fail naming `what` if the worker dies or time is up."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.terminate()
            output = worker.communicate(timeout=20)[0]
            pytest.fail(f"waited in vain for {what}; worker output:\n{output}")
        time.sleep(0.2)


def pool_processes(worker: subprocess.Popen) -> list[int]:
    """The worker's pool processes: the processes whose parent is the worker."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == worker.pid:
            children.append(int(stat.parent.name))
    return children


def send_ingest_page(job: IngestJob, **options) -> None:
    client = Celery("navigator-test", broker=BROKER, set_as_current=False)
    client.send_task("knowledge.tasks.ingest_page", args=[job.pk, job.refs[0]], **options)


def job_finished(job: IngestJob):
    return lambda: IngestJob.objects.get(pk=job.pk).status == IngestJob.Status.FINISHED


@pytest.mark.slow
def test_a_worker_killed_mid_page_hands_the_page_to_a_new_process(loopback_worker, govuk_server):
    page = test_govuk.simple_page("/stalled", "A page whose first answer never comes")
    stall = test_govuk.json_reply(page, delay=WAIT_SECONDS)
    govuk_server.script("/api/content/stalled", stall, test_govuk.json_reply(page))
    job = ingest.govuk_job_create(paths=["/stalled"])
    send_ingest_page(job)
    wait_for(lambda: len(govuk_server.paths) == 1, loopback_worker, "the first request")
    wait_for(lambda: len(pool_processes(loopback_worker)) == 1, loopback_worker, "the pool")
    (pool_process,) = pool_processes(loopback_worker)
    os.kill(pool_process, signal.SIGKILL)  # as the kernel's OOM killer would
    wait_for(job_finished(job), loopback_worker, "the page to be ingested again")
    assert govuk_server.paths == ["/api/content/stalled"] * 2
    (item,) = job.items.all()
    assert item.outcome == IngestItem.Outcome.NEW
    source = Source.objects.get(url="https://www.gov.uk/stalled")
    assert list(PageSnapshot.objects.filter(source=source)) == [item.snapshot]
    assert source.current_snapshot == item.snapshot


@pytest.mark.slow
def test_a_page_past_the_soft_time_limit_fails_with_the_reason(loopback_worker, govuk_server):
    page = test_govuk.simple_page("/slow", "A page that answers too late")
    govuk_server.script("/api/content/slow", test_govuk.json_reply(page, delay=WAIT_SECONDS))
    job = ingest.govuk_job_create(paths=["/slow"])
    send_ingest_page(job, soft_time_limit=1, time_limit=WAIT_SECONDS)
    wait_for(job_finished(job), loopback_worker, "the page to fail on its time limit")
    (item,) = job.items.all()
    assert item.outcome == IngestItem.Outcome.FAILED
    assert item.reason.startswith("worker lost or timed out: the task's soft time limit")
    assert not Source.objects.exists() and not PageSnapshot.objects.exists()


def test_a_timed_out_extraction_returns_failed_so_the_jobs_chord_still_embeds(
    monkeypatch, retries_asked
):
    from celery.exceptions import SoftTimeLimitExceeded

    from knowledge.services import extract, ingest

    def out_of_time(*, snapshot_id):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(extract, "snapshot_extract", out_of_time)
    monkeypatch.setattr(ingest, "ingested_snapshot_id", lambda *, job_id, ref: 7)
    assert run_as_a_worker(tasks.extract_ingested, 1, "/a-page") == "failed"
    assert retries_asked == []


@pytest.mark.slow
def test_a_worker_reconnects_by_itself_when_redis_returns(transactional_db):
    """Its Redis stopped under a running worker and started again: the worker takes the
    next batch without being restarted."""
    from tests.navigator.test_faults_live import Redis, _free_port

    redis_server = Redis(_free_port())
    redis_server.start()
    broker = f"redis://127.0.0.1:{redis_server.port}/0"
    try:
        with solo_worker(broker) as process:
            time.sleep(3)  # connected and consuming
            redis_server.stop()
            time.sleep(3)  # the worker has lost its broker
            redis_server.start()
            job = ingest.directory_job_create(root=ROOT / "fixtures" / "govuk")
            Celery("navigator-test", broker=broker, set_as_current=False).send_task(
                "knowledge.tasks.ingest_batch", args=[job.pk]
            )
            wait_for(job_finished(job), process, "the batch sent after Redis returned")
        assert ingest.ingest_job_progress(job_id=job.pk)["status"] == "finished"
    finally:
        redis_server.stop()


@pytest.mark.slow
def test_beat_publishes_again_by_itself_once_redis_returns(caplog):
    """beat's scheduler, over a Redis stopped and started again: the send it could not make
    is logged, not fatal, and the next one reaches the queue without a restart."""
    import datetime as dt

    import redis
    from celery.beat import ScheduleEntry, Scheduler

    from navigator.celery import app as project_app
    from tests.navigator.test_faults_live import Redis, _free_port

    redis_server = Redis(_free_port())
    redis_server.start()
    broker = f"redis://127.0.0.1:{redis_server.port}/0"
    app = Celery("navigator-beat-test", broker=broker, set_as_current=False)
    app.conf.task_routes = project_app.conf.task_routes
    scheduler = Scheduler(app=app, lazy=True)
    entry = ScheduleEntry(
        name="sweep",
        task="knowledge.tasks.sweep_stale_work",
        schedule=dt.timedelta(minutes=10),
        app=app,
    )
    try:
        scheduler.apply_entry(entry, producer=scheduler.producer)
        redis_server.stop()
        with caplog.at_level("ERROR"):
            scheduler.apply_entry(entry, producer=scheduler.producer)  # logged, not raised
        redis_server.start()
        scheduler.apply_entry(entry, producer=scheduler.producer)

        queued = redis.Redis.from_url(broker).llen("celery")
        assert queued == 1  # the send after the restart (the first went with the old server)
        assert any("Message Error" in record.getMessage() for record in caplog.records)
    finally:
        redis_server.stop()
