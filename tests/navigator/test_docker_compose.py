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


# --- start-up, secrets and TLS ------------------------------------------------------------


def services_running(compose, word: str) -> list[str]:
    return [
        name
        for name, service in compose["services"].items()
        if "command" in service and word in words(service["command"])
    ]


def test_web_start_does_not_load_the_taxonomy(compose):
    # Editors change the taxonomy on the screens; a restart must not load the file again.
    assert "load_taxonomy" not in words(compose["services"]["web"]["command"])


def test_taxonomy_is_loaded_only_by_the_one_off_bootstrap_service(compose):
    assert services_running(compose, "load_taxonomy") == ["bootstrap"]
    bootstrap = compose["services"]["bootstrap"]
    assert bootstrap.get("profiles"), "`docker compose up` must not start the bootstrap"
    assert bootstrap.get("restart", "no") == "no"
    command = words(bootstrap["command"])
    assert command.index("migrate") < command.index("load_taxonomy")


def test_database_password_has_no_default():
    text = (ROOT / "docker-compose.yml").read_text()
    assert "POSTGRES_PASSWORD:-" not in text and "${POSTGRES_PASSWORD}" not in text
    assert "${POSTGRES_PASSWORD:?" in text


def test_app_containers_get_the_host_the_origins_and_trust_the_proxy(compose):
    environment = compose["x-app"]["environment"]
    assert "NAVIGATOR_HOST" in environment["ALLOWED_HOSTS"]
    assert environment["CSRF_TRUSTED_ORIGINS"].startswith("https://${NAVIGATOR_HOST")
    assert environment["BEHIND_TLS_PROXY"] == "true"


def test_a_tls_terminating_proxy_is_the_only_way_in(compose):
    services = compose["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert proxy["image"].startswith("caddy:")
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in proxy["volumes"]}
    caddyfile = ROOT / mounts["/etc/caddy/Caddyfile"]
    assert "/data" in mounts, "certificates must survive a restart"
    text = caddyfile.read_text()
    assert "{$NAVIGATOR_HOST" in text and "reverse_proxy web:8000" in text
    assert "NAVIGATOR_HOST" in proxy["environment"]


def test_web_health_check_speaks_as_the_proxy_would(compose):
    # With SSL redirect on and only the public host allowed, a bare request gets 301 or 400.
    check = " ".join(compose["services"]["web"]["healthcheck"]["test"])
    assert "X-Forwarded-Proto" in check and "ALLOWED_HOSTS" in check
