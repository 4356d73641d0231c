"""schemathesis generates requests from the OpenAPI schema: whatever it sends, no 5xx."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from navigator.services import api_token_create

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())


@pytest.fixture
def bearer(db):
    return {"Authorization": f"Bearer {api_token_create(name='fuzz')[1]}"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_the_schema_allows_gets_a_server_error(case, bearer):
    response = case.call(headers=bearer)
    assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])
