"""The notes owing a re-index for their incoming-link text (`anchors.py`), kept in `bm25.sqlite`.

A pass over many files (a reconcile's words pass, an `apply_paths` of many) changes what links say
of a hub once per batch holding one of its linking notes: indexing it again at each batch
re-indexed more notes than the vault holds in a cold pass of a heavily linked one (4,678 for
4,000 notes, 28,984 for 20,000; docs/benchmarks.md). Such a write records the
notes it names here instead, in the transaction that changes their anchors, and the pass indexes
each once at its end (`Bm25Store.relink_owed`); a cold pass owes almost none, its anchors
gathered before it writes a note (`Bm25Store.gather_anchors`). A note written meanwhile, or
indexed again by a write that does not defer, owes nothing any more (its document has every
anchor of that moment).
The rows are cleared only once the engine holding the new documents has committed, so a process
killed mid-pass leaves them for the next writer to open (`Bm25Store.create`) or to end a pass.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

TABLE = "bm25_relink"

SQL = f"""
CREATE TABLE IF NOT EXISTS "{TABLE}" (
    store TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (store, path)) WITHOUT ROWID;
"""


def owe(conn: sqlite3.Connection, store: str, paths: Iterable[str]) -> None:
    """Record that the notes at `paths` of `store` are to be indexed again with their anchors."""
    conn.executemany(f'INSERT OR IGNORE INTO "{TABLE}" VALUES (?, ?)',
                     ((store, path) for path in paths))


def owed(conn: sqlite3.Connection, store: str) -> list[str]:
    """The paths of `store` owing a re-index, in path order."""
    return [str(path) for (path,) in conn.execute(
        f'SELECT path FROM "{TABLE}" WHERE store = ? ORDER BY path', (store,))]


def settle(conn: sqlite3.Connection, store: str, paths: Iterable[str] | None = None) -> None:
    """The notes at `paths` of `store` (every one when None) owe nothing any more."""
    if paths is None:
        conn.execute(f'DELETE FROM "{TABLE}" WHERE store = ?', (store,))
        return
    conn.execute(f'DELETE FROM "{TABLE}" WHERE store = ? AND path IN '
                 "(SELECT value FROM json_each(?))", (store, json.dumps(sorted(set(paths)))))
