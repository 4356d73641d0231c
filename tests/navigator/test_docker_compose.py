"""No Docker engine runs here, so check that the compose file names real entry points."""

import importlib
import shlex
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def words(command) -> list[str]:
    """The words a service runs, looking inside `sh -c "a && b"`."""
    parts = command if isinstance(command, list) else shlex.split(command)
    if parts[:2] == ["sh", "-c"]:
        return shlex.split(parts[2].replace("&&", " && "))
    return parts


def test_services_with_health_checks_and_volumes(compose):
    services = compose["services"]
    assert set(services) >= {"db", "redis", "web", "worker", "beat"}
    for name in ("db", "redis", "web", "worker"):
        assert "healthcheck" in services[name], name
    assert "pgvector" in services["db"]["image"]
    assert {"pgdata", "redisdata"} <= set(compose["volumes"])


def test_settings_module_exists(compose):
    for name in ("web", "worker", "beat"):
        module = compose["services"][name]["environment"]["DJANGO_SETTINGS_MODULE"]
        assert importlib.util.find_spec(module) is not None, module


def test_gunicorn_points_at_the_wsgi_application(compose):
    command = words(compose["services"]["web"]["command"])
    target = command[command.index("gunicorn") + 1]
    module, attribute = target.split(":")
    assert callable(getattr(importlib.import_module(module), attribute))


def test_manage_py_commands_exist(compose):
    command = words(compose["services"]["web"]["command"])
    used = [command[i + 1] for i, word in enumerate(command) if word == "manage.py"]
    assert used and set(used) <= set(get_commands()), used


@pytest.mark.parametrize("service", ["worker", "beat"])
def test_celery_app_is_importable(compose, service):
    command = words(compose["services"][service]["command"])
    app_module = command[command.index("-A") + 1]
    module = importlib.import_module(app_module)
    assert module.celery_app.main == "navigator"
    assert command[command.index("-A") + 2] == service


def test_dockerfile_copies_the_apps():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("navigator", "knowledge", "curation"):
        assert f"COPY {package}" in dockerfile
