"""One version everywhere: `scripts/version.py check` passes on the repository, fails when any
one file drifts, and `set` (what `make version V=…` runs) moves every file together."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "version.py"
FILES = ("manifest.json", "versions.json", "package.json", "package-lock.json",
         "pyproject.toml", "sidecar/__init__.py")


def _version(*args: str, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_repository_versions_agree() -> None:
    done = _version("check")
    assert done.returncode == 0, done.stderr
    from sidecar import __version__
    assert done.stdout.strip() == f"version {__version__} everywhere"


@pytest.mark.parametrize("name", [f for f in FILES if f != "versions.json"])
def test_check_fails_when_one_file_changes(copy: Path, name: str) -> None:
    path = copy / name
    current = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))["version"]
    text = path.read_text(encoding="utf-8")
    assert f'"{current}"' in text
    path.write_text(text.replace(f'"{current}"', '"9.9.9"', 1), encoding="utf-8")
    done = _version("check", root=copy)
    assert done.returncode == 1
    drifted = name if name != "manifest.json" else "versions.json"  # then all the rest drift
    assert drifted in done.stderr


def test_check_fails_when_versions_json_lacks_the_version(copy: Path) -> None:
    (copy / "versions.json").write_text('{"0.0.1": "1.0.0"}\n', encoding="utf-8")
    done = _version("check", root=copy)
    assert done.returncode == 1 and "versions.json maps" in done.stderr


def test_set_moves_every_file_and_keeps_their_other_bytes(copy: Path) -> None:
    before = {name: (copy / name).read_text(encoding="utf-8") for name in FILES}
    done = _version("set", "3.4.5", root=copy)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "version 3.4.5 everywhere"
    old = json.loads(before["manifest.json"])["version"]
    for name in FILES:
        if name == "versions.json":
            continue
        after = (copy / name).read_text(encoding="utf-8")
        assert after == before[name].replace(f'"{old}"', '"3.4.5"', after.count('"3.4.5"'))
    table = json.loads((copy / "versions.json").read_text(encoding="utf-8"))
    min_app = json.loads(before["manifest.json"])["minAppVersion"]
    assert table == {**json.loads(before["versions.json"]), "3.4.5": min_app}
    assert _version("check", root=copy).returncode == 0


def test_set_refuses_a_version_that_is_not_semver(copy: Path) -> None:
    done = _version("set", "1.2", root=copy)
    assert done.returncode == 2 and "MAJOR.MINOR.PATCH" in done.stderr
    assert (copy / "manifest.json").read_text() == (ROOT / "manifest.json").read_text()
