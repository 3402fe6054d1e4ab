"""Index files hold private notes' text: only their owner may read them (0600 files, 0700
folders), on a fresh install whatever the umask, and on an existing one once a store opens."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from sidecar.cleaning.store import Queue
from sidecar.memory.store import open_store

from .conftest import write

ORA = str(Path(sys.executable).with_name("ora"))


def _index(vault: Path, data: Path) -> None:
    env = {**os.environ, "ORA_EMBED_MODEL": "int8", "ORA_MODELS_DIR": str(data.parent / "m")}
    subprocess.run([ORA, "index", str(vault), "--data", str(data), "--json"], check=True,
                   capture_output=True, env=env, timeout=300,
                   preexec_fn=lambda: os.umask(0o022))  # the usual umask: 0644 files


def _open_others(data: Path) -> None:
    queue = Queue(data)  # contradictions.sqlite
    queue.open_count()
    queue.close()
    open_store(data).close()  # memory.sqlite


def _readable_by_others(data: Path) -> list[str]:
    found = [data, *data.rglob("*")]
    return sorted(f"{p.relative_to(data.parent)} {stat.S_IMODE(p.stat().st_mode):o}"
                  for p in found if p.name != "m" and "/m/" not in p.as_posix()
                  and stat.S_IMODE(p.stat().st_mode) & 0o077)


def test_a_fresh_index_is_private_to_its_owner(tmp_path: Path) -> None:
    vault, data = tmp_path / "vault", tmp_path / "data"
    write(vault, "Secret.md", "---\ntype: engram\ntags: [private]\n---\nA private note.\n")
    old = os.umask(0o022)
    try:
        _index(vault, data)
        _open_others(data)
    finally:
        os.umask(old)
    names = {p.name for p in data.iterdir()}
    assert {"ledger.sqlite", "bm25.sqlite", "chroma", "contradictions.sqlite",
            "memory.sqlite"} <= names
    assert _readable_by_others(data) == []


def test_an_existing_install_is_tightened_when_it_opens(tmp_path: Path) -> None:
    vault, data = tmp_path / "vault", tmp_path / "data"
    write(vault, "Secret.md", "---\ntype: engram\ntags: [private]\n---\nA private note.\n")
    _index(vault, data)
    _open_others(data)
    for path in [data, *data.rglob("*")]:  # as an older version left them
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert _readable_by_others(data)
    _index(vault, data)
    _open_others(data)
    assert _readable_by_others(data) == []
