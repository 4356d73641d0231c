"""The API docs page works on a machine without internet: Swagger UI is served locally."""

from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_docs_page_lists_the_operations_with_no_network(page, live_server):
    local = urlparse(live_server.url).netloc
    outside = []

    def only_the_live_server(route):
        if urlparse(route.request.url).netloc == local:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_live_server)
    page.goto("/api/v1/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/search" in paths and "/api/v1/concepts/{taxonomy_id}" in paths
    assert outside == []
