"""Sparse retrieval: SQLite FTS5 ranked by its built-in `bm25()`.

Each store (`NS__vault`, `NS__private`) is a plain table of chunks (so a chunk is found and
deleted by id through a unique index) plus an external-content FTS5 table kept in step by
triggers. Archived chunks are left out inside the store (over-fetch, else a join on the chunk
table), so a filtered query still returns up to k rows. Any user text is a valid query: it is
reduced to its word tokens minus the query stopwords of `schema/ranking.json`, each quoted,
joined with OR (the classic bag-of-words BM25 query).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sidecar.index.names import store_name
from sidecar.index.sqlite import ThreadConnections
from sidecar.schema import get_schema

# Recorded in DATA/index.json; changing either rebuilds the BM25 stores from the vault.
TOKENIZE = "porter unicode61 remove_diacritics 2"
# bm25() column weights for (text, title, heading, about): `title` holds the note's names (title
# and aliases), `about` its description.
COLUMN_WEIGHTS = (1.0, 0.5, 0.5, 0.5)
# Longer queries add little and cost a scan per term.
MAX_QUERY_TERMS = 64

_WORD = re.compile(r"\w+")

Ranked = list[tuple[int, float]]


def _chunk_count(conn: sqlite3.Connection, name: str) -> int:
    """Chunks in one store (its FTS docsize table has a row per chunk, and is small to count)."""
    return int(conn.execute(f'SELECT count(*) FROM "{name}_fts_docsize"').fetchone()[0])


@dataclass(frozen=True)
class SparseRow:
    """What the BM25 store keeps for one chunk."""

    id: str
    path: str
    archived: bool
    text: str
    title: str
    heading: str
    about: str = ""


def match_expression(query: str) -> str:
    """An FTS5 MATCH expression for arbitrary text: quoted word tokens joined by OR ("" if none)."""
    terms = list(dict.fromkeys(t.lower() for t in _WORD.findall(query)))
    stop = get_schema().bm25_stopwords
    # A query of nothing but stopwords ("to be or not to be") still searches for them.
    terms = ([t for t in terms if t not in stop] or terms)[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{t}"' for t in terms)


def _schema_sql(name: str) -> str:
    fts = f"{name}_fts"
    return f"""
    CREATE TABLE IF NOT EXISTS "{name}" (
        rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
        archived INTEGER NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL, heading TEXT NOT NULL,
        about TEXT NOT NULL DEFAULT '');
    CREATE INDEX IF NOT EXISTS "{name}_path" ON "{name}"(path);
    CREATE VIRTUAL TABLE IF NOT EXISTS "{fts}" USING fts5(
        text, title, heading, about, content='{name}', content_rowid='rowid',
        tokenize='{TOKENIZE}');
    CREATE TRIGGER IF NOT EXISTS "{name}_ai" AFTER INSERT ON "{name}" BEGIN
        INSERT INTO "{fts}"(rowid, text, title, heading, about)
        VALUES (new.rowid, new.text, new.title, new.heading, new.about);
    END;
    CREATE TRIGGER IF NOT EXISTS "{name}_ad" AFTER DELETE ON "{name}" BEGIN
        INSERT INTO "{fts}"("{fts}", rowid, text, title, heading, about)
        VALUES ('delete', old.rowid, old.text, old.title, old.heading, old.about);
    END;
    """


class Bm25Store:
    """The BM25 database `DATA/bm25.sqlite`, shared by every namespace.

    FTS5 scores every chunk that matches any query term (about 1 µs each), so a query's cost
    grows with the store. A store of at least two `bm25.part_chunks` is ranked in rowid ranges
    on as many threads as there are cores (each with its own connection; SQLite runs without
    the GIL), and the parts' best rows merged: the same scores, since every part's bm25() reads
    the whole store's statistics.
    """

    def __init__(self, path: Path) -> None:
        self._db = ThreadConnections(path, lambda conn: None)
        # How many rowid ranges of a big store are ranked at once: one per core (1: never split).
        self.parts = max(1, min(os.cpu_count() or 1, 8))
        self._pool: ThreadPoolExecutor | None = None
        self._pool_guard = threading.Lock()

    def _run_parts(self, calls: Sequence[Callable[[], Ranked]]) -> list[Ranked]:
        """Run `calls`, the first in this thread and the others on the store's pool."""
        with self._pool_guard:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.parts - 1, thread_name_prefix="bm25")
            pool = self._pool
        futures = [pool.submit(call) for call in calls[1:]]
        return [calls[0](), *(f.result() for f in futures)]

    def _ranked(
        self, conn: sqlite3.Connection, name: str, expression: str, wanted: int
    ) -> Ranked:
        """The `wanted` best (rowid, bm25) of one store, best first, in parts when it is big."""
        fts = f'"{name}_fts"'
        weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
        sql = f"SELECT rowid, bm25({fts}, {weights}) FROM {fts} WHERE {fts} MATCH ? "
        parts = min(self.parts, _chunk_count(conn, name) // get_schema().bm25_part_chunks)
        if parts < 2:
            return [(int(r), float(s)) for r, s in conn.execute(
                sql + "ORDER BY 2 LIMIT ?", (expression, wanted))]
        low, high = conn.execute(f'SELECT min(rowid), max(rowid) FROM "{name}"').fetchone()
        step = (high - low) // parts + 1
        ranged = sql + "AND rowid >= ? AND rowid < ? ORDER BY 2 LIMIT ?"

        def part(start: int) -> Callable[[], Ranked]:
            def run() -> Ranked:
                return [(int(r), float(s)) for r, s in self._db.get().execute(
                    ranged, (expression, start, start + step, wanted))]
            return run

        found = self._run_parts([part(low + i * step) for i in range(parts)])
        return sorted((row for rows in found for row in rows), key=lambda r: (r[1], r[0]))[
            :wanted]

    def _exists(self, conn: sqlite3.Connection, name: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def create(self, namespace: str) -> None:
        """Create both stores of a namespace (writer only)."""
        conn = self._db.get()
        for private in (False, True):
            conn.executescript(_schema_sql(store_name(namespace, private)))

    def drop(self, namespace: str) -> None:
        """Remove both stores of a namespace."""
        with self._db.transaction() as conn:
            for private in (False, True):
                name = store_name(namespace, private)
                conn.execute(f'DROP TABLE IF EXISTS "{name}_fts"')
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')

    def replace(
        self,
        namespace: str,
        deletes: dict[bool, Sequence[str]],
        inserts: dict[bool, Sequence[SparseRow]],
    ) -> None:
        """In one transaction: delete chunk ids, then insert (or overwrite) rows, per store."""
        with self._db.transaction() as conn:
            for private, ids in deletes.items():
                name = store_name(namespace, private)
                conn.executemany(f'DELETE FROM "{name}" WHERE id = ?', ((i,) for i in ids))
            for private, rows in inserts.items():
                name = store_name(namespace, private)
                conn.executemany(f'DELETE FROM "{name}" WHERE id = ?', ((r.id,) for r in rows))
                conn.executemany(
                    f'INSERT INTO "{name}" (id, path, archived, text, title, heading, about) '
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    ((r.id, r.path, int(r.archived), r.text, r.title, r.heading, r.about)
                     for r in rows),
                )

    def ids(self, namespace: str, private: bool) -> set[str]:
        conn = self._db.get()
        name = store_name(namespace, private)
        if not self._exists(conn, name):
            return set()
        return {row[0] for row in conn.execute(f'SELECT id FROM "{name}"')}

    def id_window(self, namespace: str, private: bool, after: str, limit: int) -> list[str]:
        """Up to `limit` chunk ids greater than `after`, in id order."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not self._exists(conn, name):
            return []
        return [str(i) for (i,) in conn.execute(
            f'SELECT id FROM "{name}" WHERE id > ? ORDER BY id LIMIT ?', (after, limit))]

    def present(self, namespace: str, private: bool, ids: Sequence[str]) -> set[str]:
        """Those of `ids` stored here (archived or not)."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not ids or not self._exists(conn, name):
            return set()
        return {str(cid) for (cid,) in conn.execute(
            f'SELECT id FROM "{name}" WHERE id IN (SELECT value FROM json_each(?))',
            (json.dumps(list(ids)),))}

    def count(self, namespace: str, private: bool) -> int:
        conn = self._db.get()
        name = store_name(namespace, private)
        if not self._exists(conn, name):
            return 0
        return int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])

    def probe(self, namespace: str) -> None:
        """Read every table of both stores once (a damaged file raises DatabaseError here)."""
        conn = self._db.get()
        for private in (False, True):
            name = store_name(namespace, private)
            if self._exists(conn, name):
                for table in (name, f"{name}_fts_data", f"{name}_fts_docsize"):
                    conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()

    def live_among(self, namespace: str, private: bool, ids: Sequence[str]) -> set[str]:
        """Those of `ids` stored here and not archived (one indexed lookup; any number of ids,
        passed as one JSON array)."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not ids or not self._exists(conn, name):
            return set()
        return {cid for (cid,) in conn.execute(
            f'SELECT id FROM "{name}" WHERE archived = 0 AND id IN '
            "(SELECT value FROM json_each(?))", (json.dumps(list(ids)),))}

    def paths_of(self, namespace: str, private: bool, ids: Sequence[str]) -> dict[str, str]:
        """Note path by chunk id, for those of `ids` stored here (one indexed lookup)."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not ids or not self._exists(conn, name):
            return {}
        return dict(conn.execute(
            f'SELECT id, path FROM "{name}" WHERE id IN (SELECT value FROM json_each(?))',
            (json.dumps(list(ids)),)))

    def search(
        self, namespace: str, query: str, k: int, *, private: bool, include_archived: bool,
        only: Mapping[bool, Sequence[str]] | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, score) from the public store, plus the private one when `private`;
        score is -bm25(), so larger is better. `only` restricts each store to those chunk ids
        (a search filter), inside the query, so k come back when k match."""
        expression = match_expression(query)
        if not expression or k <= 0:
            return []
        conn = self._db.get()
        hits: list[tuple[str, float]] = []
        for store_private in (False, True) if private else (False,):
            name = store_name(namespace, store_private)
            if not self._exists(conn, name):
                continue
            if only is None:
                hits.extend(self._top(conn, name, expression, k, include_archived))
            elif only.get(store_private):
                hits.extend(_top_among(
                    conn, name, expression, k, include_archived, only[store_private]))
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:k]

    def _top(
        self, conn: sqlite3.Connection, name: str, expression: str, k: int,
        include_archived: bool,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, -bm25) of one store.

        Joining every match to the chunk table to test `archived` doubles the query's time, and
        archived chunks are rare: rank on the FTS table alone for 2k rows, look those up, and
        pay for the filtered join only when archived chunks crowd the top.
        """
        fts = f'"{name}_fts"'
        weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
        wanted = k if include_archived else 2 * k
        ranked = self._ranked(conn, name, expression, wanted)
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = {rowid: (cid, bool(archived)) for rowid, cid, archived in conn.execute(
            f'SELECT rowid, id, archived FROM "{name}" WHERE rowid IN ({marks})',
            [rowid for rowid, _ in ranked])}
        kept = [(rows[rowid][0], -score) for rowid, score in ranked
                if rowid in rows and (include_archived or not rows[rowid][1])]
        if len(kept) >= k or len(ranked) < wanted:  # enough, or every match was seen
            return kept[:k]
        return [(cid, -float(score)) for cid, score in conn.execute(
            f"SELECT c.id, bm25({fts}, {weights}) AS s FROM {fts} "
            f'JOIN "{name}" c ON c.rowid = {fts}.rowid '
            f"WHERE {fts} MATCH ? AND c.archived = 0 ORDER BY s LIMIT ?", (expression, k))]

    def close(self) -> None:
        with self._pool_guard:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        self._db.close_all()


def _top_among(
    conn: sqlite3.Connection, name: str, expression: str, k: int, include_archived: bool,
    ids: Sequence[str],
) -> list[tuple[str, float]]:
    """Top-k (chunk id, -bm25) of one store among the chunk ids `ids` (passed as one JSON
    array, so there is no limit on how many)."""
    fts = f'"{name}_fts"'
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    archived = "" if include_archived else "AND c.archived = 0 "
    return [(cid, -float(score)) for cid, score in conn.execute(
        f"SELECT c.id, bm25({fts}, {weights}) AS s FROM {fts} "
        f'JOIN "{name}" c ON c.rowid = {fts}.rowid '
        f"WHERE {fts} MATCH ? AND c.id IN (SELECT value FROM json_each(?)) {archived}"
        "ORDER BY s LIMIT ?", (expression, json.dumps(list(ids)), k))]
