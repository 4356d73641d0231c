"""Who got in, who failed to, which token was revoked, and how long questions are kept."""

import datetime as dt
from io import StringIO

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from navigator.models import AccessEvent, QueryLog
from navigator.services import (
    ADMIN_LOGIN_FAILURES,
    api_token_create,
    api_token_revoke,
    query_log_purge,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


def log_row(*, days_old: int) -> QueryLog:
    row = QueryLog.objects.create(endpoint="/api/v1/search", status_code=200, query="my pension")
    QueryLog.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - dt.timedelta(days=days_old)
    )
    return row


def test_the_query_log_cannot_be_deleted_or_changed_in_the_admin(client, superuser):
    row = log_row(days_old=0)
    client.force_login(superuser)
    delete = reverse("admin:navigator_querylog_delete", args=[row.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    changelist = client.get(reverse("admin:navigator_querylog_changelist"))
    assert changelist.status_code == 200
    assert b'value="delete_selected"' not in changelist.content
    client.post(
        reverse("admin:navigator_querylog_changelist"),
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert QueryLog.objects.filter(pk=row.pk).exists()


def test_revoking_a_token_is_recorded_with_who_did_it(superuser):
    token, _ = api_token_create(name="calculator", actor=superuser)
    api_token_revoke(token=token, actor=superuser)
    event = AccessEvent.objects.get(kind="token_revoked")
    assert event.actor == superuser and "calculator" in event.detail
    assert AccessEvent.objects.filter(kind="token_created", actor=superuser).exists()


def test_only_users_allowed_to_manage_tokens_create_or_revoke_them(superuser, expert):
    token, _ = api_token_create(name="calculator", actor=superuser)
    with pytest.raises(PermissionDenied):
        api_token_create(name="other", actor=expert)
    with pytest.raises(PermissionDenied):
        api_token_revoke(token=token, actor=expert)
    assert not AccessEvent.objects.filter(kind="token_revoked").exists()


def test_logins_and_failed_logins_are_recorded_with_the_address(client, superuser):
    login = reverse("admin:login")
    client.post(login, {"username": "root", "password": "wrong"}, REMOTE_ADDR="192.0.2.5")
    client.post(login, {"username": "root", "password": "pw-root-123"}, REMOTE_ADDR="192.0.2.5")
    failed = AccessEvent.objects.get(kind="login_failed")
    assert failed.username == "root" and failed.client_address == "192.0.2.5"
    assert AccessEvent.objects.get(kind="login").actor == superuser


def test_admin_login_is_refused_after_repeated_failures_for_that_name_and_address(
    client, superuser
):
    login = reverse("admin:login")

    def attempt(password, address="192.0.2.6"):
        form = {"username": "root", "password": password}
        return client.post(login, form, REMOTE_ADDR=address)

    for _ in range(ADMIN_LOGIN_FAILURES.limit):
        assert attempt("wrong").status_code == 200
    refused = attempt("pw-root-123")  # the right password, too late
    assert b"Too many failed logins" in refused.content
    assert "_auth_user_id" not in client.session
    assert AccessEvent.objects.filter(kind="login_throttled", username="root").exists()
    assert attempt("pw-root-123", address="192.0.2.7").status_code == 302  # another address


def test_purge_removes_only_rows_older_than_the_retention(superuser):
    old, recent = log_row(days_old=31), log_row(days_old=29)
    assert query_log_purge(older_than_days=30) == 1
    assert list(QueryLog.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not QueryLog.objects.filter(pk=old.pk).exists()
    assert AccessEvent.objects.get(kind="query_log_purged").detail.startswith("1 ")


def test_purge_command_uses_the_retention_setting(settings):
    settings.QUERY_LOG_RETENTION_DAYS = 10
    log_row(days_old=11), log_row(days_old=9)
    out = StringIO()
    call_command("purge_query_log", stdout=out)
    assert QueryLog.objects.count() == 1 and "1 query log row" in out.getvalue()


def test_the_purge_runs_every_night():
    entry = settings.CELERY_BEAT_SCHEDULE["purge-query-log-nightly"]
    assert entry["task"] == "navigator.tasks.purge_query_log"


def test_the_purge_refuses_a_retention_below_one_day():
    with pytest.raises(ValueError, match="older_than_days"):
        query_log_purge(older_than_days=0)
