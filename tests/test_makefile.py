"""`make test` installs what the whole suite needs first; `make demo` and `make stop` leave no
embedded PostgreSQL running."""

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from navigator.embedded_db import embedded_database_stop

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned_commands(target: str) -> list[str]:
    """What `make <target>` would run, without running it (`make -n`). Run as a make of its
    own: under `make test`, the inherited MAKEFLAGS would add "Entering/Leaving directory"
    lines to what it prints."""
    own = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=ROOT,
        env=own,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_make_test_installs_debian_chromium_before_running_pytest():
    commands = planned_commands("test")
    chromium = next(i for i, line in enumerate(commands) if "apt-get install" in line)
    assert "chromium" in commands[chromium] and "chromium-driver" in commands[chromium]
    pytest_run = next(i for i, line in enumerate(commands) if "/pytest" in line)
    assert chromium < pytest_run


def test_the_browser_step_is_quiet_when_chromium_is_there():
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Chromium is not installed here")
    result = subprocess.run(
        ["make", "--no-print-directory", "browsers"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


# --- the demo's embedded PostgreSQL stops with the demo, or with `make stop` ------------------


def postmaster_pid(var_dir: Path) -> int | None:
    pid_file = var_dir / "pgdata" / "postmaster.pid"
    return int(pid_file.read_text().split()[0]) if pid_file.exists() else None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def process_ends(pid: int, timeout: float = 10) -> bool:
    """The postmaster removes its pid file a moment before it exits."""
    deadline = time.monotonic() + timeout
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not process_alive(pid)


def embedded_environment(var_dir: Path) -> dict[str, str]:
    outside = {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    environment = {k: v for k, v in os.environ.items() if k not in outside}
    return {**environment, "NAVIGATOR_VAR_DIR": str(var_dir), "DEBUG": "true"}


@pytest.fixture
def var_dir(tmp_path):
    """A var/ of its own, whose embedded PostgreSQL is stopped at the end whatever happens."""
    yield tmp_path
    embedded_database_stop(tmp_path)


def free_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def wait_for_http(url: str, server: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stdout.read()
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError:
            return  # an answer, whatever its status
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"no answer from {url} within {timeout}s")


@pytest.mark.slow
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_stopping_the_demo_server_stops_its_embedded_postgresql(var_dir, stop_signal):
    address = free_address()
    serve = shlex.split(planned_commands("demo")[-1].replace("127.0.0.1:8000", address))
    environment = {
        **embedded_environment(var_dir),
        "NAVIGATOR_DEMO": "true",
        "EMBEDDINGS_WARM_ON_START": "false",
    }
    server = subprocess.Popen(
        serve,
        cwd=ROOT,
        env=environment,
        text=True,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_http(f"http://{address}/api/v1/health", server)
        postgres = postmaster_pid(var_dir)
        assert postgres is not None and process_alive(postgres)
        server.send_signal(stop_signal)
        output, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert server.returncode == 0, output
    assert postmaster_pid(var_dir) is None and process_ends(postgres)
    assert (var_dir / "pgdata" / "PG_VERSION").exists()  # stopped, not deleted
    lines = [line for line in output.splitlines() if line.strip()]
    assert [line for line, count in Counter(lines).items() if count > 1] == []


def test_make_stop_stops_the_embedded_postgresql_and_keeps_its_data(var_dir):
    start = (
        "from pathlib import Path; import sys; from navigator.embedded_db import "
        "embedded_database_settings as start; start(Path(sys.argv[1]))"
    )
    subprocess.run([sys.executable, "-c", start, str(var_dir)], cwd=ROOT, check=True, timeout=120)
    postgres = postmaster_pid(var_dir)
    assert postgres is not None and process_alive(postgres)
    result = subprocess.run(
        ["make", "--no-print-directory", "stop"],
        cwd=ROOT,
        env=embedded_environment(var_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "stopped" in result.stdout
    assert postmaster_pid(var_dir) is None and process_ends(postgres)
    assert (var_dir / "pgdata" / "PG_VERSION").exists()
