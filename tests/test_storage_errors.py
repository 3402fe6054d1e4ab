"""A full or read-only disk is a clear `storage_unavailable` error, in the library's words, never
a traceback or "internal error", and never naming the file (it may be a private note's)."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.errors import StorageUnavailable, storage_error
from sidecar.index import sync

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
    for exc in (ValueError("bad value"), OSError(errno.ENOENT, "No such file"), KeyError("x")):
        assert storage_error(exc) is None


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
