"""A ledger an older version wrote is read as it stands on a disk that cannot be written (full or
read-only): its upgrade waits for the next writable open, and `ora search` keeps answering."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sidecar.errors import StorageUnavailable
from sidecar.index.ledger import FileRow, Ledger
from sidecar.index.scope import NoteFilter
from sidecar.index.sqlite import ThreadConnections
from sidecar.retrieval.relations import RELATIONS_FILE, RelationGraph

ROW = FileRow(path="Notes/a.md", hash="h", mtime_ns=0, size=1, model="m", type="resource",
              tags=("project",), title="a", private=False, chunk_ids=("c0",),
              declared_cluster=None, cluster=None, decays=False,
              decay_date="2024-01-01T00:00:00", centroid=None, error=None)


def _version(path: Path, version: int | None = None) -> int:
    with sqlite3.connect(path, isolation_level=None) as conn:
        if version is not None:
            conn.execute(f"PRAGMA user_version = {version}")
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.close()
    return found


def _old_ledger(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path)
    ledger.put("default", [ROW])
    ledger.close()
    _version(path, 2)  # as the version before the folded tags
    return path


def test_an_old_ledger_is_read_on_a_read_only_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the upgrade's BEGIN IMMEDIATE raised "attempt to write a readonly database".
    path = _old_ledger(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(ThreadConnections, "_connect", _refuse)
        ledger = Ledger(path)
        assert list(ledger.rows("default")) == ["Notes/a.md"]
        found = ledger.scope_ids("default", NoteFilter.make(tags=["project"]), private=False)
        assert list(found) == [(False, "c0")]
        ledger.close()
    assert _version(path) == 2  # nothing written
    Ledger(path).rows("default")  # a writable open upgrades it
    assert _version(path) == 5


def test_a_ledger_from_before_the_stamps_ctime_is_read_on_a_read_only_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _old_ledger(tmp_path)
    with sqlite3.connect(path, isolation_level=None) as conn:  # as version 3 wrote it
        conn.execute("ALTER TABLE files DROP COLUMN ctime_ns")
        conn.execute("ALTER TABLE files DROP COLUMN inode")
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    with monkeypatch.context() as patch:
        patch.setattr(ThreadConnections, "_connect", _refuse)
        ledger = Ledger(path)
        assert ledger.rows("default")["Notes/a.md"].stamp == (0, 1, 0, 0)
        ledger.close()
    ledger = Ledger(path)  # a writable open adds the columns, 0 in the old rows
    assert ledger.rows("default")["Notes/a.md"].stamp == (0, 1, 0, 0)
    assert _version(path) == 5
    ledger.close()


def test_an_old_relations_file_is_read_on_a_read_only_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "data"
    graph = RelationGraph(folder, tmp_path, "default", 10**6)
    graph.refresh({})
    graph.close()
    files = list(folder.rglob(RELATIONS_FILE))
    with sqlite3.connect(files[0], isolation_level=None) as conn:  # before aliases were kept
        conn.execute("DROP TABLE notes")
        conn.execute("CREATE TABLE notes (namespace TEXT NOT NULL, path TEXT NOT NULL, hash TEXT"
                     " NOT NULL, links TEXT NOT NULL, private INTEGER NOT NULL, archived INTEGER"
                     " NOT NULL, PRIMARY KEY (namespace, path))")
        conn.execute("INSERT INTO notes VALUES ('default', 'a.md', 'h', '{}', 0, 0)")
    conn.close()
    monkeypatch.setattr(ThreadConnections, "_connect", _refuse)
    graph = RelationGraph(folder, tmp_path, "default", 10**6)
    # Before: SQLite's own "attempt to write a readonly database", from adding the column.
    # Now the file is read as it stands; its old row is read again, which needs the disk.
    with pytest.raises(StorageUnavailable):
        graph.refresh({"a.md": "h"})
    graph.close()


def _refuse(self: ThreadConnections) -> sqlite3.Connection:
    raise sqlite3.OperationalError("attempt to write a readonly database")


def test_a_setup_that_fails_leaves_no_connection_open(tmp_path: Path) -> None:
    opened: list[sqlite3.Connection] = []

    def setup(conn: sqlite3.Connection) -> None:
        opened.append(conn)
        raise sqlite3.OperationalError("duplicate column name: aliases")

    conns = ThreadConnections(tmp_path / "db.sqlite", setup)
    with pytest.raises(sqlite3.OperationalError):
        conns.get()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        opened[0].execute("SELECT 1")
