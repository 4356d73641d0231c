"""Reads keep answering when the shared cache is down; an unreachable database answers 503
with Retry-After (API and screens), never a traceback; a job is not started, and no job row
is left, when the task queue cannot be reached; follow-up work never fails a saved change."""

import json
import logging
import socket

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError
from django.urls import reverse

from curation.models import BootstrapJob
from curation.services.bootstrap_queue import bootstrap_reextract_job_create
from knowledge.models import Category, IngestJob
from knowledge.task_queue import TaskQueueUnavailable, queue_after_commit
from navigator import services, shared_cache
from navigator.api import TOKEN_THROTTLE


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def redis_down(settings):
    """The shared cache is a Redis that refuses connections."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    yield
    shared_cache._reachable()


def test_search_answers_while_the_shared_cache_is_unreachable_and_health_says_so(
    kb, api, redis_down, caplog
):
    with caplog.at_level(logging.WARNING, logger="navigator.shared_cache"):
        answers = [api.search(query="What is the ISA allowance?") for _ in range(3)]

    assert [response.status_code for response in answers] == [200, 200, 200]
    assert answers[0].json()["concepts"]
    assert sum("shared cache unreachable" in r.message for r in caplog.records) == 1
    assert "counted per process" in services.health_report()["limits"]


def test_while_the_shared_cache_is_down_a_flood_is_still_bounded(kb, api, redis_down, monkeypatch):
    monkeypatch.setattr(TOKEN_THROTTLE, "num_requests", 2)
    statuses = [api.search(query="ISA allowance").status_code for _ in range(4)]
    assert statuses == [200, 200, 429, 429]


def test_an_unreachable_database_answers_503_naming_the_cause_without_the_drivers_words(
    kb, client, token, monkeypatch, settings
):
    settings.DEBUG = True  # the API's answer is the same whatever DEBUG says

    def unreachable(**kwargs):
        raise OperationalError(
            'connection failed: connection to server on socket "/tmp/secret/.s.PGSQL.5432" '
            "failed: Connection refused"
        )

    monkeypatch.setattr(services, "api_token_authenticate", unreachable)
    response = client.post(
        "/api/v1/search",
        json.dumps({"query": "ISA allowance"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token[1]}",
    )

    assert response.status_code == 503 and response["Retry-After"] == "5"
    body = response.json()
    assert body["outcome"] == "unavailable"
    assert body["detail"].startswith("the database is unavailable (connection refused)")
    assert "/tmp/secret" not in response.content.decode() and "Traceback" not in body["detail"]


def test_a_screen_answers_a_plain_503_page_when_the_database_is_unreachable(
    client, editor, monkeypatch
):
    from curation.views import jobs

    client.force_login(editor)

    def unreachable(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(jobs, "render", unreachable)
    response = client.get(reverse("curation:jobs"))

    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert b"The database is unavailable (the server was shut down or restarted)" in (
        response.content
    )


@pytest.fixture
def broker_down(settings):
    """Tasks go to workers through a Redis broker that refuses connections."""
    from celery import current_app

    app = current_app._get_current_object()
    # Read before the settings change: the app reads Django's settings at its first use.
    saved = app.conf.broker_url, app.conf.task_always_eager
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.TASK_QUEUE_CHECK_SECONDS = 0.5
    app.conf.broker_url, app.conf.task_always_eager = url, False
    _broker_pools_forgotten(app)
    yield
    app.conf.broker_url, app.conf.task_always_eager = saved
    _broker_pools_forgotten(app)


def _broker_pools_forgotten(app) -> None:
    """The app keeps the connections of the broker it first sent to (another test's)."""
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    # kombu keeps producer pools in a registry of its own, by connection: a pool closed here
    # would be handed out again to the next producer for the same broker.
    from kombu import pools

    pools.reset()


@pytest.mark.django_db
def test_a_bootstrap_job_is_refused_and_no_row_left_when_the_task_queue_is_down(
    broker_down, editor
):
    category, _ = Category.objects.get_or_create(slug="isa", defaults={"name": "ISAs", "order": 1})
    jobs = BootstrapJob.objects.count()

    with pytest.raises(TaskQueueUnavailable, match="the task queue is unavailable; nothing"):
        bootstrap_reextract_job_create(category_slug=category.slug, user=editor)

    assert BootstrapJob.objects.count() == jobs


@pytest.mark.django_db
def test_the_ingest_command_is_refused_and_no_job_left_when_the_task_queue_is_down(broker_down):
    jobs = IngestJob.objects.count()
    with pytest.raises(CommandError, match="the task queue is unavailable; nothing was started"):
        call_command("ingest", "--govuk", "/individual-savings-accounts")

    assert IngestJob.objects.count() == jobs


@pytest.mark.django_db
def test_follow_up_work_that_cannot_be_queued_is_logged_not_raised(
    broker_down, caplog, django_capture_on_commit_callbacks
):
    from knowledge.tasks import embed_units

    with (
        caplog.at_level(logging.WARNING, logger="knowledge.task_queue"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        queue_after_commit(embed_units)

    assert any("was not queued" in record.message for record in caplog.records)
