"""A real Celery worker, over the real Redis, ingests a batch into the test database."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from celery import Celery
from django.db import connection

from knowledge.models import IngestJob, PageSnapshot
from knowledge.services import ingest

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
    database_url = worker_database_url()
    env = {**os.environ, "DEBUG": "true", "REDIS_URL": BROKER, "DATABASE_URL": database_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "navigator", "worker", "--pool=solo",
         "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
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
    client = Celery("navigator-test", broker=BROKER)
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
