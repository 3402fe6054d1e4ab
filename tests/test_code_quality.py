"""The code stays typed and linted: ruff, mypy --strict and the plugin's eslint run as tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    done = _run(str(BIN / "ruff"), "check", "sidecar", "tests", "bench", "scripts")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_strict_finds_nothing() -> None:
    done = _run(str(BIN / "mypy"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / "node_modules").is_dir() or shutil.which("npm") is None,
                    reason="npm dependencies are not installed (run make setup)")
def test_plugin_eslint_finds_nothing() -> None:
    done = _run("npm", "run", "--silent", "lint")
    assert done.returncode == 0, done.stdout + done.stderr
