"""Damaged index files (issue 10 item 9): found at open, rebuilt by a writer, named to a reader.

Each case damages a copy of a good data folder the way a crash, a full disk or a careless sync
tool would, then runs the commands a user runs: `ora search` (a reader) must not print a
traceback nor silently answer nothing; `ora index` (a writer) rebuilds; then search works again.
Every copy lives at a new path, so no Chroma client cached in this process has seen it before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main

from .conftest import write

ORA = str(Path(sys.executable).with_name("ora"))


def _truncate_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 400)


def _empty(path: Path) -> None:
    path.write_bytes(b"")
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "half-truncated-ledger": (lambda d: _truncate_half(d / "ledger.sqlite"), "ledger"),
    "garbage-bm25": (lambda d: _garbage(d / "bm25.sqlite"), "BM25 store"),
    "zero-byte-bm25": (lambda d: _empty(d / "bm25.sqlite"), "BM25 store"),
    "deleted-chroma": (lambda d: shutil.rmtree(d / "chroma"), "vector store"),
    "garbage-chroma": (lambda d: _garbage(d / "chroma" / "chroma.sqlite3"), "vector store"),
}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(vault, data) indexed once by a real `ora index` process, then never opened here."""
    root = tmp_path_factory.mktemp("good")
    vault = root / "vault"
    for n in range(12):
        write(vault, f"Engrams/Kettle {n}.md",
              f"---\ntype: engram\nnexus: []\ntags: []\n---\n# Kettle {n}\n\n"
              f"Vinegar dissolves limescale in kettle number {n}.\n")
    write(vault, "Engrams/Secret.md",
          "---\ntype: engram\nnexus: []\ntags: [private]\n---\nA private kettle note.\n")
    env = {**os.environ, "ORA_EMBED_MODEL": "int8", "ORA_MODELS_DIR": str(root / "models")}
    subprocess.run([ORA, "index", str(vault), "--data", str(root / "data"), "--json"],
                   check=True, capture_output=True, env=env, timeout=300)
    return vault, root / "data"


def _search(capsys: pytest.CaptureFixture[str], vault: Path, data: Path) -> tuple[int, Any]:
    code = main(["search", str(vault), "kettle limescale", "--data", str(data), "--json",
                 "--no-rerank"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, (json.loads(captured.out) if code == 0 else captured.err)


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_index_files_are_reported_to_readers_and_rebuilt_by_writers(
    case: str, good: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    vault, clean = good
    data = tmp_path / "data"
    shutil.copytree(clean, data)
    damage, what = DAMAGE[case]
    damage(data)

    code, err = _search(capsys, vault, data)  # a reader: the one command to run, no results
    assert code != 0
    assert what in err and f"run `ora index {vault}`" in err

    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0  # a writer rebuilds
    rebuilt = json.loads(capsys.readouterr().out)
    assert (rebuilt["files"], rebuilt["chunks"]) == (13, 13)

    code, doc = _search(capsys, vault, data)
    assert code == 0 and len(doc["results"]) == 10
