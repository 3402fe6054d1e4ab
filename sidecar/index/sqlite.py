"""SQLite connections for one writer thread and many reader threads.

Each thread gets its own connection (a connection must not be shared across threads while in
use); WAL mode lets readers see the last committed state while the writer works. Connections
run in autocommit mode and writes are grouped explicitly with `transaction()`.

A database on a disk that is full or read-only can still be read (`ora search` answers from the
index it holds): SQLite cannot make the shared-memory file WAL mode reads through there, so the
file is opened as it stands (read-only, `immutable`), which is exact while its write-ahead log
is empty, as a writer that closed leaves it. A connection opened so refuses `transaction()` with
the disk's StorageUnavailable; with committed writes still in the log, the open fails with it.
Its setup creates nothing and migrates nothing (`unwritable_conn`): a ledger an older version
wrote is read as it stands until a writable open upgrades it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sidecar.data_folder import private_file
from sidecar.errors import StorageUnavailable, storage_error


def unwritable_conn(conn: sqlite3.Connection) -> bool:
    """Whether `conn` was opened read-only (a full or read-only disk): a setup then skips its
    migrations, which the next writable connection makes."""
    return bool(conn.execute("PRAGMA query_only").fetchone()[0])


class ThreadConnections:
    """A lazily opened connection per thread to one database file."""

    def __init__(self, path: Path, setup: Callable[[sqlite3.Connection], None]) -> None:
        self.path = path
        self._setup = setup
        self._local = threading.local()
        self._by_thread: dict[threading.Thread, sqlite3.Connection] = {}
        self._guard = threading.Lock()
        self._setup_done = False

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = self._connect()
                self._local.unwritable = None
            except sqlite3.OperationalError as exc:
                unwritable = storage_error(exc, self.path.parent)
                if unwritable is None:
                    raise
                conn = self._connect_unwritable(unwritable, exc)
                self._local.unwritable = unwritable
            with self._guard:
                self._close_ended()
                if not self._setup_done:
                    try:
                        self._setup(conn)
                    except BaseException:
                        conn.close()  # not kept: the next call opens another
                        raise
                    # a read-only connection's setup leaves migrations to a writable one
                    self._setup_done = unwritable_conn(conn) is False
                self._by_thread[threading.current_thread()] = conn
            self._local.conn = conn
        return conn

    def _connect(self) -> sqlite3.Connection:
        private_file(self.path)  # it holds private notes' text: 0600, before SQLite opens it
        # check_same_thread=False only so another thread may close it (close_all, or once its
        # own thread has ended).
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            # Set once, by whoever creates the file: a reader changes nothing (it may have no
            # room to write the change).
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=10000")
        except BaseException:
            conn.close()  # an open connection keeps its locks on the file
            raise
        return conn

    def _connect_unwritable(self, unwritable: StorageUnavailable,
                            exc: sqlite3.OperationalError) -> sqlite3.Connection:
        """The file as it stands, read-only, on a disk that cannot be written (module doc)."""
        log = self.path.with_name(self.path.name + "-wal")
        if log.exists() and log.stat().st_size:
            raise unwritable from exc  # committed writes may wait there: only SQLite can tell
        uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA query_only = ON")  # what `unwritable_conn` tells a setup
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            conn.close()
            raise unwritable from exc
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back if the block raises."""
        conn = self.get()
        unwritable: StorageUnavailable | None = self._local.unwritable
        if unwritable is not None:
            raise unwritable
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _close_ended(self) -> None:
        """Close the connections of threads that have ended: a caller that starts a thread pool
        per call (`search_sync` runs a new event loop each time) would otherwise leak one open
        file per thread until the process runs out."""
        for thread in [t for t in self._by_thread if not t.is_alive()]:
            self._by_thread.pop(thread).close()

    def close_all(self) -> None:
        with self._guard:
            for conn in self._by_thread.values():
                conn.close()
            self._by_thread.clear()
        self._local = threading.local()
