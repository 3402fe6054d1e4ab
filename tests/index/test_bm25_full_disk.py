"""A disk that fills while tantivy writes the BM25 engine is the one-line storage error, even once
tantivy has removed what it was writing and the disk shows room again; the index writes on once
there is room.

As in tests/test_storage_errors.py, the full disk is a process of its own in which no file may
grow past a few bytes (RLIMIT_FSIZE): tantivy's worker thread fails on its segment files and its
writer is killed, as it was on a full 20 MB tmpfs. The disk itself keeps its room, so nothing is
judged by `disk_state`: the error must be recognised as tantivy's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.notes import tide_vault

_FULL = """
import resource, signal, sys
from pathlib import Path
from sidecar.errors import StorageUnavailable

def fill(limit):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

def room():
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)

exec(sys.argv[1])
"""


def _run(snippet: str, *args: str) -> subprocess.CompletedProcess[str]:
    if not hasattr(signal, "SIGXFSZ"):
        pytest.skip("a file-size limit stands in for a full disk (POSIX)")
    return subprocess.run(
        [sys.executable, "-c", _FULL, snippet, *args], capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


_ENGINE = """
from sidecar.index.bm25_engine import Bm25Engine
folder = Path(sys.argv[2])
engine = Bm25Engine(folder)
engine.add([(1, False, "kiwi tart", "en")])
engine.commit()
fill(64)
try:
    engine.add([(n, False, f"fig jam {n}", "en") for n in range(2, 3000)])
    engine.commit()
except StorageUnavailable as err:
    print(err.status, err.message)
engine.rollback()
engine.close()
room()
engine = Bm25Engine(folder)  # once there is room, the engine is written again
engine.add([(2, False, "fig jam", "en")])
engine.commit()
print(engine.count())
"""


def test_tantivy_failing_to_write_its_files_is_a_storage_error_naming_the_folder(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data" / "bm25" / "default__vault"
    done = _run(_ENGINE, str(folder))
    assert done.returncode == 0, done.stderr
    refused, count = done.stdout.splitlines()
    assert refused.startswith("507 Ora could not write its search index in ")
    assert str(folder) in refused and "may be full" in refused
    assert count == "2"


_STORE = """
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
bm25 = Bm25Store(Path(sys.argv[2]))
bm25.create("ns")
bm25.replace("ns", {}, {False: [SparseRow("a", "a.md", False, "kiwi tart", "A", "")]})
try:
    import sidecar.index.bm25_engine as bm25_engine
    commit = bm25_engine.Bm25Engine.commit
    def full_then(engine):
        fill(1)  # the disk fills as tantivy writes its segment
        try:
            commit(engine)
        finally:
            room()
    bm25_engine.Bm25Engine.commit = full_then
    bm25.replace("ns", {}, {False: [SparseRow("b", "b.md", False, "fig jam", "B", "")]})
except StorageUnavailable as err:
    print("refused")
bm25_engine.Bm25Engine.commit = commit
bm25.replace("ns", {}, {False: [SparseRow("c", "c.md", False, "plum pie", "C", "")]})
for word in ("kiwi", "fig", "plum"):
    print(word, [cid for cid, _ in bm25.search("ns", word, 5, private=False,
                                               include_archived=True)])
"""


def test_a_store_whose_engine_found_the_disk_full_writes_on_once_there_is_room(
    tmp_path: Path,
) -> None:
    done = _run(_STORE, str(tmp_path / "bm25.sqlite"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused", "kiwi ['a']", "fig ['b']", "plum ['c']"]


_INDEX = """
import sidecar.index.bm25_engine as bm25_engine
from sidecar.cli import main
add = bm25_engine.Bm25Engine.add

def full_from_now(engine, docs):  # the disk fills as the BM25 pass starts
    fill(1)
    return add(engine, docs)

if sys.argv[2] == "full":
    bm25_engine.Bm25Engine.add = full_from_now
sys.exit(main(sys.argv[3:]))
"""


def test_ora_index_whose_bm25_pass_fills_the_disk_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault, data = tide_vault(tmp_path, monkeypatch)
    done = _run(_INDEX, "full", "index", str(vault), "--data", str(data))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("ora index: Ora could not write its search index in ")
    assert f"{data}{os.sep}bm25" in done.stderr and "may be full" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    # With room again, the next run indexes every note and finds them by their words.
    assert _run(_INDEX, "room", "index", str(vault), "--data", str(data)).returncode == 0
    found = _run(_INDEX, "room", "search", str(vault), "harbour tides", "--data", str(data),
                 "--json", "--no-rerank")
    assert found.returncode == 0, found.stderr
    assert found.stdout.count('"path": "Notes/Tide ') == 6
