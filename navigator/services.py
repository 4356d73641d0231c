"""API tokens and the query log."""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction
from django.utils import timezone

from knowledge.embeddings import get_embedder
from knowledge.models import Category
from navigator.models import ApiToken, QueryLog, hash_token

# "Last used" to the minute: a write on every call would double a search's writes for a
# figure nobody reads more finely.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def api_token_create(*, name: str) -> tuple[ApiToken, str]:
    """A new token; the raw value is returned once and never stored."""
    name = name.strip()
    if not name:
        raise ValueError("name: must not be empty")
    if ApiToken.objects.filter(name=name).exists():
        raise ValueError(f"name: a token called {name!r} exists already")
    raw = ApiToken.new_raw_token()
    token = ApiToken.objects.create(name=name, token_hash=hash_token(raw), token_prefix=raw[:8])
    return token, raw


def api_token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


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
    the caller is not kept waiting for a WAL flush (~4 ms a search)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit = off")
        return QueryLog.objects.create(**fields)


def health_report() -> dict:
    from django.conf import settings

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


def tool_definition() -> dict:
    """The OpenAI tool that downstream agents register, describing what the KB covers."""
    names = ", ".join(Category.objects.order_by("order").values_list("name", flat=True))
    return {
        "type": "function",
        "function": {
            "name": "knowledgeBaseSearch",
            "description": (
                "Search Navigator, a citation-grounded knowledge base of UK personal-finance rules "
                f"taken from gov.uk, for facts with their sources and validity dates. Covers: {names}. "
                "Use it instead of memory for any UK figure, threshold, eligibility rule or procedure; "
                "quote the returned sources. An outcome other than 'ok' means the knowledge base "
                "does not hold a reliable answer: say so rather than guessing."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The question in plain words"},
                    "as_of": {
                        "type": "string",
                        "format": "date",
                        "description": "Date the answer should hold on (YYYY-MM-DD); omit for today",
                    },
                    "categories": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Optional category slugs to search in",
                    },
                    "include_historical": {
                        "type": "boolean",
                        "description": "Also return past and upcoming figures",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }


def demo_api_token() -> str:
    """A fresh token for the demo's curl example (the old demo token is revoked). Demo only."""
    from django.conf import settings

    if not settings.DEMO_MODE:
        raise PermissionError("demo tokens exist only in demo mode (NAVIGATOR_DEMO=true)")
    for old in ApiToken.objects.filter(name__startswith="demo", revoked_at__isnull=True):
        api_token_revoke(token=old)
    name = f"demo {timezone.now():%Y-%m-%d %H:%M:%S.%f}"
    return api_token_create(name=name)[1]
