"""Debian's chromium, headless, for the HTML picture's tests.

.ci/run installs chromium; without it the browser tests are skipped with the reason in pytest's
summary, and under CI=true they fail instead (a missing browser is never a silent pass)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        message = "Debian's chromium is not installed: HTML browser tests not run"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return exe


def browser(profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def browser_dom(page: Path, tmp: Path) -> str:
    """The page's DOM after its scripts ran."""
    done = browser(tmp / "profile-dom", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
