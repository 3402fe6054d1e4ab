"""A full or read-only disk is a clear `storage_unavailable` error, in the library's words, never
a traceback or "internal error", and never naming the file (it may be a private note's)."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chromadb.errors import InternalError

from sidecar.cli import main
from sidecar.errors import StorageUnavailable, storage_error
from sidecar.index import sync
from tests.notes import tide_vault

SECRET = "Private/Salary review.md"


def _real_sqlite_full(tmp_path: Path) -> sqlite3.OperationalError:
    """The error SQLite itself raises when its file cannot grow."""
    conn = sqlite3.connect(tmp_path / "tiny.sqlite")
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.execute("PRAGMA max_page_count = 3")
    try:
        for _ in range(50):
            conn.execute("INSERT INTO t VALUES (zeroblob(4000))")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("SQLite never filled up")


def test_full_disks_are_recognised_in_every_store_s_words(tmp_path: Path) -> None:
    chained = RuntimeError("could not write the batch")
    chained.__cause__ = OSError(errno.ENOSPC, "No space left on device", SECRET)
    for exc in (
        _real_sqlite_full(tmp_path),  # SQLite: "database or disk is full"
        OSError(errno.ENOSPC, "No space left on device", SECRET),
        ValueError("An IO error occurred: 'No space left on device (os error 28)'"),  # tantivy
        chained,
    ):
        found = storage_error(exc)
        assert isinstance(found, StorageUnavailable), exc
        assert found.code == "storage_unavailable" and found.status == 507
        assert "full" in found.message and SECRET not in found.message


def test_read_only_disks_are_recognised_and_other_errors_are_not() -> None:
    for exc in (OSError(errno.EROFS, "Read-only file system", SECRET),
                sqlite3.OperationalError("attempt to write a readonly database")):
        found = storage_error(exc)
        assert found is not None and found.status == 503 and "--data" in found.message
    for other in (ValueError("bad value"), OSError(errno.ENOENT, "No such file"), KeyError("x")):
        assert storage_error(other) is None


def test_ora_index_on_a_full_disk_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes/a.md").write_text("# A\n\nSome words about tides.\n")
    full = _real_sqlite_full(tmp_path)

    def no_room(*_: object, **__: object) -> None:
        raise full

    monkeypatch.setattr(sync.Syncer, "_finish", no_room)
    assert main(["index", str(vault), "--data", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ora index: the disk holding Ora's data folder is full")
    assert "Traceback" not in err and err.count("\n") == 1


def test_a_store_error_that_names_no_cause_is_judged_by_the_disk_it_writes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compaction = InternalError("Error in compaction: Failed to apply logs to the metadata segment")
    io = sqlite3.OperationalError("disk I/O error")
    for exc in (compaction, io):  # a disk with room: the error is not the disk's
        assert storage_error(exc, tmp_path) is None
    _no_room_left(monkeypatch)
    for exc in (compaction, io):
        found = storage_error(exc, tmp_path)
        assert found is not None and found.status == 507 and "full" in found.message
    assert storage_error(compaction) is None  # where it wrote unknown: not guessed
    assert storage_error(KeyError("x"), tmp_path) is None  # a bug stays a bug on a full disk


def _no_room_left(monkeypatch: pytest.MonkeyPatch) -> None:
    def usage(path: object) -> Any:
        return shutil._ntuple_diskusage(10**9, 10**9, 0)

    monkeypatch.setattr(shutil, "disk_usage", usage)


# A full disk in a process of its own: the disk reports no room left (statvfs, as a full disk
# does) and no file may grow past LIMIT bytes, so the writes SQLite and Chroma make fail with
# their own errors, as they fail there (SQLite could not size its shared-memory file: "disk I/O
# error"; Chroma: "disk I/O error", "Error in compaction"). Then the snippet runs.
_FULL_DISK = """
import resource, shutil, signal, sys
if sys.argv[1] == "full":
    shutil.disk_usage = lambda path: shutil._ntuple_diskusage(10**9, 10**9, 0)
from sidecar.cli import main
from sidecar.errors import StorageUnavailable
from sidecar.index.chroma import ChromaStore
from sidecar.index.sqlite import ThreadConnections

def fill(limit):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

exec(sys.argv[2])
"""


def _on_a_full_disk(snippet: str, *args: str,
                    room: bool = False) -> subprocess.CompletedProcess[str]:
    if not hasattr(signal, "SIGXFSZ"):
        pytest.skip("a file-size limit stands in for a full disk (POSIX)")
    return subprocess.run(
        [sys.executable, "-c", _FULL_DISK, "room" if room else "full", snippet, *args],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def _indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    vault, data = tide_vault(tmp_path, monkeypatch)
    assert main(["index", str(vault), "--data", str(data)]) == 0
    return vault, data


def test_a_reader_reads_an_index_on_a_disk_too_full_for_sqlite_s_shared_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, data = _indexed(tmp_path, monkeypatch)
    done = _on_a_full_disk(
        "db = ThreadConnections(__import__('pathlib').Path(sys.argv[3]), lambda c: None)\n"
        "fill(1024)\n"
        "print(db.get().execute('SELECT count(*) FROM files').fetchone()[0])\n"
        "try:\n"
        "    with db.transaction() as conn:\n"
        "        conn.execute('DELETE FROM files')\n"
        "except StorageUnavailable as err:\n"
        "    print(err.message)\n",
        str(data / "ledger.sqlite"))
    assert done.returncode == 0, done.stderr
    rows, refused = done.stdout.splitlines()
    assert rows == "6" and refused.startswith("the disk holding Ora's data folder is full")
    assert sqlite3.connect(data / "ledger.sqlite").execute(
        "SELECT count(*) FROM files").fetchone() == (6,)  # nothing was written


def test_ora_search_on_a_full_disk_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, data = _indexed(tmp_path, monkeypatch)
    done = _on_a_full_disk("fill(1024)\nsys.exit(main(sys.argv[3:]))",
                           "search", str(vault), "tide harbour", "--data", str(data), "--json",
                           "--no-rerank")
    # Chroma writes its SQLite file as it starts, so the vectors cannot be read here: the one
    # line a writer gives, nothing on stdout.
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ora search: the disk holding Ora's data folder is full")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


_CHROMA_FILLS = """
import numpy as np
from pathlib import Path
data = Path(sys.argv[3])
store = ChromaStore(data, "")
rng = np.random.default_rng(7)

def batch(n, start):
    v = rng.normal(size=(n, 384)).astype("float32")
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return ([f"c{start + i}" for i in range(n)], v, ["words " * 60] * n,
            [{"path": f"n{start + i}.md"} for i in range(n)])

store.upsert("default", False, *batch(50, 0))
fill(max(f.stat().st_size for f in data.rglob("*") if f.is_file()) + 4096)
try:
    for k in range(1, 60):
        store.upsert("default", False, *batch(100, 1000 * k))
except StorageUnavailable as err:
    print("StorageUnavailable:", err.message)
except Exception as err:
    print(type(err).__name__)
"""


def test_chroma_failing_on_a_full_disk_is_the_full_disk_error(tmp_path: Path) -> None:
    done = _on_a_full_disk(_CHROMA_FILLS, str(tmp_path / "full"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("StorageUnavailable: the disk holding Ora's data folder is full")
    # The same failure on a disk with room is not called a full disk.
    done = _on_a_full_disk(_CHROMA_FILLS, str(tmp_path / "room"), room=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "InternalError"
