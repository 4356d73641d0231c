"""schemathesis generates requests from the OpenAPI schema, valid and invalid: whatever it
sends, no 5xx, and every call to a logged endpoint leaves its QueryLog row.

`/health` and `/tool` are public and not logged (a health probe every few seconds would
fill the log), and a method an operation does not have (the negative cases' TRACE, PUT, ...)
is refused with 405 by the router before any operation: these are held to the first rule.
"""

import time
from collections import Counter

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from django.db.models import Sum
from hypothesis import HealthCheck, settings
from schemathesis.generation import GenerationMode

from knowledge.services.taxonomy import taxonomy_load_file
from navigator.api import AUTH_FAILURES, TOKEN_THROTTLE
from navigator.models import QueryLog
from navigator.services import api_token_create

EXAMPLES_PER_OPERATION = 350
UNLOGGED = {"/api/v1/health", "/api/v1/tool", "/api/v1/tools"}  # public, static


def sent_as_a_server_sends_it(application):
    """Reads the whole body, then closes the response, as gunicorn does after the last byte
    (the test client of werkzeug never closes it, and a search writes its log row on close)."""

    def served(environ, start_response):
        response = application(environ, start_response)
        try:
            return [b"".join(response)]
        finally:
            response.close()

    return served


schema = schemathesis.openapi.from_wsgi(
    "/api/v1/openapi.json", sent_as_a_server_sends_it(get_wsgi_application())
)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
OPERATIONS = len(list(schema.get_all_operations()))


@pytest.fixture(scope="module")
def tally():
    """Requests sent per operation; at the end, the count and the time they took."""
    calls, started = Counter(), time.perf_counter()
    yield calls
    seconds = time.perf_counter() - started
    print(f"\nschemathesis: {sum(calls.values())} requests in {seconds:.1f} s ({dict(calls)})")
    if len(calls) == OPERATIONS:  # the whole schema ran, not a -k selection
        assert sum(calls.values()) >= 1000


@pytest.fixture
def bearer(transactional_db, monkeypatch):
    taxonomy_load_file()  # real category slugs and concept ids to hit
    # Limits lifted, so that every generated request reaches its operation.
    monkeypatch.setattr(TOKEN_THROTTLE, "num_requests", 10**9)
    monkeypatch.setattr(AUTH_FAILURES, "limit", 10**9)
    return {"Authorization": f"Bearer {api_token_create(name='fuzz')[1]}"}


def logged_calls() -> int:
    return QueryLog.objects.aggregate(calls=Sum("repeats"))["calls"] or 0


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_gets_a_server_error_and_every_call_is_logged(case, bearer, tally):
    before = logged_calls()
    response = case.call(headers=bearer)
    tally[f"{case.method} {case.operation.path}"] += 1
    assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])
    reached = case.method.upper() == case.operation.method.upper()
    if reached and case.formatted_path not in UNLOGGED:
        assert logged_calls() == before + 1, (case.method, case.formatted_path, case.body)
