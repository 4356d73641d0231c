"""API tokens, the query log and the access log (logins, token changes, purges)."""

from __future__ import annotations

import datetime as dt
import re

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from knowledge.embeddings import count_tokens, get_embedder
from navigator.models import AccessEvent, ApiToken, QueryLog, hash_token
from navigator.shared_cache import FailOpenCache, shared_cache_outage
from navigator.throttling import WindowCounter

ADMIN_LOGIN_FAILURES = WindowCounter(
    settings.ADMIN_LOGIN_FAILURE_RATE, prefix="admin-login-failures"
)

# NUL and lone surrogates (which JSON can carry): PostgreSQL text refuses both.
UNSTORABLE_TEXT = re.compile("[\x00\ud800-\udfff]")

# "Last used" to the minute: a write on every call would double a search's writes for a
# figure nobody reads more finely.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def api_token_create(*, name: str, actor=None) -> tuple[ApiToken, str]:
    """A new token; the raw value is returned once and never stored. `actor` is the admin
    user asking (None for the command line)."""
    _require(actor, "navigator.add_apitoken")
    name = name.strip()
    if not name:
        raise ValueError("name: must not be empty")
    if ApiToken.objects.filter(name=name).exists():
        raise ValueError(f"name: a token called {name!r} exists already")
    raw = ApiToken.new_raw_token()
    with transaction.atomic():
        token = ApiToken.objects.create(name=name, token_hash=hash_token(raw), token_prefix=raw[:8])
        access_event_record(kind="token_created", actor=actor, detail=_token_words(token))
    return token, raw


def api_token_revoke(*, token: ApiToken, actor=None) -> bool:
    """Revokes a live token and records who did; False if it was revoked already."""
    _require(actor, "navigator.change_apitoken")
    with transaction.atomic():
        revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        if revoked:
            access_event_record(kind="token_revoked", actor=actor, detail=_token_words(token))
    return bool(revoked)


def _require(actor, permission: str) -> None:
    if actor is not None and not actor.has_perm(permission):
        raise PermissionDenied(f"{permission} is required")


def _token_words(token: ApiToken) -> str:
    return f"{token.name} ({token.token_prefix}…, id {token.pk})"


def api_token_authenticate(*, raw: str) -> ApiToken | None:
    token = ApiToken.objects.filter(token_hash=hash_token(raw), revoked_at__isnull=True).first()
    now = timezone.now()
    if token is not None and (
        token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION
    ):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def query_log_write(**fields) -> QueryLog:
    """One row per API call. Its commit does not wait for the disk (synchronous_commit off,
    this transaction only): a crash may lose the last few log rows, never knowledge, and
    the caller is not kept waiting for a WAL flush (~4 ms a search). Text PostgreSQL cannot
    store (NUL, lone surrogates) is replaced, so that no call goes unlogged."""
    fields = {name: storable(value) for name, value in fields.items()}
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit = off")
        return QueryLog.objects.create(**fields)


def query_log_count_repeat(*, group: str, window_seconds: int, **fields) -> None:
    """Refusals of one kind from one address share a row per window: the first writes it
    (with `fields`), the others add one to its `repeats`. The row's id is kept in the
    shared cache under `group`; two processes racing on a window's first call may each
    write a row, which still bounds the log by windows, not by calls."""
    cache = FailOpenCache()
    row_id = cache.get(group)
    if row_id is not None:
        counted = QueryLog.objects.filter(pk=row_id).update(
            repeats=F("repeats") + 1, last_repeat_at=timezone.now()
        )
        if counted:
            return
    row = query_log_write(**fields)
    cache.set(group, row.pk, timeout=window_seconds + 1)


def storable(value):
    """`value` with text PostgreSQL refuses (NUL, lone surrogates) replaced by U+FFFD."""
    if isinstance(value, str):
        return UNSTORABLE_TEXT.sub("\ufffd", value)
    if isinstance(value, list | tuple):
        return [storable(item) for item in value]
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    return value


def query_log_purge(*, older_than_days: int, actor=None) -> int:
    """Deletes query log rows older than the retention (users' questions are personal
    data); the one way rows leave the log. Returns how many went."""
    if older_than_days < 1:
        raise ValueError("older_than_days: must be at least 1")
    cutoff = timezone.now() - dt.timedelta(days=older_than_days)
    with transaction.atomic():
        deleted, _ = QueryLog.objects.filter(created_at__lt=cutoff).delete()
        access_event_record(
            kind="query_log_purged",
            actor=actor,
            detail=f"{deleted} rows older than {older_than_days} days ({cutoff:%Y-%m-%d %H:%M})",
        )
    return deleted


def access_event_record(
    *,
    kind: str,
    actor=None,
    username: str = "",
    client_address: str | None = None,
    detail: str = "",
) -> AccessEvent:
    return AccessEvent.objects.create(
        kind=kind,
        actor=actor if actor is not None and actor.is_authenticated else None,
        username=storable(username)[:150],
        client_address=client_address,
        detail=storable(detail),
    )


def login_record(*, user, client_address: str | None) -> AccessEvent:
    return access_event_record(
        kind="login", actor=user, username=user.get_username(), client_address=client_address
    )


def login_failure_record(*, username: str, client_address: str | None) -> AccessEvent:
    """A failed login, counted towards refusing that name from that address for a while."""
    ADMIN_LOGIN_FAILURES.increment(_login_ident(username, client_address))
    return access_event_record(
        kind="login_failed", username=username, client_address=client_address
    )


def admin_login_refusal(*, username: str, client_address: str | None) -> str | None:
    """Why a login must be refused before its password is checked, or None. Counted per
    name and address: a guesser is stopped, and the real user elsewhere is not locked out."""
    ident = _login_ident(username, client_address)
    if ADMIN_LOGIN_FAILURES.count(ident) < ADMIN_LOGIN_FAILURES.limit:
        return None
    access_event_record(kind="login_throttled", username=username, client_address=client_address)
    minutes = -(-ADMIN_LOGIN_FAILURES.seconds_left() // 60)
    return f"Too many failed logins for this name from this address: try again in {minutes} min."


def _login_ident(username: str, client_address: str | None) -> str:
    return hash_token(f"{username.strip().lower()}|{client_address}")


def embedder_warm() -> None:
    """Loads the embedding model and the tokenizer, and runs each once, so that the
    process's first search does not wait for them (seconds on a CPU)."""
    get_embedder().embed(["How much can I save in an ISA?"])
    count_tokens("warm")


def health_report() -> dict:
    report = {"database": "ok", "redis": "not configured (tasks run eagerly)", "embedder": ""}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
        report["database"] = f"ok (pgvector {row[0]})" if row else "error: pgvector missing"
    except Exception as exc:  # health must answer whatever broke
        report["database"] = f"error: {type(exc).__name__}"
    if settings.REDIS_URL:
        report["redis"] = _redis_status(settings.REDIS_URL)
    outage = shared_cache_outage()
    if outage:
        report["limits"] = outage
    report["embedder"] = _embedder_status()
    healthy = report["database"].startswith("ok") and not report["redis"].startswith("error")
    report["status"] = "ok" if healthy else "degraded"
    return report


def _redis_status(url: str) -> str:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


def _embedder_status() -> str:
    embedder = get_embedder()
    loaded = getattr(embedder, "_model", True) is not None
    return f"{embedder.name} ({'loaded' if loaded else 'loads on first query'})"


def demo_api_token() -> str:
    """A fresh token for the demo's curl example (the old demo token is revoked). Demo only."""
    if not settings.DEMO_MODE:
        raise PermissionError("demo tokens exist only in demo mode (NAVIGATOR_DEMO=true)")
    for old in ApiToken.objects.filter(name__startswith="demo", revoked_at__isnull=True):
        api_token_revoke(token=old)
    name = f"demo {timezone.now():%Y-%m-%d %H:%M:%S.%f}"
    return api_token_create(name=name)[1]
