"""The code stays typed and linted: ruff, mypy --strict and the plugin's eslint run as tests."""

from __future__ import annotations

import ast
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


# Packages in the order the data flows through them: the vault's notes are chunked, then linted
# (lint measures a note as the index chunks it). A package never imports a later one, so each can
# be read, tested and changed without the ones after it.
_LAYERS = ("vault", "chunking", "lint")


def _sidecar_imports(path: Path) -> set[str]:
    """The `sidecar.*` modules a file imports, at any depth (imports inside functions count)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("sidecar.")}


def test_no_package_imports_a_later_one() -> None:
    wrong = []
    for i, layer in enumerate(_LAYERS):
        later = _LAYERS[i + 1:]
        for path in sorted((ROOT / "sidecar" / layer).glob("*.py")):
            for name in _sidecar_imports(path):
                if name.split(".")[1] in later:
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not wrong, "imports against the data's direction:\n" + "\n".join(wrong)
