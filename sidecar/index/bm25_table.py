"""The record of each BM25 store: its table of chunks in `bm25.sqlite` (one row a chunk, found by
id through a unique index), and the engine documents made of its rows.

`bm25.py` writes a store's table before its engine and rebuilds the engine from the table; this
module holds what both steps read and write of a row: what a chunk keeps (`SparseRow`), the one
field the engine ranks (`body`), each row's analysis language (set by ora.yaml, else detected
from its note's text), and the table's layout, reads, inserts, deletes and later columns.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from sidecar.index import anchors, note_level
from sidecar.index.bm25_engine import Doc
from sidecar.index.bm25_query import LANGUAGES
from sidecar.language import languages
from sidecar.vault.links import searchable

# Rows read at once when an engine is rebuilt from its table (bounded memory).
REBUILD_BATCH = 1000


@dataclass(frozen=True)
class SparseRow:
    """What the BM25 store keeps for one chunk: `title` holds the note's names (title and
    aliases), `about` its description and tags."""

    id: str
    path: str
    archived: bool
    text: str
    title: str
    heading: str
    about: str = ""
    language: str = ""  # set by ora.yaml; else detected from the note's text (`languages.py`)
    aliases: tuple[str, ...] = ()  # more keys a link may name a public note by (`anchors.py`)


def table_sql(name: str) -> str:
    """The chunk table `name` and its indexes. The FTS5 table and triggers of the store's first
    layout are dropped (the engine replaces them; their chunk table is kept as it is)."""
    return f"""
    CREATE TABLE IF NOT EXISTS "{name}" (
        rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
        archived INTEGER NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL, heading TEXT NOT NULL,
        about TEXT NOT NULL DEFAULT '', lang TEXT NOT NULL DEFAULT '',
        aliases TEXT NOT NULL DEFAULT '[]');
    CREATE INDEX IF NOT EXISTS "{name}_path" ON "{name}"(path);
    -- Covers a search filter's lookup of its chunk ids' rowids (the rows hold the text).
    CREATE INDEX IF NOT EXISTS "{name}_live" ON "{name}"(id, archived);
    DROP TRIGGER IF EXISTS "{name}_ai";
    DROP TRIGGER IF EXISTS "{name}_ad";
    DROP TABLE IF EXISTS "{name}_fts";
    """


def body(text: str, title: str, heading: str, about: str, linked: str = "") -> str:
    """The one field the engine ranks: names, heading path and description, then the text, then
    what other notes' links to the note say (`anchors.py`). A Markdown link to a note is read
    URL-decoded (`links.searchable`)."""
    return "\n".join(part for part in (title, heading, about, searchable(text), linked) if part)


TableRow = tuple[int, int, str, str, str, str, str, str]


def note_rows(conn: sqlite3.Connection, name: str,
              paths: Sequence[str] | None = None) -> sqlite3.Cursor:
    """The rows of table `name` as `table_docs` reads them, in path order: of the notes `paths`,
    or of every note."""
    columns = f'SELECT rowid, archived, text, title, heading, about, path, lang FROM "{name}" '
    if paths is None:
        return conn.execute(columns + "ORDER BY path")
    return conn.execute(columns + "WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path",
                        (json.dumps(list(paths)),))


def table_docs(
    cursor: sqlite3.Cursor, linked: Callable[[str], str], known: Mapping[str, str] | None = None,
) -> Iterator[tuple[list[Doc], list[Doc]]]:
    """The engines' documents of the table rows (rowid, archived, text, title, heading, about,
    path, lang) read by `cursor` in path order, in batches of whole notes: the chunks', each
    with the incoming-link text `linked` gives its note, and the notes' (`note_level.py`). A row
    without a language set is given its note's, detected again (detection may have changed with
    the layout), unless `known` gives its note's, just found. A note is given a note document
    only in a language whose search lifts by it."""
    note: list[TableRow] = []
    batch: tuple[list[Doc], list[Doc]] = ([], [])
    for row in itertools.chain(cursor, [None]):
        if note and (row is None or row[6] != note[0][6]):
            langs = ([known[note[0][6]]] * len(note) if known and note[0][6] in known else
                     row_languages([SparseRow(str(r[0]), r[6], False, r[2], "", "", language=r[7])
                                 for r in note]))
            text = linked(note[0][6])
            batch[0].extend((r[0], bool(r[1]), body(*r[2:6], text), lang)
                            for r, lang in zip(note, langs, strict=True))
            if note_level.lifts(langs[0]):
                batch[1].append(note_level.document(note, langs[0]))
            note = []
            if len(batch[0]) >= REBUILD_BATCH or row is None:
                yield batch
                batch = ([], [])
        if row is not None:
            note.append(row)


def row_languages(rows: Sequence[SparseRow]) -> list[str]:
    """Each row's analysis language: its own setting, else its note's, detected from the text of
    the note's rows (a note's chunks are written together)."""
    texts: dict[str, list[str]] = {}
    for r in rows:
        texts.setdefault(r.path, []).append(r.text)
    detected: dict[str, str] = {}
    out = []
    for r in rows:
        if r.language not in languages.spec().languages:
            if r.path not in detected:
                detected[r.path] = languages.language_of(texts[r.path])
            out.append(detected[r.path])
        else:
            out.append(r.language)
    return out


def delete(conn: sqlite3.Connection, name: str, ids: Sequence[str], paths: set[str]) -> list[int]:
    """Delete the rows of `ids`; returns their rowids and adds their notes to `paths`."""
    if not ids:
        return []
    rows = conn.execute(
        f'DELETE FROM "{name}" WHERE id IN (SELECT value FROM json_each(?)) RETURNING rowid, path',
        (json.dumps(list(ids)),)).fetchall()
    paths.update(str(path) for _, path in rows)
    return [int(rowid) for rowid, _ in rows]


def chunks_of(conn: sqlite3.Connection, name: str, paths: Sequence[str]) -> int:
    """How many chunks the notes at `paths` have in store `name`."""
    return int(conn.execute(
        f'SELECT count(*) FROM "{name}" WHERE path IN (SELECT value FROM json_each(?))',
        (json.dumps(list(paths)),)).fetchone()[0])


def insert(
    conn: sqlite3.Connection, name: str, rows: Sequence[SparseRow], *, above: int
) -> int:
    """Insert `rows` under new rowids, above every rowid in the table and `above` (the rowids this
    transaction deleted: until the engine's commit, a reader's engine still ranks their old text,
    which must not map to another chunk, say a public one for a note just made private); returns
    the first (the others follow it)."""
    last = int(conn.execute(f'SELECT coalesce(max(rowid), 0) FROM "{name}"').fetchone()[0])
    first = max(last, above) + 1
    conn.executemany(
        f'INSERT INTO "{name}" (rowid, id, path, archived, text, title, heading, about, lang, '
        "aliases) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((first + i, r.id, r.path, int(r.archived), r.text, r.title, r.heading, r.about,
          r.language, json.dumps(list(r.aliases))) for i, r in enumerate(rows)))
    return first


def engine_docs(conn: sqlite3.Connection, public: str, first: int,
          rows: Sequence[SparseRow]) -> list[Doc]:
    """The engine's documents of `rows`, inserted from rowid `first` on, each with the anchors
    of the namespace's `public` store that name its note."""
    linked = {path: anchors.text_for(conn, public, path) for path in {r.path for r in rows}}
    return [(first + i, r.archived, body(r.text, r.title, r.heading, r.about, linked[r.path]),
             lang) for i, (r, lang) in enumerate(zip(rows, row_languages(rows), strict=True))]


def record_languages(conn: sqlite3.Connection, name: str, codes: set[str]) -> None:
    conn.executemany(f'INSERT OR IGNORE INTO "{LANGUAGES}" VALUES (?, ?)',
                     ((name, code) for code in sorted(codes)))


def add_columns(conn: sqlite3.Connection, name: str) -> None:
    """The columns of later layouts, added to a table of a layout before them: the language
    ora.yaml sets for each row ('' when detected), the note's aliases (JSON; none until the
    note is written again, which a new CHUNKER_VERSION makes every note be)."""
    columns = {row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')}
    if "lang" not in columns:
        conn.execute(f"ALTER TABLE \"{name}\" ADD COLUMN lang TEXT NOT NULL DEFAULT ''")
    if "aliases" not in columns:
        conn.execute(f"ALTER TABLE \"{name}\" ADD COLUMN aliases TEXT NOT NULL DEFAULT '[]'")
