"""The cleaning queue: `DATA/contradictions.sqlite`.

Two main tables. `notes` remembers, per vault note, the file hash it was last scanned at, its claims
and their vectors, so a scan re-reads and re-pairs only notes that changed. `pairs` is the queue
the user triages: each pair keeps the two claims, where they are, the judge's evidence, and the
hashes the two files had when judged, so a resolution refuses to edit a file that changed since.
`staged` holds a running scan's new note states (`survey.py`) until its findings are saved, so
the scan need not hold them in memory; what a stopped or killed scan staged is reused by the
next one for notes whose text is the same. `undo` and `undo_files` keep the last resolutions'
journals (`sidecar/cleaning/undo.py`): the pairs as they were and each touched file's earlier
bytes. A pair's id names its two claims in their two notes (`pair_id`); a scan that finds a note
renamed or moved carries the triaged pairs of it, and their journalled snapshots, over to the new
path and id (`moves.py`, `move_pairs`), and one that finds a triaged pair again after its note
was edited elsewhere gives it the claims' new lines and hashes, its status kept (`offer`): the
file's tables are unchanged.

A pair is `private` when either note is private (its tag, or an ora.yaml `private` folder): it
is listed, counted and found by id only in private mode, like the index's private store. With the
vault known, a pair is also kept out of non-private answers as soon as one of its notes is tagged
private (or its folder made private), before the next scan re-flags it, and as soon as one of
its notes is gone from its path, which may be a move into a private folder (unless the pair's
own resolution trashed it: `live_privacy.py`). A queue file from before that column existed
is migrated on open: its scan state is forgotten (the next scan reads every note again
and learns its privacy) and its pairs count as private until that scan re-flags them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sidecar.cleaning.decisions import DecisionLog, decision_line
from sidecar.cleaning.live_privacy import LivePrivacy, Seen
from sidecar.cleaning.provenance import provenance, suggestion
from sidecar.data_folder import private_folder
from sidecar.errors import BadRequest, NotFound, OraError
from sidecar.index.sqlite import ThreadConnections
from sidecar.lint.diagnostics import DEFAULT_MAX_BYTES
from sidecar.models.embedder import FloatArray

log = logging.getLogger("sidecar.cleaning")
QUEUE_FILE = "contradictions.sqlite"
STATUSES = ("open", "resolved", "flagged", "dismissed")
_VERSION = "2"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    kind TEXT, archived INTEGER NOT NULL, title TEXT NOT NULL, date TEXT, cluster TEXT,
    supersedes TEXT NOT NULL, claims TEXT NOT NULL, vectors BLOB, ai_derived INTEGER NOT NULL,
    private INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS staged (
    scan TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, kind TEXT, archived INTEGER NOT NULL, title TEXT NOT NULL,
    date TEXT, cluster TEXT, supersedes TEXT NOT NULL, claims TEXT NOT NULL, vectors BLOB,
    ai_derived INTEGER NOT NULL, private INTEGER NOT NULL, PRIMARY KEY (scan, path)
);
CREATE INDEX IF NOT EXISTS staged_path ON staged (path);
CREATE TABLE IF NOT EXISTS pairs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, batch TEXT,
    a_path TEXT NOT NULL, a_start INTEGER, a_end INTEGER, a_text TEXT NOT NULL, a_hash TEXT,
    b_path TEXT NOT NULL, b_start INTEGER, b_end INTEGER, b_text TEXT NOT NULL, b_hash TEXT,
    judge TEXT NOT NULL, score REAL NOT NULL, evidence TEXT NOT NULL, status TEXT NOT NULL,
    resolution TEXT, created TEXT NOT NULL, updated TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS pairs_a ON pairs (a_path);
CREATE INDEX IF NOT EXISTS pairs_b ON pairs (b_path);
CREATE INDEX IF NOT EXISTS pairs_status ON pairs (status);
CREATE TABLE IF NOT EXISTS undo (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL, pairs TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS undo_files (
    seq INTEGER NOT NULL, path TEXT NOT NULL, before BLOB NOT NULL, after_hash TEXT,
    trash TEXT, PRIMARY KEY (seq, path)
);
"""
UNDO_DEPTH = 20  # resolutions that can be undone, newest first



@dataclass(frozen=True)
class Side:
    """One side of a pair: a claim, where it is, and the file's hash when it was judged."""

    path: str
    line_start: int
    line_end: int
    text: str
    hash: str

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "line_start": self.line_start, "line_end": self.line_end,
                "text": self.text}


@dataclass(frozen=True)
class Pair:
    """A queued contradiction (or, for kind "news", a proposal that b supersedes a)."""

    id: str
    kind: str
    a: Side
    b: Side
    judge: str
    score: float
    evidence: dict[str, Any]
    status: str = "open"
    batch: str | None = None
    resolution: dict[str, Any] | None = None
    private: bool = False  # either note is private

    def as_json(self) -> dict[str, Any]:
        doc = {"id": self.id, "kind": self.kind, "a": self.a.as_json(), "b": self.b.as_json(),
               "judge": self.judge, "score": self.score, "evidence": self.evidence,
               "status": self.status, "private": self.private}
        if self.batch:
            doc["batch"] = self.batch
        if self.resolution:
            doc["resolution"] = self.resolution
        sides = provenance(self.evidence)
        if sides is not None:  # who each claim comes from, and the resolution that follows
            doc["provenance"] = sides
            suggested = suggestion(self.kind, self.a.path, self.b.path, self.evidence)
            if suggested is not None:
                doc["suggested"] = suggested
        return doc


def pair_id(kind: str, a: Side, b: Side) -> str:
    """Stable id: the same two claims in the same two notes always get the same id.

    Contradictions are symmetric, so their sides are sorted; a news proposal is directed. A
    note renamed or moved gives its pairs new ids: the scan carries a triaged pair over to it
    (`moves.py`, `Queue.move_pairs`), so its status follows the note.
    """
    sides = [(a.path, a.text), (b.path, b.text)]
    if kind != "news":
        sides.sort()
    digest = hashlib.sha256(json.dumps([kind, sides], ensure_ascii=False).encode()).hexdigest()
    return digest[:16]


@dataclass
class NoteState:
    """What the last scan saw of one note."""

    path: str
    hash: str
    size: int
    mtime_ns: int
    kind: str | None
    archived: bool
    title: str
    date: str | None
    cluster: str | None
    supersedes: list[str] = field(default_factory=list)
    claims: list[tuple[str, int, int]] = field(default_factory=list)
    vectors: FloatArray | None = None  # one row per claim, then the note vector last
    ai_derived: bool = False  # the provenance marker, shown as evidence for triage
    private: bool = False  # by its tag or its folder (`note_private`): its pairs are private too
    light: bool = False  # claims left out, vectors only the note vector (Queue.note_states)


@dataclass(frozen=True)
class UndoFile:
    """A file a resolution touched: its bytes before, and its hash after (or where the trash
    holds it)."""

    path: str
    before: bytes
    after_hash: str | None
    trash: str | None = None


@dataclass(frozen=True)
class UndoEntry:
    seq: int
    created: str
    pairs: list[Pair]  # as they were before the resolution
    files: list[UndoFile]


def _snapshot_pair(doc: dict[str, Any]) -> Pair:
    a_hash, b_hash = doc["hashes"]
    return Pair(
        id=doc["id"], kind=doc["kind"], a=Side(**doc["a"], hash=a_hash),
        b=Side(**doc["b"], hash=b_hash), judge=doc["judge"], score=doc["score"],
        evidence=doc["evidence"], status=doc["status"], batch=doc.get("batch"),
        resolution=doc.get("resolution"), private=doc["private"],
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _side(row: sqlite3.Row, p: str) -> Side:
    return Side(row[f"{p}_path"], row[f"{p}_start"], row[f"{p}_end"], row[f"{p}_text"],
                row[f"{p}_hash"])


def _pair(row: sqlite3.Row) -> Pair:
    return Pair(
        id=row["id"], kind=row["kind"], a=_side(row, "a"), b=_side(row, "b"),
        judge=row["judge"], score=row["score"], evidence=json.loads(row["evidence"]),
        status=row["status"], batch=row["batch"],
        resolution=json.loads(row["resolution"]) if row["resolution"] else None,
        private=bool(row["private"]),
    )


def _setup(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    conn.execute("BEGIN IMMEDIATE")  # another process may be opening the same file
    try:
        _add_private(conn)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (_VERSION,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _add_private(conn: sqlite3.Connection) -> None:
    """Version 1 files lack the `private` columns (see the module docstring)."""
    if "private" not in {r[1] for r in conn.execute("PRAGMA table_info(notes)")}:
        conn.execute("ALTER TABLE notes ADD COLUMN private INTEGER NOT NULL DEFAULT 0")
        conn.execute("DELETE FROM notes")
    if "private" not in {r[1] for r in conn.execute("PRAGMA table_info(pairs)")}:
        conn.execute("ALTER TABLE pairs ADD COLUMN private INTEGER NOT NULL DEFAULT 1")


class Queue:
    """The queue and the per-note scan state of one data folder (safe across threads)."""

    def __init__(self, data: Path, vault: Path | None = None, *,
                 max_bytes: int | None = None) -> None:
        """With `vault`, every status change is also recorded in the vault's decision notes,
        pairs found again take the status recorded there (`decisions.py`), and a note tagged
        private since the last scan hides its pairs outside private mode at once
        (`live_privacy.py`, reading notes up to `max_bytes`, default `max_file_bytes`)."""
        self.path = private_folder(data) / QUEUE_FILE
        self._db = ThreadConnections(self.path, _setup)
        self.decisions = DecisionLog(vault) if vault is not None else None
        self._live = None if vault is None else LivePrivacy(
            vault, data, DEFAULT_MAX_BYTES if max_bytes is None else max_bytes)

    def close(self) -> None:
        self._db.close_all()

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        conn = self._db.get()
        conn.row_factory = sqlite3.Row
        return list(conn.execute(sql, tuple(args)))

    # ---- meta ----------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._db.get().execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ---- notes ---------------------------------------------------------------------------

    def note_states(self, *, light: bool = False) -> dict[str, NoteState]:
        """Every note's scan state; `light` ones keep only the note vector, no claims (what
        pairing notes needs: `full_states` reads the rest of the few that are paired)."""
        sql = f"SELECT {_LIGHT if light else '*'} FROM notes"
        return {r["path"]: _state(r, light) for r in self._rows(sql)}

    def full_states(self, paths: Iterable[str], scan: str | None = None, *,
                    vectors: bool = True) -> dict[str, NoteState]:
        """The whole states of these notes: as staged by `scan` when it staged them, else as
        last saved (without `vectors`, their claims only)."""
        out: dict[str, NoteState] = {}
        wanted = sorted(set(paths))
        columns = _NOTE_COLUMNS if vectors else _NO_VECTORS
        for start in range(0, len(wanted), 500):  # under SQLite's limit of bound parameters
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            for r in self._rows(f"SELECT {columns} FROM notes WHERE path IN ({marks})", part):
                out[r["path"]] = _state(r, False)
            if scan is not None:
                rows = self._rows(f"SELECT {columns} FROM staged WHERE scan = ? "
                                  f"AND path IN ({marks})", (scan, *part))
                out.update((r["path"], _state(r, False)) for r in rows)
        return out

    def put_notes(self, states: Iterable[NoteState]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(f"INSERT OR REPLACE INTO notes ({_NOTE_COLUMNS}) VALUES ({_MARKS})",
                             (_values(s) for s in states))

    def stage(self, scan: str, states: Iterable[NoteState]) -> None:
        """Keep a scan's new note states aside until `commit_staged`: a scan holds its changed
        notes' claims and vectors here, not in memory, and they count as scanned only once
        their findings are saved."""
        with self._db.transaction() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO staged (scan, {_NOTE_COLUMNS}) VALUES (?, {_MARKS})",
                ((scan, *_values(s)) for s in states))

    def commit_staged(self, scan: str) -> None:
        """The states `scan` staged become the notes' scan states."""
        with self._db.transaction() as conn:
            conn.execute(f"INSERT OR REPLACE INTO notes ({_NOTE_COLUMNS}) "
                         f"SELECT {_NOTE_COLUMNS} FROM staged WHERE scan = ?", (scan,))
            conn.execute("DELETE FROM staged WHERE scan = ?", (scan,))

    def drop_staged(self, scan: str | None = None, *, before: str | None = None) -> None:
        """Forget what `scan` staged (it stopped or failed), or what every scan whose id sorts
        before `before` staged (a process that died mid-scan)."""
        with self._db.transaction() as conn:
            if scan is not None:
                conn.execute("DELETE FROM staged WHERE scan = ?", (scan,))
            if before is not None:
                conn.execute("DELETE FROM staged WHERE scan < ?", (before,))

    def staged_state(self, path: str, file_hash: str, scans: list[str]) -> NoteState | None:
        """The newest whole state of `path` at `file_hash` that one of `scans` staged."""
        marks = ",".join("?" * len(scans))
        rows = self._rows(f"SELECT {_NOTE_COLUMNS} FROM staged WHERE path = ? AND hash = ? "
                          f"AND scan IN ({marks}) ORDER BY scan DESC LIMIT 1",
                          (path, file_hash, *scans))
        return _state(rows[0], False) if rows else None

    def keep_newest_staged(self, scans: list[str]) -> None:
        """Of what `scans` staged, keep only the newest row of each note."""
        marks = ",".join("?" * len(scans))
        with self._db.transaction() as conn:
            conn.execute(f"DELETE FROM staged WHERE scan IN ({marks}) AND EXISTS (SELECT 1 FROM "
                         "staged AS newer WHERE newer.path = staged.path AND newer.scan > "
                         f"staged.scan AND newer.scan IN ({marks}))", (*scans, *scans))

    def staged_scans(self) -> list[str]:
        """The scans that have states staged now (running ones, or leftovers of dead ones)."""
        return [r["scan"] for r in self._rows("SELECT DISTINCT scan FROM staged ORDER BY scan")]

    def restat(self, stats: Iterable[tuple[str, int, int]]) -> None:
        """New (path, size, mtime_ns) of notes whose bytes did not change."""
        with self._db.transaction() as conn:
            conn.executemany("UPDATE notes SET size = ?, mtime_ns = ? WHERE path = ?",
                             ((size, mtime, path) for path, size, mtime in stats))

    def saved_paths(self, paths: Iterable[str]) -> set[str]:
        """Which of these notes have a saved scan state."""
        return {r["path"] for r in self._rows_in("SELECT path FROM notes WHERE path", paths)}

    def drop_notes(self, paths: Iterable[str]) -> None:
        with self._db.transaction() as conn:
            conn.executemany("DELETE FROM notes WHERE path = ?", [(p,) for p in paths])

    # ---- pairs ---------------------------------------------------------------------------

    def clear_open(self, paths: Iterable[str]) -> None:
        """Forget open pairs touching these notes: they are judged again from their new text."""
        with self._db.transaction() as conn:
            for path in paths:
                conn.execute("DELETE FROM pairs WHERE status = 'open' "
                             "AND (a_path = ? OR b_path = ?)", (path, path))

    def offer(self, pairs: Iterable[Pair]) -> int:
        """Queue new findings; a pair the user already triaged keeps its status, decision and
        judged evidence (it is not reopened nor judged again), but takes the places and hashes
        found now (`_refresh_sides`). Returns how many are open now among those offered."""
        now, opened = _now(), 0
        decided = self.decisions.statuses() if self.decisions is not None else {}
        with self._db.transaction() as conn:
            refreshed: dict[str, Pair] = {}
            for p in pairs:
                row = conn.execute("SELECT status FROM pairs WHERE id = ?", (p.id,)).fetchone()
                if row is not None and row[0] != "open":
                    refreshed[p.id] = _refresh_sides(conn, p, now)
                    continue
                # A pair the queue does not know may have been triaged before `.ora/` was lost.
                status = decided.get(p.id, "open") if row is None else "open"
                conn.execute(
                    "INSERT OR REPLACE INTO pairs VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                    (p.id, p.kind, p.batch, *_side_row(p.a), *_side_row(p.b), p.judge,
                     p.score, json.dumps(p.evidence, ensure_ascii=False), status, now, now,
                     int(p.private)),
                )
                opened += status == "open"
            _refresh_snapshots(conn, refreshed)
        return opened

    def pairs(self, status: str | None = None, kind: str | None = None, *,
              private: bool = False) -> list[Pair]:
        """Queued pairs, best first; private ones only in private mode."""
        if status is not None and status not in STATUSES:
            raise BadRequest(f"unknown status {status!r}: choose from {', '.join(STATUSES)}")
        sql, args = "SELECT * FROM pairs WHERE " + _visible(private), list[str]()
        if status:
            sql, args = sql + " AND status = ?", [*args, status]
        if kind:
            sql, args = sql + " AND kind = ?", [*args, kind]
        return self._seen_in(self._rows(sql + " ORDER BY score DESC, id", args), private)

    def get(self, pid: str, *, private: bool = False) -> Pair:
        """One pair; a private one outside private mode is not found (its id reveals nothing)."""
        found = self._seen_in(
            self._rows(f"SELECT * FROM pairs WHERE id = ? AND {_visible(private)}", (pid,)),
            private)
        if not found:
            hint = "" if private else " (private ones with --private)"
            raise NotFound(f"no contradiction with id {pid!r}: list them with "
                           f"`ora contradictions`{hint}")
        return found[0]

    def batch(self, batch: str, *, private: bool = False) -> list[Pair]:
        return self._seen_in(self._rows(
            f"SELECT * FROM pairs WHERE batch = ? AND status = 'open' AND {_visible(private)} "
            "ORDER BY id", (batch,)), private)

    def hides(self, pids: Iterable[str]) -> bool:
        """True when any of these pairs still queued is hidden outside private mode now."""
        return bool(self._private_now(
            self._rows_in("SELECT id, private, a_path, b_path, resolution FROM pairs WHERE id",
                          pids)))

    def _seen_in(self, rows: list[sqlite3.Row], private: bool) -> list[Pair]:
        """The pairs of `rows` as this mode sees them: outside private mode without those with
        a note private now, in private mode with those flagged private."""
        now = self._private_now(rows)
        pairs = [_pair(r) for r in rows if private or r["id"] not in now]
        return [replace(p, private=True) if p.id in now else p for p in pairs]

    def _private_now(self, rows: list[sqlite3.Row]) -> set[str]:
        """Ids of the pairs of `rows` that are private now: flagged so by the last scan, or
        with a note tagged private since, or gone from its path unless the pair's own
        resolution trashed it (`live_privacy.py`; only with the vault known)."""
        flagged = {r["id"] for r in rows if r["private"]}
        public = [r for r in rows if not r["private"]]
        if self._live is None or not public:
            return flagged
        paths = {r["a_path"] for r in public} | {r["b_path"] for r in public}
        seen: dict[str, Seen] = {}
        hidden: set[str] = set()
        for r in self._rows_in("SELECT path, size, mtime_ns, private FROM notes WHERE path",
                               paths):
            if r["private"]:
                hidden.add(r["path"])
            else:
                seen[r["path"]] = (r["size"], r["mtime_ns"])
        hidden |= self._live.turned_private(seen)
        hidden |= self._live.missing(paths - seen.keys() - hidden)  # the scan dropped them
        live = self._live
        return flagged | {r["id"] for r in public
                          if any(p in hidden and not _trashed_here(r, p, live)
                                 for p in (r["a_path"], r["b_path"]))}

    def _rows_in(self, sql: str, values: Iterable[str]) -> list[sqlite3.Row]:
        """`sql` + ` IN (values)`, asked a bounded number of values at a time."""
        ordered = sorted(set(values))
        rows: list[sqlite3.Row] = []
        for start in range(0, len(ordered), _IN_CHUNK):
            part = ordered[start: start + _IN_CHUNK]
            rows += self._rows(f"{sql} IN ({','.join('?' * len(part))})", part)
        return rows

    def set_status(self, pid: str, status: str, resolution: dict[str, Any] | None) -> Pair:
        """Record the pair's new status in the vault's decisions, then in the queue: a status
        the vault cannot record (a full disk, the note being saved) raises and changes
        nothing, since the queue is rebuilt from that record."""
        self._record(self.get(pid, private=True), status)
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE pairs SET status = ?, resolution = ?, updated = ? WHERE id = ?",
                (status, json.dumps(resolution) if resolution else None, _now(), pid),
            )
        return self.get(pid, private=True)

    def _record(self, pair: Pair, status: str) -> None:
        """Every status change (a resolution, an undo) is written to the vault's decisions."""
        if self.decisions is not None:
            self.decisions.record(pair.id, status,
                                  (pair.a.path, pair.a.line_start, pair.a.line_end),
                                  (pair.b.path, pair.b.line_start, pair.b.line_end),
                                  private=pair.private)

    def triaged(self, paths: Iterable[str]) -> list[Pair]:
        """The pairs the user triaged (any status but open) with a side in one of `paths`."""
        wanted = sorted(set(paths))
        rows = self._rows_in("SELECT * FROM pairs WHERE status != 'open' AND a_path", wanted)
        rows += self._rows_in("SELECT * FROM pairs WHERE status != 'open' AND b_path", wanted)
        return sorted({r["id"]: _pair(r) for r in rows}.values(), key=lambda p: p.id)

    def move_pairs(self, moves: list[tuple[Pair, Pair]]) -> list[Pair]:
        """Triaged pairs whose notes were renamed or moved (`moves.py`), as (old, moved): each
        `moved` (its new id, paths and lines, its status kept) takes the place of `old` in the
        queue and in the undo journal, so that neither the next scan's finding nor an undo sees
        a pair of its own. A new id the user decided already keeps that decision: the old pair
        goes, recorded nowhere, and so do its journalled snapshots (their undo must not reopen
        the pair that stands). Returns the pairs that moved.

        All in one transaction, with one pass over the journal, and the moved pairs recorded
        in the vault's decisions before it commits (one append per decisions note), so they
        outlive `.ora/`; a decision that cannot be written there (a full disk) is logged and
        still kept in the queue: moving the pairs loses nothing that was recorded. A pair
        takes its moved note's privacy at once (a move into a private folder), not only when
        the scan's note states are saved: it points at that note's path from now on."""
        with self._db.transaction() as conn:
            went = [(old, moved) for old, moved in moves if _take_id(conn, old, moved)]
            self._record_all([moved for _, moved in went])
            gone = {old.id for old, _ in moves} - {old.id for old, _ in went}
            _move_snapshots(conn, {old.id: moved for old, moved in went}, gone)
        return [moved for _, moved in went]

    def _record_all(self, pairs: list[Pair]) -> None:
        """Record the status of each of `pairs` in the vault's decisions, one write per note
        (see `move_pairs` for a note that cannot be written)."""
        if self.decisions is None:
            return
        for private in (False, True):
            lines = [decision_line(p.id, p.status, (p.a.path, p.a.line_start, p.a.line_end),
                                   (p.b.path, p.b.line_start, p.b.line_end))
                     for p in pairs if p.private == private]
            try:
                self.decisions.append(lines, private=private)
            except (OraError, OSError) as err:
                log.warning("the decisions on %d pairs could not follow their renamed notes into "
                            "the decisions note (%s); they are kept in the queue", len(lines), err)

    def move_undo_files(self, moves: Iterable[tuple[str, str, str]]) -> None:
        """Journalled files renamed or moved, as (old path, new path, new hash), with the bytes
        a resolution left (the new hash): an undo puts their earlier bytes back at the new
        path."""
        with self._db.transaction() as conn:
            conn.executemany("UPDATE undo_files SET path = ? WHERE path = ? AND trash IS NULL "
                             "AND after_hash = ?", ((new, old, h) for old, new, h in moves))

    def rehash(self, path: str, old_hash: str, new_hash: str) -> None:
        """Our own edit changed a file's frontmatter: open pairs judged on its old bytes stay
        valid (their claims are in the body, untouched), so they follow the new hash."""
        with self._db.transaction() as conn:
            for p in ("a", "b"):
                conn.execute(
                    f"UPDATE pairs SET {p}_hash = ? WHERE {p}_path = ? AND {p}_hash = ? "
                    "AND status = 'open'", (new_hash, path, old_hash))

    def reflag(self) -> None:
        """Every pair takes the privacy its notes have now (a pair the user triaged is not judged
        again, so a private tag added or removed since reaches it only here). A side whose note
        is gone keeps the pair's flag."""
        side = "COALESCE((SELECT private FROM notes WHERE path = {}_path), pairs.private)"
        with self._db.transaction() as conn:
            conn.execute(f"UPDATE pairs SET private = MAX({side.format('a')}, {side.format('b')})")

    def restore_pair(self, pair: Pair) -> None:
        """Put a pair back as it was (an undo): status, resolution and judged hashes; recorded
        in the vault's decisions first, as `set_status` does."""
        self._record(self.get(pair.id, private=True), pair.status)
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE pairs SET status = ?, resolution = ?, a_hash = ?, b_hash = ?, updated = ? "
                "WHERE id = ?",
                (pair.status, json.dumps(pair.resolution) if pair.resolution else None,
                 pair.a.hash, pair.b.hash, _now(), pair.id))

    # ---- undo journal --------------------------------------------------------------------

    def save_undo(self, pairs: list[Pair], files: list[UndoFile]) -> None:
        """Journal one resolution (or batch approval); only the newest UNDO_DEPTH are kept."""
        snapshot = json.dumps([{**p.as_json(), "hashes": [p.a.hash, p.b.hash]} for p in pairs],
                              ensure_ascii=False)
        with self._db.transaction() as conn:
            seq = conn.execute("INSERT INTO undo (created, pairs) VALUES (?, ?)",
                               (_now(), snapshot)).lastrowid
            conn.executemany("INSERT INTO undo_files VALUES (?, ?, ?, ?, ?)",
                             [(seq, f.path, f.before, f.after_hash, f.trash) for f in files])
            conn.execute("DELETE FROM undo WHERE seq NOT IN "
                         "(SELECT seq FROM undo ORDER BY seq DESC LIMIT ?)", (UNDO_DEPTH,))
            conn.execute("DELETE FROM undo_files WHERE seq NOT IN (SELECT seq FROM undo)")

    def last_undo(self) -> UndoEntry | None:
        return next(self.undo_entries(), None)

    def undo_entries(self) -> Iterator[UndoEntry]:
        """The journalled resolutions, newest first, each read only when asked for."""
        rows = self._rows("SELECT * FROM undo ORDER BY seq DESC LIMIT 1")
        while rows:
            seq = rows[0]["seq"]
            pairs = [_snapshot_pair(doc) for doc in json.loads(rows[0]["pairs"])]
            files = [UndoFile(r["path"], bytes(r["before"]), r["after_hash"], r["trash"])
                     for r in self._rows("SELECT * FROM undo_files WHERE seq = ? ORDER BY path",
                                         (seq,))]
            yield UndoEntry(seq, rows[0]["created"], pairs, files)
            rows = self._rows("SELECT * FROM undo WHERE seq < ? ORDER BY seq DESC LIMIT 1", (seq,))

    def drop_undo(self, seq: int) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM undo_files WHERE seq = ?", (seq,))
            conn.execute("DELETE FROM undo WHERE seq = ?", (seq,))

    def open_count(self, *, private: bool = False) -> int:
        """Open pairs; without private mode the private ones are not counted."""
        if private or self._live is None:
            return int(self._rows("SELECT count(*) AS n FROM pairs WHERE status = 'open' AND "
                                  + _visible(private))[0]["n"])
        rows = self._rows("SELECT id, private, a_path, b_path, resolution FROM pairs WHERE "
                          "status = 'open' AND private = 0")
        return len(rows) - len(self._private_now(rows))


def _take_id(conn: sqlite3.Connection, old: Pair, moved: Pair) -> bool:
    """`old`'s row becomes `moved` (an open finding under that id gives way), unless that id
    is decided already: that stands, and `old` goes. The row is private when either was (see
    `Queue.move_pairs`); `reflag` makes it public again once its notes' states say so."""
    taken = conn.execute("SELECT status FROM pairs WHERE id = ?", (moved.id,)).fetchone()
    if taken is not None and taken[0] != "open" and moved.id != old.id:
        conn.execute("DELETE FROM pairs WHERE id = ?", (old.id,))
        return False
    conn.execute("DELETE FROM pairs WHERE id = ? AND status = 'open'", (moved.id,))
    conn.execute(
        "UPDATE pairs SET id = ?, a_path = ?, a_start = ?, a_end = ?, b_path = ?, b_start = ?, "
        "b_end = ?, resolution = ?, private = MAX(private, ?), updated = ? WHERE id = ?",
        (moved.id, moved.a.path, moved.a.line_start, moved.a.line_end, moved.b.path,
         moved.b.line_start, moved.b.line_end,
         json.dumps(moved.resolution) if moved.resolution else None, int(moved.private),
         _now(), old.id))
    return True


def _refresh_sides(conn: sqlite3.Connection, found: Pair, now: str) -> Pair:
    """A triaged pair found again (the same claims in the same notes: its id) after an edit
    elsewhere in a note, e.g. a line added above a claim: its sides take the lines and file
    hashes found now, so its citation points at the claim and a resolution that checks the
    hashes can go ahead (it refused for ever: the scan does not reopen a triaged pair, so no
    fresh pair came). Each stored side takes the found side of the same note and claim (a
    contradiction's sides may come in either order). The status, resolution, judge and
    evidence stay: the user decided on those words. Private if either was (`reflag` rules)."""
    a_path, a_text, b_path, b_text = conn.execute(
        "SELECT a_path, a_text, b_path, b_text FROM pairs WHERE id = ?", (found.id,)).fetchone()
    a, b = _same_claims(found, (a_path, a_text), (b_path, b_text))
    conn.execute(
        "UPDATE pairs SET a_path = ?, a_start = ?, a_end = ?, a_text = ?, a_hash = ?, "
        "b_path = ?, b_start = ?, b_end = ?, b_text = ?, b_hash = ?, "
        "private = MAX(private, ?), updated = ? WHERE id = ?",
        (*_side_row(a), *_side_row(b), int(found.private), now, found.id))
    return replace(found, a=a, b=b)


def _same_claims(found: Pair, a: tuple[str, str], b: tuple[str, str]) -> tuple[Side, Side]:
    """The sides of `found` making the claims (path, text) `a` and `b`, in that order."""
    by_claim = {(s.path, s.text): s for s in (found.a, found.b)}
    return by_claim.get(a, found.a), by_claim.get(b, found.b)


def _refresh_snapshots(conn: sqlite3.Connection, refreshed: dict[str, Pair]) -> None:
    """The undo journal's snapshots of pairs `_refresh_sides` refreshed take their new lines,
    as a move's do; a side's hash too where that entry journalled no bytes of its file (a flag
    or a dismissal: its undo reopens the pair on the file as it is now, not as first judged).
    A file the entry did journal keeps its hash: its undo puts those bytes back."""
    if not refreshed:
        return
    for seq, text in conn.execute("SELECT seq, pairs FROM undo").fetchall():
        docs = json.loads(text)
        if not any(doc["id"] in refreshed for doc in docs):
            continue
        files = {r[0] for r in conn.execute("SELECT path FROM undo_files WHERE seq = ?", (seq,))}
        for doc in docs:
            if (pair := refreshed.get(doc["id"])) is None:
                continue
            sides = _same_claims(pair, *((d["path"], d["text"]) for d in (doc["a"], doc["b"])))
            doc["a"], doc["b"] = sides[0].as_json(), sides[1].as_json()
            doc["hashes"] = [side.hash if side.path not in files else old
                             for side, old in zip(sides, doc["hashes"], strict=True)]
        conn.execute("UPDATE undo SET pairs = ? WHERE seq = ?",
                     (json.dumps(docs, ensure_ascii=False), seq))


def _move_snapshots(conn: sqlite3.Connection, moved: dict[str, Pair], gone: set[str]) -> None:
    """In one pass over the undo journal: the snapshots of each pair of `moved` (old id -> the
    pair moved) take its new id and places (their status, hashes and resolution stay as they
    were before that resolution); those of `gone` are dropped. An entry left without pairs
    stays: its undo puts back its files, if any, and reopens nothing."""
    if not moved and not gone:
        return
    for seq, text in conn.execute("SELECT seq, pairs FROM undo").fetchall():
        docs = json.loads(text)
        if not any(doc["id"] in moved or doc["id"] in gone for doc in docs):
            continue
        kept = [doc for doc in docs if doc["id"] not in gone]
        for doc in kept:
            if (pair := moved.get(doc["id"])) is not None:
                doc["id"], doc["a"], doc["b"] = pair.id, pair.a.as_json(), pair.b.as_json()
        conn.execute("UPDATE undo SET pairs = ? WHERE seq = ?",
                     (json.dumps(kept, ensure_ascii=False), seq))


_IN_CHUNK = 500  # paths per `IN (...)` query
_NOTE_COLUMNS = ("path, hash, size, mtime_ns, kind, archived, title, date, cluster, supersedes, "
                 "claims, vectors, ai_derived, private")
_MARKS = ",".join("?" * 14)
_NO_VECTORS = _NOTE_COLUMNS.replace("vectors", "NULL AS vectors")
# A light state: every column but the claims, and of the vectors only the note vector (the last
# row of `vectors`, whose width is the blob's size over claims + 1 rows).
_LIGHT = ("path, hash, size, mtime_ns, kind, archived, title, date, cluster, supersedes, "
          "'[]' AS claims, CASE WHEN vectors IS NULL THEN NULL ELSE substr(vectors, "
          "length(vectors) - length(vectors) / (json_array_length(claims) + 1) + 1) END "
          "AS vectors, ai_derived, private")


def _state(r: sqlite3.Row, light: bool) -> NoteState:
    claims = [tuple(c) for c in json.loads(r["claims"])]
    vectors = None
    if r["vectors"] is not None:
        vectors = np.frombuffer(r["vectors"], dtype=np.float32)
        vectors = vectors.reshape(len(claims) + 1, -1)
    return NoteState(
        r["path"], r["hash"], r["size"], r["mtime_ns"], r["kind"], bool(r["archived"]),
        r["title"], r["date"], r["cluster"], json.loads(r["supersedes"]), claims, vectors,
        bool(r["ai_derived"]), bool(r["private"]), light=light,
    )


def _values(s: NoteState) -> tuple[Any, ...]:
    assert not s.light, "a light state has no claims to save"
    return (s.path, s.hash, s.size, s.mtime_ns, s.kind, int(s.archived), s.title, s.date,
            s.cluster, json.dumps(s.supersedes), json.dumps(s.claims),
            None if s.vectors is None else s.vectors.astype(np.float32).tobytes(),
            int(s.ai_derived), int(s.private))


def _trashed_here(row: sqlite3.Row, path: str, live: LivePrivacy) -> bool:
    """Whether `path` is gone because this pair's resolution moved it to the trash: a deletion
    Ora saw, not a move somewhere private, so the pair stays listed."""
    if not row["resolution"]:  # every caller selects it (an open pair has none)
        return False
    done = json.loads(row["resolution"])
    return bool(done.get("deleted")) and done.get("note") == path and bool(live.missing([path]))


def _visible(private: bool) -> str:
    """The SQL condition for pairs a request in this mode may see."""
    return "1=1" if private else "private = 0"


def _side_row(s: Side) -> tuple[Any, ...]:
    return (s.path, s.line_start, s.line_end, s.text, s.hash)
