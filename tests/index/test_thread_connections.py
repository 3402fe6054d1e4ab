"""ThreadConnections: one SQLite connection per thread, none kept for a thread that has ended."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from sidecar.index.sqlite import ThreadConnections


def _setup(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)")


def _use_in_thread(conns: ThreadConnections) -> sqlite3.Connection:
    got: list[sqlite3.Connection] = []
    thread = threading.Thread(target=lambda: got.append(conns.get()))
    thread.start()
    thread.join()
    return got[0]


def test_a_connection_is_closed_once_its_thread_has_ended(tmp_path: Path) -> None:
    conns = ThreadConnections(tmp_path / "db.sqlite", _setup)
    ended = [_use_in_thread(conns) for _ in range(40)]
    live = conns.get()
    # Every ended thread's connection but the last (closed at the next thread's first use) is shut.
    for conn in ended[:-1]:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    assert live.execute("SELECT count(*) FROM t").fetchone() == (0,)
    conns.close_all()


def test_a_living_thread_keeps_its_connection(tmp_path: Path) -> None:
    conns = ThreadConnections(tmp_path / "db.sqlite", _setup)
    mine = conns.get()
    for _ in range(5):
        _use_in_thread(conns)
    assert conns.get() is mine
    assert mine.execute("SELECT 1").fetchone() == (1,)
    conns.close_all()
    with pytest.raises(sqlite3.ProgrammingError):
        mine.execute("SELECT 1")
