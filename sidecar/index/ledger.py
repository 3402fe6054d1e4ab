"""The ledger (`DATA/ledger.sqlite`): what the index believes about every file of the vault.

One row per file and namespace: content hash, mtime, size, ctime and inode (its `stamp`: a quick
pass trusts a file whose stamp is unchanged without reading it), the chunk ids it owns and where
(public or private store), the model that embedded them, type, tags, cluster (declared or
assigned), conversation id (a chat note's), decay date and the note's centroid (for cluster
assignment), and its error if any: what kept it out (binary, oversized), or frontmatter that
does not parse (such a note is indexed by its body, as private: an error row may own chunks).
A row is written only after Chroma and BM25 have committed the file's chunks, so the ledger never
claims chunks the stores lack; start-up reconciliation repairs the opposite case.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sidecar.index.scope import NoteFilter, fold_name, fold_path, fold_tag
from sidecar.index.sqlite import ThreadConnections, unwritable_conn
from sidecar.models.embedder import FloatArray

# (type, tags, private, cluster, decay date, chunk ids, conversation): `Ledger.note_facts`
NoteFacts = tuple[str | None, tuple[str, ...], bool, str | None, str, tuple[str, ...], str | None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    namespace TEXT NOT NULL, path TEXT NOT NULL,
    hash TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, model TEXT NOT NULL,
    type TEXT, tags TEXT NOT NULL, title TEXT NOT NULL,
    private INTEGER NOT NULL, chunk_ids TEXT NOT NULL, n_chunks INTEGER NOT NULL,
    declared_cluster TEXT, cluster TEXT, decays INTEGER NOT NULL, decay_date TEXT NOT NULL,
    centroid BLOB, error TEXT, conversation TEXT, embedded INTEGER NOT NULL DEFAULT 1,
    ctime_ns INTEGER NOT NULL DEFAULT 0, inode INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (namespace, path));
CREATE INDEX IF NOT EXISTS files_cluster ON files (namespace, cluster, decay_date);
-- Covers a type filter's whole query: the rows themselves are wide (the centroid).
CREATE INDEX IF NOT EXISTS files_scope ON files (
    namespace, type, private, n_chunks, decay_date, path, chunk_ids);
-- A folder filter's range, case-insensitive for ASCII letters (Scope's folders are case-folded).
CREATE INDEX IF NOT EXISTS files_path_nocase ON files (namespace, path COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS note_tags (
    namespace TEXT NOT NULL, tag TEXT NOT NULL, path TEXT NOT NULL,
    PRIMARY KEY (namespace, tag, path)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS note_tags_path ON note_tags (namespace, path);
-- The chunks of a note written to BM25 but not yet embedded (its row says embedded = 0): what
-- the embedding pass embeds and writes to Chroma, and what search shows of them meanwhile.
CREATE TABLE IF NOT EXISTS pending_chunks (
    namespace TEXT NOT NULL, id TEXT NOT NULL, private INTEGER NOT NULL, path TEXT NOT NULL,
    hash TEXT NOT NULL, n_tokens INTEGER NOT NULL, text TEXT NOT NULL, embed_text TEXT NOT NULL,
    meta TEXT NOT NULL, PRIMARY KEY (namespace, id));
CREATE INDEX IF NOT EXISTS pending_chunks_path ON pending_chunks (namespace, path);
-- Each note's lead sentence vector (index/leads.py), under the key of the sentence and embedder
-- it was made from; a note without prose keeps its key and no vector.
CREATE TABLE IF NOT EXISTS note_leads (
    namespace TEXT NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, vector BLOB,
    PRIMARY KEY (namespace, path)) WITHOUT ROWID;
"""
# PRAGMA user_version: 1 once `note_tags` lists every row's folded tags (older ledgers are
# back-filled on opening); 2 once `files` has its `conversation` column (added empty: the
# chunker version that came with it re-plans every file, which fills it) and its `embedded`
# column (older rows: embedded); 3 once its folded tags are composed (NFC) too (filled again);
# 4 once `files` has its `ctime_ns` and `inode` columns (older rows: 0, a stamp no file has, so
# each file is read and hashed once more, and only its stamp rewritten when its hash is the same);
# 5 once its tags are lower-cased as Obsidian compares them, not case-folded (filled again from
# the rows' tags: #Straße was stored as "strasse").
_VERSION = 5

_COLUMNS = (
    "path, hash, mtime_ns, size, model, type, tags, title, private, chunk_ids, n_chunks, "
    "declared_cluster, cluster, decays, decay_date, centroid, error, conversation, embedded, "
    "ctime_ns, inode"
)
# (mtime_ns, size, ctime_ns, inode): what tells a file's change without reading it. The ctime
# and inode catch an edit whose mtime was put back (`cp -p`, `rsync -a`, `touch -r`).
Stamp = tuple[int, int, int, int]


def stamp_of(st: os.stat_result) -> Stamp:
    """A file's stamp as the ledger keeps it. An inode number is unsigned (and some file
    systems' ids are wider than 64 bits) where SQLite's integers are signed 64-bit: it is kept
    folded into them, the same number for the same file."""
    inode = st.st_ino & (2**64 - 1)
    return st.st_mtime_ns, st.st_size, st.st_ctime_ns, inode - 2**64 if inode >= 2**63 else inode


@dataclass(frozen=True)
class FileRow:
    """The ledger's record of one file."""

    path: str
    hash: str
    mtime_ns: int
    size: int
    model: str
    type: str | None
    tags: tuple[str, ...]
    title: str
    private: bool
    chunk_ids: tuple[str, ...]
    declared_cluster: str | None
    cluster: str | None
    decays: bool
    decay_date: str
    centroid: FloatArray | None
    error: str | None
    conversation: str | None = None
    # False while its chunks are in BM25 only (findable by their words), waiting in
    # `pending_chunks` for the embedding pass (sync.py).
    embedded: bool = True
    ctime_ns: int = 0  # 0: not known (a row written before the column existed)
    inode: int = 0

    @property
    def stamp(self) -> Stamp:
        """The file's (mtime_ns, size, ctime_ns, inode) when this row was planned."""
        return self.mtime_ns, self.size, self.ctime_ns, self.inode

    def _values(self, namespace: str) -> tuple[object, ...]:
        blob = None if self.centroid is None else self.centroid.astype(np.float32).tobytes()
        return (
            namespace, self.path, self.hash, self.mtime_ns, self.size, self.model, self.type,
            json.dumps(list(self.tags)), self.title, int(self.private),
            json.dumps(list(self.chunk_ids)), len(self.chunk_ids), self.declared_cluster,
            self.cluster, int(self.decays), self.decay_date, blob, self.error, self.conversation,
            int(self.embedded), self.ctime_ns, self.inode,
        )  # fmt: skip


@dataclass(frozen=True)
class PendingChunk:
    """A chunk in BM25 waiting to be embedded: what Chroma gets once it is."""

    id: str
    private: bool
    path: str
    hash: str
    n_tokens: int
    text: str
    embed_text: str
    meta: dict[str, Any]


@dataclass(frozen=True)
class ClusterRow:
    """What cluster assignment reads of a decay-eligible note, and its cluster now."""

    path: str
    date: str
    title: str
    declared: str | None
    centroid: FloatArray | None
    private: bool
    cluster: str | None


def _blob(value: object) -> bytes:
    assert isinstance(value, bytes)
    return value


def _row(values: tuple[object, ...]) -> FileRow:
    (path, hash_, mtime_ns, size, model, type_, tags, title, private, chunk_ids, _n,
     declared, cluster, decays, decay_date, centroid, error, conversation,
     embedded, ctime_ns, inode) = values  # fmt: skip
    return FileRow(
        path=str(path),
        hash=str(hash_),
        mtime_ns=int(str(mtime_ns)),
        size=int(str(size)),
        model=str(model),
        type=None if type_ is None else str(type_),
        tags=tuple(json.loads(str(tags))),
        title=str(title),
        private=bool(private),
        chunk_ids=tuple(json.loads(str(chunk_ids))),
        declared_cluster=None if declared is None else str(declared),
        cluster=None if cluster is None else str(cluster),
        decays=bool(decays),
        decay_date=str(decay_date),
        centroid=None if centroid is None else np.frombuffer(_blob(centroid), dtype=np.float32),
        error=None if error is None else str(error),
        conversation=None if conversation is None else str(conversation),
        embedded=bool(embedded),
        ctime_ns=int(str(ctime_ns)),
        inode=int(str(inode)),
    )


def _create(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    if conn.execute("PRAGMA user_version").fetchone()[0] >= _VERSION or unwritable_conn(conn):
        return  # read-only (a full disk): the next writable open upgrades the file
    conn.execute("BEGIN IMMEDIATE")  # another process may be upgrading the same file
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version < 5:
            _fill_tags(conn)
        # Each column by its presence: a ledger may have one of them from a build between.
        columns = {str(c[1]) for c in conn.execute("PRAGMA table_info(files)")}
        if "conversation" not in columns:
            conn.execute("ALTER TABLE files ADD COLUMN conversation TEXT")
        if "embedded" not in columns:
            conn.execute("ALTER TABLE files ADD COLUMN embedded INTEGER NOT NULL DEFAULT 1")
        for column in ("ctime_ns", "inode"):
            if column not in columns:
                conn.execute(f"ALTER TABLE files ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
        if version < _VERSION:
            conn.execute(f"PRAGMA user_version = {_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _fill_tags(conn: sqlite3.Connection) -> None:
    """`note_tags` anew from every row's tags."""
    conn.execute("DELETE FROM note_tags")
    conn.executemany("INSERT OR IGNORE INTO note_tags VALUES (?, ?, ?)", (
        (ns, tag, path) for ns, path, tags in
        conn.execute("SELECT namespace, path, tags FROM files")
        for tag in _folded(json.loads(tags))))


def _under(prefix: str) -> tuple[str, str]:
    """Bounds [low, high) of the texts under `prefix/` ('0' follows '/' in code-point order, which
    is SQLite's for UTF-8 text): a folder's paths, a tag's nested tags."""
    return f"{prefix}/", f"{prefix}0"


def _folded(tags: Iterable[str]) -> set[str]:
    return {fold_tag(t) for t in tags}


def _put_tags(conn: sqlite3.Connection, namespace: str, rows: Sequence[FileRow]) -> None:
    conn.executemany("DELETE FROM note_tags WHERE namespace = ? AND path = ?",
                     ((namespace, row.path) for row in rows))
    conn.executemany("INSERT INTO note_tags VALUES (?, ?, ?)",
                     ((namespace, tag, row.path) for row in rows for tag in _folded(row.tags)))


class Ledger:
    """Rows of `files`, one SQLite connection per thread."""

    def __init__(self, path: Path) -> None:
        self._db = ThreadConnections(path, _create)
        self._stamped = False  # `files` is known to have the stamp's ctime and inode columns

    def _selected(self, conn: sqlite3.Connection) -> str:
        """_COLUMNS as the file has them: a ledger from before version 4 read where it cannot be
        upgraded (a read-only disk) gives 0 for ctime and inode, as its upgrade would."""
        if not self._stamped:
            have = {str(c[1]) for c in conn.execute("PRAGMA table_info(files)")}
            if not {"ctime_ns", "inode"} <= have:
                return _COLUMNS.replace(", ctime_ns, inode", ", 0, 0")
            self._stamped = True
        return _COLUMNS

    def rows(self, namespace: str, paths: Iterable[str] | None = None) -> dict[str, FileRow]:
        """Every row of a namespace, or only those of `paths`."""
        conn = self._db.get()
        sql = f"SELECT {self._selected(conn)} FROM files WHERE namespace = ?"
        if paths is None:
            return {r[0]: _row(r) for r in conn.execute(sql, (namespace,))}
        out: dict[str, FileRow] = {}
        wanted = list(paths)
        for start in range(0, len(wanted), 500):  # under SQLite's limit of bound parameters
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            for found in conn.execute(f"{sql} AND path IN ({marks})", (namespace, *part)):
                out[found[0]] = _row(found)
        return out

    def cluster_members(self, namespace: str) -> Iterator[ClusterRow]:
        """The decay-eligible notes in (decay date, path) order, one at a time (what cluster
        assignment reads; SQLite sorts them, spilling to disk rather than growing with the
        vault)."""
        found = self._db.get().execute(
            "SELECT path, decay_date, title, declared_cluster, centroid, private, cluster "
            "FROM files WHERE namespace = ? AND decays = 1 ORDER BY decay_date, path",
            (namespace,))
        for path, date, title, declared, vector, private, cluster in found:
            yield ClusterRow(
                str(path), str(date), str(title), None if declared is None else str(declared),
                None if vector is None else np.frombuffer(_blob(vector), dtype=np.float32),
                bool(private), None if cluster is None else str(cluster))

    def refill_tags(self) -> None:
        """Rebuild `note_tags` from the rows: a sidecar older than the table (a downgrade)
        wrote rows without their tags, and left the user_version that says it was filled."""
        with self._db.transaction() as conn:
            _fill_tags(conn)

    def put(
        self, namespace: str, rows: Iterable[FileRow], pending: Sequence[PendingChunk] = ()
    ) -> None:
        """Write rows, in one transaction with the chunks still to embed of those not embedded
        (`pending`); a row's earlier pending chunks go."""
        marks = ",".join("?" * (_COLUMNS.count(",") + 2))  # the namespace, then _COLUMNS
        rows = list(rows)
        with self._db.transaction() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO files (namespace, {_COLUMNS}) VALUES ({marks})",
                (row._values(namespace) for row in rows),
            )
            _put_tags(conn, namespace, rows)
            conn.executemany("DELETE FROM pending_chunks WHERE namespace = ? AND path = ?",
                             ((namespace, row.path) for row in rows))
            conn.executemany(
                "INSERT OR REPLACE INTO pending_chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ((namespace, c.id, int(c.private), c.path, c.hash, c.n_tokens, c.text,
                  c.embed_text, json.dumps(c.meta)) for c in pending))

    def pending_paths(self, namespace: str) -> list[str]:
        """The paths whose chunks wait to be embedded, newest modification first."""
        found = self._db.get().execute(
            "SELECT path FROM files WHERE namespace = ? AND embedded = 0 "
            "ORDER BY mtime_ns DESC, path", (namespace,))
        return [str(p) for (p,) in found]

    def pending_chunks(self, namespace: str, paths: Iterable[str]) -> list[PendingChunk]:
        """The chunks waiting to be embedded of these paths."""
        found = self._db.get().execute(
            "SELECT id, private, path, hash, n_tokens, text, embed_text, meta FROM "
            "pending_chunks WHERE namespace = ? AND path IN (SELECT value FROM json_each(?)) "
            "ORDER BY path, id", (namespace, json.dumps(list(paths))))
        return [PendingChunk(str(i), bool(p), str(path), str(h), int(n), str(t), str(e),
                             json.loads(m)) for i, p, path, h, n, t, e, m in found]

    def pending_records(
        self, namespace: str, ids: Sequence[str], *, private: bool
    ) -> dict[str, tuple[str, dict[str, Any]]]:
        """(text, metadata) of those of `ids` not yet embedded (public ones only unless
        `private`): what Chroma will hold of them once they are."""
        found = self._db.get().execute(
            "SELECT id, text, meta FROM pending_chunks WHERE namespace = ? AND (? OR private = 0) "
            "AND id IN (SELECT value FROM json_each(?))",
            (namespace, int(private), json.dumps(list(ids))))
        return {str(i): (str(t), json.loads(m)) for i, t, m in found}

    def unembedded(self, namespace: str, ids: Sequence[str]) -> set[str]:
        """Those of `ids` that wait to be embedded (they have no dense score yet)."""
        found = self._db.get().execute(
            "SELECT id FROM pending_chunks WHERE namespace = ? "
            "AND id IN (SELECT value FROM json_each(?))", (namespace, json.dumps(list(ids))))
        return {str(i) for (i,) in found}

    def embedding_counts(self, namespace: str) -> tuple[int, int]:
        """(chunks embedded, chunks in all) of a namespace."""
        done, total = self._db.get().execute(
            "SELECT COALESCE(SUM(n_chunks * embedded), 0), COALESCE(SUM(n_chunks), 0) "
            "FROM files WHERE namespace = ?", (namespace,)).fetchone()
        return int(done), int(total)

    def delete(self, namespace: str, paths: Iterable[str]) -> None:
        paths = list(paths)
        with self._db.transaction() as conn:
            for table in ("files", "note_tags", "pending_chunks", "note_leads"):
                conn.executemany(
                    f"DELETE FROM {table} WHERE namespace = ? AND path = ?",
                    ((namespace, p) for p in paths),
                )

    def touch(self, namespace: str, stamps: Iterable[tuple[str, Stamp]]) -> None:
        """Record new (path, stamp) for files whose content did not change."""
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE files SET mtime_ns = ?, size = ?, ctime_ns = ?, inode = ? "
                "WHERE namespace = ? AND path = ?",
                ((*stamp, namespace, p) for p, stamp in stamps),
            )

    def mark_dirty(self, namespace: str, paths: Iterable[str] | None = None) -> None:
        """Forget the hash of files (all when `paths` is None) so the next sync redoes them."""
        with self._db.transaction() as conn:
            if paths is None:
                conn.execute("UPDATE files SET hash = '' WHERE namespace = ?", (namespace,))
            else:
                conn.executemany(
                    "UPDATE files SET hash = '' WHERE namespace = ? AND path = ?",
                    ((namespace, p) for p in paths),
                )

    def set_clusters(self, namespace: str, clusters: dict[str, str | None]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE files SET cluster = ? WHERE namespace = ? AND path = ?",
                ((c, namespace, p) for p, c in clusters.items()),
            )

    def drop(self, namespace: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM files WHERE namespace = ?", (namespace,))
            conn.execute("DELETE FROM note_tags WHERE namespace = ?", (namespace,))
            conn.execute("DELETE FROM pending_chunks WHERE namespace = ?", (namespace,))
            conn.execute("DELETE FROM note_leads WHERE namespace = ?", (namespace,))

    def newer_in_clusters(
        self, namespace: str, keys: Iterable[tuple[str, str]], *, private: bool = True
    ) -> dict[tuple[str, str], int]:
        """For each (cluster, date): chunks of decay-eligible notes in `cluster` dated strictly
        after `date` (of public notes only unless `private`: a count is private information
        too). One query for all keys."""
        found = self._db.get().execute(
            "SELECT k.cluster, k.date, (SELECT COALESCE(SUM(n_chunks), 0) FROM files "
            "WHERE namespace = ? AND cluster = k.cluster AND decays = 1 "
            "AND decay_date > k.date AND (? OR private = 0)) FROM (SELECT "
            "json_extract(value, '$[0]') AS cluster, json_extract(value, '$[1]') AS date "
            "FROM json_each(?)) AS k",
            (namespace, int(private), json.dumps([list(key) for key in keys])),
        )
        return {(str(cluster), str(date)): int(count) for cluster, date, count in found}

    def note_facts(
        self, namespace: str, paths: Iterable[str]
    ) -> dict[str, NoteFacts]:
        """(type, tags, private, cluster, decay date, chunk ids, conversation) of each of
        `paths` the ledger holds: what a search ranks and filters on, in one query over any
        number of paths."""
        found = self._db.get().execute(
            "SELECT path, type, tags, private, cluster, decay_date, chunk_ids, conversation "
            "FROM files WHERE namespace = ? AND path IN (SELECT value FROM json_each(?))",
            (namespace, json.dumps(list(paths))),
        )
        return {str(path): (None if type_ is None else str(type_), tuple(json.loads(tags)),
                            bool(private), None if cluster is None else str(cluster), str(date),
                            tuple(json.loads(ids)), None if talk is None else str(talk))
                for path, type_, tags, private, cluster, date, ids, talk in found}

    def centroids(
        self, namespace: str, paths: Iterable[str], *, private: bool
    ) -> dict[str, FloatArray]:
        """The unit mean of the chunk vectors of each of `paths` that has one (a note edited
        keeps its last until its new vectors are written; a new note has none until then), a
        private note's only when `private`."""
        found = self._db.get().execute(
            "SELECT path, centroid FROM files WHERE namespace = ? AND centroid IS NOT NULL "
            "AND (private = 0 OR ?) AND path IN (SELECT value FROM json_each(?))",
            (namespace, int(private), json.dumps(list(paths))),
        )
        return {str(path): np.frombuffer(_blob(vector), dtype=np.float32)
                for path, vector in found}

    def leads(
        self, namespace: str, paths: Iterable[str], *, private: bool
    ) -> dict[str, FloatArray]:
        """The lead sentence vector of each of `paths` that has one (`index/leads.py`), a
        private note's only when `private`."""
        found = self._db.get().execute(
            "SELECT l.path, l.vector FROM note_leads l JOIN files f "
            "ON f.namespace = l.namespace AND f.path = l.path WHERE l.namespace = ? "
            "AND l.vector IS NOT NULL AND (f.private = 0 OR ?) "
            "AND l.path IN (SELECT value FROM json_each(?))",
            (namespace, int(private), json.dumps(list(paths))),
        )
        return {str(path): np.frombuffer(_blob(vector), dtype=np.float32)
                for path, vector in found}

    def lead_keys(self, namespace: str, paths: Sequence[str]) -> dict[str, str]:
        """The key each of `paths` has its lead stored under (`leads.key`)."""
        found = self._db.get().execute(
            "SELECT path, key FROM note_leads WHERE namespace = ? "
            "AND path IN (SELECT value FROM json_each(?))", (namespace, json.dumps(list(paths))))
        return {str(path): str(k) for path, k in found}

    def put_leads(
        self, namespace: str, leads: Iterable[tuple[str, str, FloatArray | None]]
    ) -> None:
        """Store (path, key, vector or None) leads of notes the ledger holds (a note deleted
        meanwhile gets none: `delete` would not remove it)."""
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO note_leads (namespace, path, key, vector) "
                "SELECT ?, ?, ?, ? WHERE EXISTS "
                "(SELECT 1 FROM files WHERE namespace = ? AND path = ?)",
                ((namespace, path, k, None if v is None else v.astype(np.float32).tobytes(),
                  namespace, path) for path, k, v in leads))

    def hashes(self, namespace: str) -> dict[str, str]:
        """Every tracked path with the content hash it was indexed at (a cheap change check)."""
        found = self._db.get().execute("SELECT path, hash FROM files WHERE namespace = ?",
                                       (namespace,))
        return {str(p): str(h) for p, h in found}

    def paths(self, namespace: str) -> list[str]:
        """Every path the namespace tracks (notes with or without chunks)."""
        found = self._db.get().execute("SELECT path FROM files WHERE namespace = ?", (namespace,))
        return [str(p) for (p,) in found]

    def paths_under(self, namespace: str, folder: str) -> list[str]:
        """The tracked paths inside a folder (vault-relative, no trailing '/')."""
        found = self._db.get().execute(
            "SELECT path FROM files WHERE namespace = ? AND path >= ? AND path < ?",
            (namespace, *_under(folder)))
        return [str(p) for (p,) in found]

    def first_chunk_ids(self, namespace: str, n: int) -> list[str]:
        """The first chunk id of up to `n` files that have chunks."""
        found = self._db.get().execute(
            "SELECT json_extract(chunk_ids, '$[0]') FROM files WHERE namespace = ? "
            "AND n_chunks > 0 LIMIT ?", (namespace, n))
        return [str(i) for (i,) in found]

    def scope_ids(
        self, namespace: str, note_filter: NoteFilter, *, private: bool
    ) -> Iterator[tuple[bool, str]]:
        """(store is private, chunk id) of every chunk of the notes `note_filter` admits, private
        notes only when `private`. SQLite applies the whole filter, types and tags through indexes
        (a covering index, the folded-tag table), so such a filter costs the chunks it admits, not
        the vault; folders compare lower-cased, through an index of paths without ASCII case (a
        folder with other letters reads every note's path). It agrees with `NoteFilter.admits`
        (tests/index/test_ledger_scope.py) but for a letter that lower-cases to ASCII (the Kelvin
        sign to k) in a folder's name, which an ASCII filter does not find."""
        where = ["f.namespace = ?", "f.n_chunks > 0"]
        args: list[object] = [namespace]
        if not private:
            where.append("f.private = 0")
        if note_filter.types:
            where.append(f"f.type IN ({','.join('?' * len(note_filter.types))})")
            args += note_filter.types
        conn = self._db.get()
        if note_filter.folders:
            conn.create_function("ora_fold_path", 1, fold_path, deterministic=True)
            ranges = []
            for folder in note_filter.folders:  # lower-cased by NoteFilter.make
                folded = "ora_fold_path(f.path) >= ? AND ora_fold_path(f.path) < ?"
                if folder.isascii():  # the NOCASE index finds the candidates, the fold decides
                    ranges.append(f"(f.path >= ? COLLATE NOCASE AND f.path < ? COLLATE NOCASE "
                                  f"AND {folded})")
                    args += [*_under(folder), *_under(folder)]
                else:  # a Unicode lower-casing (ÄRZTE is Ärzte): every note's path is read
                    ranges.append(f"({folded})")
                    args += _under(folder)
            where.append("(" + " OR ".join(ranges) + ")")
        for tag in note_filter.tags:  # the tag itself or one nested under it
            where.append("f.path IN (SELECT path FROM note_tags WHERE namespace = ? AND "
                         "(tag = ? OR (tag >= ? AND tag < ?)))")
            args += [namespace, tag, *_under(tag)]
        if note_filter.clusters:  # case-folded by NoteFilter.make, compared so here too
            conn.create_function("ora_fold", 1, fold_name, deterministic=True)
            where.append(f"ora_fold(f.cluster) IN ({','.join('?' * len(note_filter.clusters))})")
            args += note_filter.clusters
        if note_filter.conversations:
            marks = ",".join("?" * len(note_filter.conversations))
            where.append(f"f.conversation IN ({marks})")
            args += note_filter.conversations
        if note_filter.since is not None:
            where.append("f.decay_date >= ?")
            args.append(note_filter.since)
        if note_filter.until is not None:
            where.append("f.decay_date < ?")
            args.append(note_filter.until)
        found = conn.execute(
            "SELECT f.private, j.value FROM files AS f, json_each(f.chunk_ids) AS j "
            f"WHERE {' AND '.join(where)}", args)
        for is_private, chunk_id in found:
            yield bool(is_private), str(chunk_id)

    def stats(self, namespace: str) -> dict[str, int]:
        files, chunks = (
            self._db.get()
            .execute(
                "SELECT count(*), COALESCE(SUM(n_chunks), 0) FROM files WHERE namespace = ?",
                (namespace,),
            )
            .fetchone()
        )
        return {"files": int(files), "chunks": int(chunks)}

    def chunk_counts(self, namespace: str) -> dict[bool, tuple[int, int]]:
        """Chunks the ledger lists per store, and of those the ones already embedded (in Chroma):
        {private: (listed, embedded)} (stores with none listed left out). The rest wait in
        `pending_chunks`, written to BM25 only (a cold index's words pass)."""
        found = self._db.get().execute(
            "SELECT private, SUM(n_chunks), SUM(n_chunks * embedded) FROM files "
            "WHERE namespace = ? GROUP BY private",
            (namespace,),
        )
        return {bool(p): (int(n), int(e or 0)) for p, n, e in found if n}

    def errors(self, namespace: str) -> list[dict[str, str]]:
        found = self._db.get().execute(
            "SELECT path, error FROM files WHERE namespace = ? AND error IS NOT NULL ORDER BY path",
            (namespace,),
        )
        return [{"path": p, "message": e} for p, e in found]

    @contextmanager
    def chunk_owners(self, namespace: str) -> Iterator[ChunkOwners]:
        """Every chunk id of a namespace with its file, in a temporary table of this thread's
        connection: SQLite keeps it in its own page cache and temp file, not in Python, so the
        start-up check can look ids up and walk them in windows whatever the vault's size."""
        conn = self._db.get()
        conn.execute("DROP TABLE IF EXISTS temp.chunk_owners")
        conn.execute("CREATE TEMP TABLE chunk_owners (private INTEGER NOT NULL, id TEXT NOT NULL, "
                     "path TEXT NOT NULL, embedded INTEGER NOT NULL, PRIMARY KEY (private, id)) "
                     "WITHOUT ROWID")
        try:
            conn.execute(
                "INSERT OR IGNORE INTO temp.chunk_owners SELECT f.private, j.value, f.path, "
                "f.embedded "
                "FROM files f, json_each(f.chunk_ids) j WHERE f.namespace = ?", (namespace,))
            yield ChunkOwners(conn)
        finally:
            conn.execute("DROP TABLE IF EXISTS temp.chunk_owners")

    def close(self) -> None:
        self._db.close_all()


class ChunkOwners:
    """The chunk ids the ledger lists, by store (see `Ledger.chunk_owners`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def owned(self, private: bool, ids: Sequence[str]) -> set[str]:
        """Those of `ids` the ledger lists in this store."""
        found: set[str] = set()
        for start in range(0, len(ids), 500):  # under SQLite's limit of bound parameters
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(str(i) for (i,) in self._conn.execute(
                f"SELECT id FROM temp.chunk_owners WHERE private = ? AND id IN ({marks})",
                (int(private), *part)))
        return found

    def count(self, private: bool) -> int:
        """How many chunk ids the ledger lists in this store."""
        found = self._conn.execute(
            "SELECT count(*) FROM temp.chunk_owners WHERE private = ?", (int(private),))
        return int(found.fetchone()[0])

    def windows(self, private: bool, size: int) -> Iterator[list[tuple[str, str, bool]]]:
        """(chunk id, path, note embedded) of one store's chunks, `size` at a time, in id
        order."""
        after = ""
        while True:
            window = [(str(i), str(p), bool(e)) for i, p, e in self._conn.execute(
                "SELECT id, path, embedded FROM temp.chunk_owners WHERE private = ? AND id > ? "
                "ORDER BY id LIMIT ?", (int(private), after, size))]
            if not window:
                return
            yield window
            after = window[-1][0]
