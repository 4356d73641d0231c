"""`make test`, the README's one command, installs what the whole suite needs first."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned_commands(target: str) -> list[str]:
    """What `make <target>` would run, without running it (`make -n`)."""
    result = subprocess.run(
        ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60
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
