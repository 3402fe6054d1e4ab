"""Incoming-link text: the words around a wikilink, indexed by BM25 with the note it points at.

How other notes refer to a note is vocabulary the note itself may lack ("see the connections
between notes in [[Graph view]]"): web search has used link anchor text since its beginnings
(Brin & Page 1998; Craswell, Hawking & Robertson, "Effective site finding using link anchor
information", SIGIR 2001). Each link of a public, live chunk gives an anchor: the link as
Obsidian shows it with up to `window` words either side on its line (`schema/languages.json`
`anchors`). Every chunk of the note a link names is indexed with the note's anchors, each once,
at most `most` of them, the first linking notes' by path (a note half the vault links to would
otherwise multiply its chunks' length), after its own text. On the Italian, Dutch and French
help vaults this put 2 more of 76 notes in the top 5 of the default search and 6 more with BM25
alone, and raised MRR@10 by 0.07 and 0.09 (docs/benchmarks.md).

A link is a wikilink or a Markdown link, read by `vault/links.py` (the one reader of link syntax):
`[text](Graph%20view.md)`, `[text](<Folder/My note.md>)`, `[text](../Other/Note.md#H)`. It names a
note by a key: its file name or its vault path (without `.md`, composed (NFC) and case-folded as
`scan.folded` does, so a name macOS saved decomposed is named by a link typed composed), or one of
its `aliases`. A Markdown link not written `./`- or `../`-relative nor vault-absolute gives two
keys, its path from the linking note's folder and the path as written (Obsidian tries both), each
anchoring the note it names. A key shared by several notes (a name, an alias) gives its anchors to
each; an embed, an image or a web address gives none. A note's links to itself are left out. The
keys of each store's notes are in its names table (`names_table`), so the notes a changed anchor
names are found by an index lookup: the public store's notes' aliases are keys too, changed whenever
the note is written (every row of a note carries its aliases, `SparseRow.aliases`, kept in the
store's table for a rebuild). Only the public store's chunks give anchors: a private note's words
never reach a note found outside private mode; a private note may be found by a public note's words
about it by name or path, never by its aliases (they are no keys: a private note's aliases neither
name it nor tell that it exists).

A cold pass (an empty store filled with the vault) gathers first the anchors of every public
note from its file (`gather`: the note's body, read by `anchors` as its chunks are, a note's
privacy read as its chunks' is), so a note written before the notes linking to it is written with
their anchors already: a newest-first pass wrote half the linked notes of a linked vault before
their linkers, and built the store once more at its end (docs/benchmarks.md). As each note is
written its chunks' anchors take the place of those gathered for it, and any difference (a note
cut at the size limit, changed since) indexes the notes it names again, as any write does.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePosixPath

from sidecar.language import languages
from sidecar.vault import links
from sidecar.vault.scan import folded

# Rows read at once when a store's anchors are extracted again (bounded memory).
_BATCH = 1000


def _key(target: str) -> str:
    target = target.strip().lstrip("/")
    return folded(target[:-3] if target.casefold().endswith(".md") else target)


def keys(path: str) -> tuple[str, str]:
    """The keys a link may name the note at `path` by: its vault path and its file name."""
    return _key(path), _key(PurePosixPath(path).name)


def note_keys(conn: sqlite3.Connection, public: str, path: str) -> list[str]:
    """The keys a link may name the note at `path` by: `keys`, and the aliases the `public`
    store's names table holds for it (none for a private note: `add_names`)."""
    return list(dict.fromkeys([*keys(path), *(str(key) for (key,) in conn.execute(
        f'SELECT key FROM "{names_table(public)}" WHERE path = ?', (path,)))]))


def anchors(text: str, source: str = "") -> Iterator[tuple[str, str]]:
    """(key of a note linked to, the link and the words around it) of each wikilink and
    Markdown link to a note in `text`, of the note at `source` (a relative Markdown link is
    read from its folder, and may name a note by either of two keys: `links.markdown_targets`);
    embeds, web addresses and links to a part of the same note (`[[#part]]`) give none."""
    window = languages.spec().anchor_window
    for line in text.splitlines():
        if "[[" not in line and "](" not in line:
            continue
        found = list(links.links(line, source))
        # The line as Obsidian shows it, cut at its links, read once: a link's words around it
        # are those of the shown text before and after it (a Markdown link's shown as read
        # from the vault's root, as `links.shown` reads it).
        plain = found if "](" not in line else list(links.links(line))
        shown = [(line[prev.end if prev else 0 : link.start], link.shown)
                 for prev, link in zip([None, *plain], plain, strict=False)]
        rest = line[plain[-1].end :] if plain else line
        for at, link in enumerate(found):
            if link.embed or not link.targets:
                continue
            before = "".join(part for pair in shown[:at] for part in pair) + shown[at][0]
            after = "".join(part for pair in shown[at + 1 :] for part in pair) + rest
            words = " ".join([*before.split()[-window:], link.shown, *after.split()[:window]])
            for key in dict.fromkeys(_key(t) for t in link.targets):
                if key:
                    yield key, words


def table(store: str) -> str:
    """The table of the anchors of a public store's chunks (`bm25.sqlite`)."""
    return f"{store}_anchors"


def create_sql(store: str) -> str:
    name = table(store)
    return f"""
    CREATE TABLE IF NOT EXISTS "{name}" (
        source INTEGER NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS "{name}_key" ON "{name}"(key);
    CREATE INDEX IF NOT EXISTS "{name}_source" ON "{name}"(source);
    """


# The `source` of an anchor gathered from a note's file ahead of a cold pass, before the note
# has chunks (`gather`); a chunk's rowid is never 0.
AHEAD = 0

Anchor = tuple[str, str, str]
"""(key, path of the linking note, text): what a note's document holds of one anchor."""


def write(conn: sqlite3.Connection, store: str,
          rows: Iterable[tuple[int, str, str]]) -> list[Anchor]:
    """Record the anchors of chunks (rowid, note path, text) of the public `store`."""
    found = [(rowid, path, key, words) for rowid, path, text in rows
             for key, words in anchors(text, path)]
    conn.executemany(f'INSERT INTO "{table(store)}" VALUES (?, ?, ?, ?)', found)
    return [(key, path, words) for _, path, key, words in found]


def gather(conn: sqlite3.Connection, store: str, notes: Iterable[tuple[str, str]]) -> None:
    """Record ahead of a cold pass the anchors the public notes (path, body) about to be written
    to the empty public `store` will give (`AHEAD`), so each note's document is written once
    with its final anchors, wherever the pass takes it."""
    conn.executemany(f'INSERT INTO "{table(store)}" VALUES ({AHEAD}, ?, ?, ?)', (
        (path, key, words) for path, body in notes for key, words in anchors(body, path)))


def drop_ahead(conn: sqlite3.Connection, store: str,
               paths: Iterable[str] | None = None) -> list[Anchor]:
    """Forget the anchors gathered ahead for the notes at `paths` (every note when None): they
    are written now, or were never written."""
    where = "" if paths is None else "AND path IN (SELECT value FROM json_each(?))"
    return [(str(key), str(path), str(text)) for key, path, text in conn.execute(
        f'DELETE FROM "{table(store)}" WHERE source = {AHEAD} {where} RETURNING key, path, text',
        () if paths is None else (json.dumps(sorted(set(paths))),))]


def drop(conn: sqlite3.Connection, store: str, rowids: Sequence[int]) -> list[Anchor]:
    """Forget the anchors of the chunks `rowids`."""
    if not rowids:
        return []
    return [(str(key), str(path), str(text)) for key, path, text in conn.execute(
        f'DELETE FROM "{table(store)}" WHERE source IN (SELECT value FROM json_each(?)) '
        "RETURNING key, path, text", (json.dumps(list(rowids)),))]


def changed(dropped: Iterable[Anchor], added: Iterable[Anchor]) -> dict[str, str]:
    """The keys whose notes' documents may change when `dropped` anchors give way to `added`,
    each with the first path (in `text_for`'s order) of a linking note whose anchors changed: a
    note rewritten with the same links in the same words changes none."""
    count = Counter(dropped)
    count.subtract(added)
    first: dict[str, str] = {}
    for (key, path, _), n in count.items():
        if n and (key not in first or path < first[key]):
            first[key] = path
    return first


def beyond_cap(conn: sqlite3.Connection, store: str, path: str, since: str) -> bool:
    """Whether the note at `path` already takes its `most` anchors from linking notes before
    `since` (its anchors from `since` on, changed or not, are then not in its document): a hub
    most of the vault links to is not indexed again each time one of its later linkers is."""
    most = languages.spec().anchor_most
    (before,) = conn.execute(
        f'SELECT count(*) FROM (SELECT DISTINCT text FROM "{table(store)}" '
        "WHERE key IN (SELECT value FROM json_each(?)) AND path != ? AND path < ? LIMIT ?)",
        (json.dumps(note_keys(conn, store, path)), path, since, most)).fetchone()
    return int(before) >= most


def refill(conn: sqlite3.Connection, store: str) -> None:
    """Extract the anchors of every live chunk of the public `store` again."""
    conn.execute(f'DELETE FROM "{table(store)}"')
    cursor = conn.execute(f'SELECT rowid, path, text FROM "{store}" WHERE archived = 0')
    while batch := cursor.fetchmany(_BATCH):
        write(conn, store, batch)


def text_for(conn: sqlite3.Connection, store: str, path: str) -> str:
    """The anchors other notes of the public `store` give the note at `path`, each once, the
    first `most` in the order of the linking notes' paths (whatever order they were written in),
    then of their lines (a note's anchors gathered `AHEAD` come in the order its chunks give)."""
    found = conn.execute(
        f'SELECT text FROM "{table(store)}" WHERE key IN (SELECT value FROM json_each(?)) '
        "AND path != ? ORDER BY path, source, rowid",
        (json.dumps(note_keys(conn, store, path)), path))
    most = languages.spec().anchor_most
    kept: dict[str, None] = {}
    for (text,) in found:  # read only as far as needed: a hub may have thousands
        if len(kept) >= most:
            break
        kept.setdefault(str(text), None)
    return "\n".join(kept)


def names_table(store: str) -> str:
    """The table of the keys a link may name each note of `store` by (`keys`, and the aliases
    of a public note), so the notes a changed anchor names are found by an index lookup, not a
    scan of the store's paths."""
    return f"{store}_names"


def names_sql(store: str) -> str:
    name = names_table(store)
    return f"""
    CREATE TABLE IF NOT EXISTS "{name}" (
        key TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (key, path)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS "{name}_path" ON "{name}"(path);
    """


def add_names(conn: sqlite3.Connection, store: str,
              notes: Iterable[tuple[str, Iterable[str]]]) -> None:
    """Record the keys of the notes (path, aliases) just written whole to `store`, in place of
    those they had: aliases only for the public store's, so a private note's aliases never
    name it, nor tell a public note's document that it exists."""
    found = dict(notes)  # each row of a note carries the note's aliases
    table = names_table(store)
    conn.execute(f'DELETE FROM "{table}" WHERE path IN (SELECT value FROM json_each(?))',
                 (json.dumps(sorted(found)),))
    conn.executemany(f'INSERT OR IGNORE INTO "{table}" VALUES (?, ?)', (
        (key, path) for path, aliases in found.items()
        for key in (*keys(path), *map(_key, aliases)) if key))


def drop_names(conn: sqlite3.Connection, store: str, paths: Iterable[str]) -> None:
    """Forget the keys of those of `paths` that no longer have a chunk in `store`."""
    table = names_table(store)
    conn.execute(
        f'DELETE FROM "{table}" WHERE path IN (SELECT value FROM json_each(?)) '
        f'AND NOT EXISTS (SELECT 1 FROM "{store}" WHERE "{store}".path = "{table}".path)',
        (json.dumps(sorted(set(paths))),))


def refill_names(conn: sqlite3.Connection, store: str, *, aliases: bool) -> None:
    """Record the keys of every note of `store` again, with their aliases when `aliases` (the
    public store)."""
    conn.execute(f'DELETE FROM "{names_table(store)}"')
    add_names(conn, store, ((str(path), json.loads(found) if aliases else ())
                            for path, found in conn.execute(
                                f'SELECT path, aliases FROM "{store}" GROUP BY path')))


def named(conn: sqlite3.Connection, store: str, found: set[str]) -> list[str]:
    """The note paths of `store` that the anchor keys `found` name."""
    if not found:
        return []
    return [str(path) for (path,) in conn.execute(
        f'SELECT DISTINCT path FROM "{names_table(store)}" '
        "WHERE key IN (SELECT value FROM json_each(?)) ORDER BY path",
        (json.dumps(sorted(found)),))]


def _decomposed(conn: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    """The (key, path) rows of `table` whose key is not composed (NFC): written before keys were
    (`_key`). Only keys beyond ASCII are read."""
    return [(str(key), str(path)) for key, path in conn.execute(
        f'SELECT key, path FROM "{table}" WHERE key GLOB ?', ("*[^\x01-\x7f]*",))
        if not unicodedata.is_normalized("NFC", str(key))]


# The public stores whose keys were put right once (`recompose`): only an index written before
# keys were composed can hold others, so the tables are read once, not at every open.
COMPOSED_SQL = 'CREATE TABLE IF NOT EXISTS "bm25_keys_composed" (store TEXT PRIMARY KEY)'


def recompose(conn: sqlite3.Connection, public: str, private: str) -> dict[str, list[str]]:
    """Put right keys written before they were composed (NFC): a note whose file name macOS
    saved decomposed had keys no link typed composed matched, so it lacked their anchors. When a
    names table or the public anchors hold such a key, they are written again, and the notes
    whose keys or anchors change are returned by store, to be indexed again with their anchors
    (`relinks.owe`). Done once per namespace (`COMPOSED_SQL`)."""
    conn.execute(COMPOSED_SQL)
    if conn.execute('INSERT OR IGNORE INTO "bm25_keys_composed" VALUES (?)',
                    (public,)).rowcount == 0:
        return {}
    stale = {store: _decomposed(conn, names_table(store)) for store in (public, private)}
    linked = _decomposed(conn, table(public))
    if not linked and not any(stale.values()):
        return {}
    for store, rows in stale.items():
        if rows:
            refill_names(conn, store, aliases=store == public)
    if linked:
        refill(conn, public)
    keys = {_key(key) for key, _ in linked}
    owed = {store: sorted({path for _, path in stale[store]} | set(named(conn, store, keys)))
            for store in (public, private)}
    return {store: paths for store, paths in owed.items() if paths}
