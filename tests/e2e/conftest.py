"""Real headless Chromium (Debian's, never a downloaded one) against pytest-django's live server.

Without /usr/bin/chromium the browser tests are skipped on a laptop but fail in CI (CI=true),
where `make test` installs it: a browser test that silently never runs protects nothing.
"""

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
PASSWORD = "pw-e2e-123456"


def _missing(what: str) -> None:
    message = f"{what}; the browser tests need it (`make test` installs it)"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def browser(live_server, tmp_path, monkeypatch):
    """A fresh Chromium with its own profile directory, closed after the test."""
    if not CHROMIUM.exists():
        _missing(f"Debian's Chromium is not installed at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[dev]')")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # still plain blocking calls, so Django's async-context guard would refuse them wrongly.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir=tmp_path / "chromium-profile",
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            base_url=live_server.url,
            viewport={"width": 1400, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()
            # While that loop runs, Django keeps the test's database connection apart from
            # the thread's usual one; close it here, or the test database cannot be dropped.
            connections.close_all()


@pytest.fixture
def page(browser):
    return browser.pages[0] if browser.pages else browser.new_page()


@pytest.fixture
def operator(transactional_db):
    return get_user_model().objects.create_user("operator", password=PASSWORD, is_staff=True)


@pytest.fixture
def visitor(transactional_db):
    return get_user_model().objects.create_user("visitor", password=PASSWORD)


def admin_login(page, *, username: str, password: str = PASSWORD) -> None:
    """Fill in and submit the admin login form the page is showing."""
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
