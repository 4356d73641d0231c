"""Settings come from the environment through one helper that fails loudly."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.exceptions import ImproperlyConfigured

from navigator.env import env_bool, env_float, env_int, env_list, env_str, env_url

ROOT = Path(__file__).resolve().parents[2]


def django_setup(**env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "navigator.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_the_default_secret_key():
    result = django_setup(DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_starts_with_a_real_secret_key():
    result = django_setup(DEBUG="false", SECRET_KEY="x" * 50, ALLOWED_HOSTS="navigator.example")
    assert result.returncode == 0, result.stderr
    assert "started" in result.stdout


def test_demo_mode_is_refused_in_production():
    result = django_setup(DEBUG="false", SECRET_KEY="x" * 50, NAVIGATOR_DEMO="true")
    assert result.returncode != 0
    assert "NAVIGATOR_DEMO" in result.stderr


@pytest.mark.parametrize(
    "name,value,reader",
    [
        ("DEBUG", "maybe", lambda: env_bool("DEBUG", False)),
        ("CELERY_TASK_TIME_LIMIT", "ten", lambda: env_int("CELERY_TASK_TIME_LIMIT", 600)),
        ("CELERY_TASK_TIME_LIMIT", "0", lambda: env_int("CELERY_TASK_TIME_LIMIT", 600, minimum=1)),
        ("DATABASE_URL", "mysql://x/y", lambda: env_url("DATABASE_URL", schemes=("postgres",))),
        (
            "SUPERSEDING_MIN_COSINE",
            "1.5",
            lambda: env_float("SUPERSEDING_MIN_COSINE", 0.8, minimum=-1.0, maximum=1.0),
        ),
        (
            "LLM_PROVIDER",
            "gpt",
            lambda: env_str("LLM_PROVIDER", "heuristic", choices=("heuristic",)),
        ),
    ],
)
def test_bad_values_name_the_variable_and_the_value(monkeypatch, name, value, reader):
    monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=f"{name}={value!r}"):
        reader()


def test_unset_and_blank_fall_back_to_defaults(monkeypatch):
    monkeypatch.delenv("NAVIGATOR_X", raising=False)
    assert env_bool("NAVIGATOR_X", True) is True
    monkeypatch.setenv("NAVIGATOR_X", "  ")
    assert env_int("NAVIGATOR_X", 7) == 7
    monkeypatch.setenv("NAVIGATOR_X", "a, b,,c")
    assert env_list("NAVIGATOR_X", []) == ["a", "b", "c"]


def test_bad_setting_stops_django_with_a_clear_message():
    result = django_setup(DEBUG="true", REDIS_URL="http://127.0.0.1:6379")
    assert result.returncode != 0
    assert "REDIS_URL='http://127.0.0.1:6379' is not valid" in result.stderr


def manage(*args: str, **env) -> subprocess.CompletedProcess:
    unset = {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "env,message",
    [
        ({}, "SECRET_KEY is unset (or the development default) while DEBUG is off"),
        ({"DEBUG": "true", "REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL="),
    ],
    ids=["no-debug", "bad-variable"],
)
def test_a_command_refused_by_the_settings_prints_their_message_alone(env, message):
    result = manage("create_api_token", "chat-assistant", **env)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def test_django_lines_are_printed_once_in_development():
    code = (
        "import logging, django; django.setup(); "
        "logging.getLogger('django.utils.autoreload').info('Watching for file changes'); "
        "logging.getLogger('django.server').info('\"GET / HTTP/1.1\" 200 2')"
    )
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**environment, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "navigator.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("Watching for file changes") == 1, result.stderr
    # The dev server's request lines keep Django's timestamp.
    assert re.findall(r'^\[.+\] "GET / HTTP/1.1" 200 2$', result.stderr, re.M), result.stderr


def test_every_variable_read_is_documented_in_env_example():
    documented = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M)
    )
    read = set()
    for path in (ROOT / "navigator").glob("*.py"):
        read |= set(re.findall(r'env_\w+\(\s*"([A-Z][A-Z0-9_]+)"', path.read_text()))
    assert read, "no variables found: the pattern is wrong"
    assert read <= documented, sorted(read - documented)


def test_tests_run_on_postgresql_with_pgvector(db):
    from django.db import connection

    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone() is not None


def test_celery_runs_eagerly_without_redis(settings):
    from navigator.celery import app

    if os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is set for this run")
    assert app.conf.task_always_eager is True


# --- production security ------------------------------------------------------------------

COMPOSE_VARIABLE = re.compile(r"\$\{(\w+)(?::([?-])([^}]*))?\}")


def compose_app_environment(**given: str) -> dict[str, str]:
    """The environment docker-compose.yml gives the app containers, its ${…} filled from
    `given` (a required one missing is a test error) or from the file's own defaults."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())

    def fill(match: re.Match) -> str:
        name, kind, default = match.groups()
        if name in given:
            return given[name]
        assert kind == "-", f"{name} is required by docker-compose.yml: give it in the test"
        return default

    return {
        name: COMPOSE_VARIABLE.sub(fill, str(value))
        for name, value in compose["x-app"]["environment"].items()
    }


def test_deploy_check_passes_without_a_warning_in_the_compose_environment():
    environment = compose_app_environment(
        SECRET_KEY=secrets.token_urlsafe(50),
        POSTGRES_PASSWORD=secrets.token_urlsafe(20),
        NAVIGATOR_HOST="navigator.example",
    )
    inherited = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**inherited, **environment},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_development_keeps_plain_http():
    # The dev server and the browser tests' live server speak plain HTTP.
    shown = django_setup_print(
        "SECURE_SSL_REDIRECT, settings.SECURE_HSTS_SECONDS, settings.SESSION_COOKIE_SECURE",
        DEBUG="true",
    )
    assert shown == "False 0 False"


def test_the_proxy_header_is_trusted_only_when_told_so():
    def proxy_header(**env) -> str:
        return django_setup_print("SECURE_PROXY_SSL_HEADER", SECRET_KEY="x" * 50, **env)

    assert proxy_header(DEBUG="false") == "None"
    assert proxy_header(DEBUG="false", BEHIND_TLS_PROXY="true") == str(
        ("HTTP_X_FORWARDED_PROTO", "https")
    )


def django_setup_print(setting: str, **env) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    code = f"import django; django.setup(); from django.conf import settings; print(settings.{setting})"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**environment, **env, "DJANGO_SETTINGS_MODULE": "navigator.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()
