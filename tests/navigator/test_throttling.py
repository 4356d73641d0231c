"""API rate limits live in the shared cache (Redis in production), and a flood of bad tokens
is refused per client address before any token is looked up, without a log row each."""

import os
import subprocess
import sys

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db.models import Sum
from django.test import RequestFactory

from navigator import services
from navigator.models import QueryLog
from navigator.services import api_token_create
from navigator.throttling import AuthFailureLimit, TokenRateThrottle
from tests.navigator.test_settings import ROOT

# A database number of its own, so the tests never touch a development server's keys.
TEST_REDIS = "redis://127.0.0.1:6379/13"


@pytest.fixture
def two_processes_caches():
    """Two cache clients on one Redis: what two gunicorn workers hold."""
    first, second = RedisCache(TEST_REDIS, {}), RedisCache(TEST_REDIS, {})
    try:
        first.clear()
    except Exception as exc:  # pragma: no cover - the machine has no Redis
        pytest.skip(f"Redis is not reachable on {TEST_REDIS}: {exc}")
    yield first, second
    first.clear()


def test_the_cache_is_redis_when_redis_url_is_set():
    script = (
        "import django; django.setup(); from django.conf import settings; print(settings.CACHES)"
    )
    environment = {**os.environ, "DEBUG": "true", "REDIS_URL": TEST_REDIS}
    environment["DJANGO_SETTINGS_MODULE"] = "navigator.settings"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "django.core.cache.backends.redis.RedisCache" in result.stdout
    assert "redis://127.0.0.1:6379/13" in result.stdout


def test_two_processes_share_one_token_counter(two_processes_caches):
    first_cache, second_cache = two_processes_caches
    request = RequestFactory().get("/api/v1/categories")
    request.auth = type("Token", (), {"pk": 41})()
    in_first = TokenRateThrottle("3/m", cache=first_cache)
    in_second = TokenRateThrottle("3/m", cache=second_cache)
    allowed = [throttle.allow_request(request) for throttle in (in_first, in_second, in_first)]
    assert allowed == [True, True, True]
    assert in_second.allow_request(request) is False  # the fourth call, whichever process
    assert in_first.wait() > 0


def test_two_processes_share_one_failure_counter(two_processes_caches):
    first_cache, second_cache = two_processes_caches
    request = RequestFactory().get("/api/v1/categories", REMOTE_ADDR="203.0.113.9")
    in_first = AuthFailureLimit("2/m", cache=first_cache)
    in_second = AuthFailureLimit("2/m", cache=second_cache)
    in_first.record_failure(request)
    assert not in_second.blocked(request)
    in_second.record_failure(request)
    assert in_first.blocked(request) and in_second.blocked(request)
    other = RequestFactory().get("/api/v1/categories", REMOTE_ADDR="203.0.113.10")
    assert not in_first.blocked(other)


@pytest.fixture
def failure_limit(db, monkeypatch):
    from navigator.api import AUTH_FAILURES

    monkeypatch.setattr(AUTH_FAILURES, "limit", 3)
    caches["default"].clear()
    yield AUTH_FAILURES
    caches["default"].clear()


def test_an_address_with_too_many_failures_is_refused_before_its_token_is_checked(
    client, failure_limit, monkeypatch
):
    good = api_token_create(name="good app")[1]
    lookups = []
    real_lookup = services.api_token_authenticate

    def counting_lookup(*, raw):
        lookups.append(raw)
        return real_lookup(raw=raw)

    monkeypatch.setattr(services, "api_token_authenticate", counting_lookup)

    def categories(raw, address="198.51.100.7"):
        return client.get(
            "/api/v1/categories", HTTP_AUTHORIZATION=f"Bearer {raw}", REMOTE_ADDR=address
        )

    assert [categories("nav_wrong").status_code for _ in range(3)] == [401, 401, 401]
    refused = categories(good)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "failed authentication" in refused.json()["detail"]
    assert len(lookups) == 3  # the fourth call's token was never looked up
    assert categories(good, address="198.51.100.8").status_code == 200


def test_a_flood_of_bad_tokens_adds_rows_for_its_kinds_not_for_each_call(client, failure_limit):
    for _ in range(40):
        client.get("/api/v1/categories", HTTP_AUTHORIZATION="Bearer x", REMOTE_ADDR="192.0.2.1")
    rows = QueryLog.objects.filter(token__isnull=True)
    assert rows.count() == 2  # one for the 401s, one for the 429s
    assert rows.aggregate(calls=Sum("repeats"))["calls"] == 40
    assert {row.client_address for row in rows} == {"192.0.2.1"}
    assert dict(rows.values_list("status_code", "repeats")) == {401: 3, 429: 37}


def test_a_blocked_address_is_refused_whatever_it_sends_and_oversized_bodies_share_a_row(
    client, failure_limit, settings
):
    settings.API_MAX_BODY_BYTES = 100
    big = '{"query": "' + "isa " * 100 + '"}'

    def search(address):
        return client.post(
            "/api/v1/search",
            big,
            content_type="application/json",
            HTTP_AUTHORIZATION="Bearer x",
            REMOTE_ADDR=address,
        )

    assert [search("192.0.2.9").status_code for _ in range(5)] == [413] * 5
    oversized = QueryLog.objects.filter(status_code=413)
    assert list(oversized.values_list("repeats", flat=True)) == [5]
    for _ in range(3):
        client.get("/api/v1/categories", HTTP_AUTHORIZATION="Bearer x", REMOTE_ADDR="192.0.2.9")
    assert search("192.0.2.9").status_code == 429  # blocked before its body is weighed


def test_calls_over_a_tokens_rate_share_one_log_row_naming_the_token(db, client, monkeypatch):
    from navigator.api import TOKEN_THROTTLE

    monkeypatch.setattr(TOKEN_THROTTLE, "num_requests", 1)
    caches["default"].clear()
    token, raw = api_token_create(name="busy app")
    statuses = [
        client.get("/api/v1/categories", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code
        for _ in range(6)
    ]
    assert statuses == [200, 429, 429, 429, 429, 429]
    throttled = QueryLog.objects.filter(status_code=429)
    assert list(throttled.values_list("token", "repeats")) == [(token.pk, 5)]
    caches["default"].clear()
