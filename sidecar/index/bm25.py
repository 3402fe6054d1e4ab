"""Sparse retrieval: BM25 over each store's chunks, ranked by tantivy (`bm25_engine.py`).

Each store (`NS__vault`, `NS__private`) is a plain table of chunks in `bm25.sqlite`, the record
(`bm25_table.py`): a chunk is found and deleted by id through a unique index, and its note path
feeds `Index.chunk_facts`. Beside it, the engine in `bm25/<store>.<generation>/` ranks the chunks
by rowid, the generation the one the `bm25_engines` table names (0, `bm25/<store>/`, for an index
of the layout before generations). A write goes to the table first (one transaction, which also
marks the store pending), then to the engine (one commit), then clears the mark. A crash between
the two commits leaves the mark, and the next writer to open rebuilds that store's engine from
its table, as it does for an engine that is missing, damaged, of another version, or holds
another number of chunks (`create`). A rebuild writes a new generation and then names it in the
table, so a reader in any process finds a whole engine at every instant (`_rebuild`,
`_reading`).

A query is `bm25_query.py`'s: archived chunks are left out after ranking, so a query still returns
up to k rows, and any user text is a valid query (its words in the languages of the store's notes,
OR-ed). Each row records the language ora.yaml sets for its note (`lang`, '' when none); a note
without one is analysed in the language detected from the text of its rows (written together, and
read together when an engine is rebuilt). The public store's chunks' links are kept in its anchors
table (`anchors.py`); a write that changes what links say of a note indexes that note's chunks
again, in either store: at once, or, for a write that defers it (a pass over many files), once at
the end of the pass (`relinks.py`); a cold pass gathers the whole vault's link text before it
writes a note (`gather_anchors`). Beside each store's engine, an engine of whole notes
(`note_level.py`) is written and rebuilt with it. tantivy counts a deleted document in its
statistics until it merges the segment, so an engine holding more than `ranking.json`
`bm25.max_deleted_share` of deleted documents after a write (or, for a deferring pass, at its end)
is rebuilt from its table (on the Italian, Dutch and French help vaults a cold index, whose link
text rewrites the notes linked to, had ranked 2 of 76 questions lower than a rebuilt one).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from sidecar.errors import IndexDamaged
from sidecar.index import anchors, bm25_generations, bm25_query, bm25_table, note_level, relinks
from sidecar.index.bm25_engine import (
    VERSION,
    Bm25Engine,
    Doc,
    remove,
    takes_feedback,
)
from sidecar.index.bm25_generations import Engines, name_generation
from sidecar.index.bm25_query import LANGUAGES, Bm25Query, damaged
from sidecar.index.bm25_table import SparseRow
from sidecar.index.names import store_name
from sidecar.index.sqlite import ThreadConnections
from sidecar.schema import get_schema

# Recorded in DATA/index.json (the store itself rebuilds an engine of another version).
TOKENIZE = f"tantivy {VERSION}"

_STATE = "bm25_state"
_T = TypeVar("_T")


def _schema_sql(name: str) -> str:
    return f"""
    CREATE TABLE IF NOT EXISTS "{LANGUAGES}" (
        store TEXT NOT NULL, lang TEXT NOT NULL, PRIMARY KEY (store, lang));
    CREATE TABLE IF NOT EXISTS "{_STATE}" (
        store TEXT PRIMARY KEY, engine TEXT NOT NULL, pending INTEGER NOT NULL);
    {bm25_generations.CREATE_SQL}
    {bm25_table.table_sql(name)}
    """


class Bm25Store:
    """The BM25 database `DATA/bm25.sqlite` and its engines in `DATA/bm25/`, shared by every
    namespace."""

    def __init__(self, path: Path) -> None:
        self._db = ThreadConnections(path, lambda conn: None)
        self._engines = Engines(path.with_suffix(""))
        # Stores whose engine missed a write of its table (its commit failed in this process):
        # the next write rebuilds it rather than adding to it and clearing the pending mark.
        self._behind: set[str] = set()

    def _exists(self, conn: sqlite3.Connection, name: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def engine_folder(self, namespace: str, private: bool, *, notes: bool = False) -> Path:
        """The folder of the store's engine in use (its chunk engine, or its note engine)."""
        name = store_name(namespace, private)
        return self._engines.folder_of(name, self._engines.generation(self._db.get(), name),
                                       notes=notes)

    def held_folders(self) -> set[Path]:
        """The folders of the engines this process has open."""
        return self._engines.held_folders()

    def _engine(self, name: str, *, notes: bool = False,
                create: bool = False) -> Bm25Engine | None:
        """The store's chunk engine, or note engine, in use (`Engines.get`)."""
        return self._engines.get(self._db.get(), name, notes=notes, create=create)

    def create(self, namespace: str) -> None:
        """Create both stores of a namespace, and rebuild an engine that is not in step with its
        table (writer only)."""
        conn = self._db.get()
        public = store_name(namespace, False)
        for private in (False, True):
            name = store_name(namespace, private)
            # The first layout's FTS5 table is back when a sidecar of that layout (a downgrade)
            # wrote the table since its engine was built: its rows are no longer the engine's,
            # whatever their number.
            downgraded = (self._exists(conn, f"{name}_fts")
                          or self._engines.written_before(conn, name))
            named = self._exists(conn, anchors.names_table(name))
            conn.executescript(_schema_sql(name))
            conn.executescript(anchors.create_sql(public))
            conn.executescript(anchors.names_sql(name))
            conn.executescript(relinks.SQL)
            bm25_table.add_columns(conn, name)
            if not named:  # a store written before the names table: its notes' keys
                with self._db.transaction() as tx:
                    anchors.refill_names(tx, name, aliases=not private)
            if downgraded or not self._in_step(conn, name):
                self._rebuild(name, public)
            else:
                self._engines.sweep(name, self._engines.generation(conn, name))
        with self._db.transaction() as tx:  # keys of an index written before they were NFC
            for name, paths in anchors.recompose(tx, public, store_name(namespace, True)).items():
                relinks.owe(tx, name, paths)
        self.relink_owed(namespace)  # what a pass killed before its end left owing

    def of_another_version(self, namespace: str) -> bool:
        """Whether a store of the namespace was last written by engines of another version (an
        older Ora's analysis of words). A write in progress elsewhere is no such store."""
        conn = self._db.get()
        if not self._exists(conn, _STATE):
            return False
        return any(version != VERSION for (version,) in conn.execute(
            f'SELECT engine FROM "{_STATE}" WHERE store IN (?, ?)',
            tuple(store_name(namespace, p) for p in (False, True))))

    def _in_step(self, conn: sqlite3.Connection, name: str) -> bool:
        state = conn.execute(
            f'SELECT engine, pending FROM "{_STATE}" WHERE store = ?', (name,)).fetchone()
        if state is None or state[0] != VERSION or state[1]:
            return False
        try:
            engine = self._engine(name)
            notes = self._engine(name, notes=True)
            rows = int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
            return engine is not None and engine.count() == rows and notes is not None
        except (ValueError, OSError):  # a damaged engine: rebuilt from the table
            return False

    def _rebuild(self, name: str, public: str, *, tables: bool = True) -> None:
        """New engines for the store, filled from its table, with the anchors of the
        namespace's `public` store (with `tables`, its names and, when the store is the public
        one, its anchors extracted again from its rows). They are built in folders of a new
        generation beside those in use, and the table names it once they are whole: a reader,
        of this process or another, reads the engines before until it next opens the store's
        engine, then the new ones (nothing is renamed: no instant without an engine in place,
        and nothing Windows refuses while another process has the engines open). Those before
        are removed once let go (`Engines.sweep`)."""
        self._behind.add(name)
        with self._db.transaction() as conn:
            _mark_pending(conn, [name])
            relinks.settle(conn, name)  # every note is indexed with its anchors below
            if tables:
                anchors.refill_names(conn, name, aliases=name == public)
                if name == public:
                    anchors.refill(conn, public)
        conn = self._db.get()
        generation = self._engines.next_generation(conn, name)
        built = [self._engines.folder_of(name, generation, notes=notes) for notes in (False, True)]
        for folder in built:
            remove(folder)
        engine, notes = (Bm25Engine(folder) for folder in built)
        cursor = bm25_table.note_rows(conn, name)
        codes: set[str] = set()
        for chunks, docs in bm25_table.table_docs(
                cursor, lambda path: anchors.text_for(conn, public, path)):
            engine.add(chunks)
            notes.add(docs)
            codes.update(doc[3] for doc in chunks)
        for built_engine in (engine, notes):
            built_engine.commit()
            built_engine.close()
        with self._db.transaction() as conn:
            conn.execute(f'DELETE FROM "{LANGUAGES}" WHERE store = ?', (name,))
            bm25_table.record_languages(conn, name, codes)
            name_generation(conn, name, generation)
        self._engines.let_go(name)
        self._engines.sweep(name, generation)
        self._settled([name])
        self._behind.discard(name)

    def _settled(self, names: Sequence[str]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(f'UPDATE "{_STATE}" SET pending = 0 WHERE store = ?',
                             ((n,) for n in names))

    def drop(self, namespace: str) -> None:
        """Remove both stores of a namespace."""
        names = [store_name(namespace, private) for private in (False, True)]
        with self._db.transaction() as conn:
            conn.execute(f'DROP TABLE IF EXISTS "{anchors.table(names[0])}"')
            for name in names:
                conn.execute(f'DROP TABLE IF EXISTS "{anchors.names_table(name)}"')
                conn.execute(f'DROP TABLE IF EXISTS "{name}_fts"')
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')
                if self._exists(conn, _STATE):
                    conn.execute(f'DELETE FROM "{_STATE}" WHERE store = ?', (name,))
                # (Its engines' generation is kept: the next rebuild's must be later than one a
                # reader in another process still holds.)
                if self._exists(conn, LANGUAGES):
                    conn.execute(f'DELETE FROM "{LANGUAGES}" WHERE store = ?', (name,))
                if self._exists(conn, relinks.TABLE):
                    relinks.settle(conn, name)
        for name in names:
            self._engines.let_go(name)
            self._engines.sweep(name, None)  # every generation, and what a rebuild cut short left

    def replace(
        self,
        namespace: str,
        deletes: dict[bool, Sequence[str]],
        inserts: dict[bool, Sequence[SparseRow]],
        *,
        defer: bool = False,
    ) -> None:
        """Delete chunk ids, then insert (or overwrite) rows, per store: in one transaction of
        the tables and of the public store's anchors, then one commit of each engine written
        to. The notes whose incoming-link text this write changed are indexed again, in
        either store, from their tables (with `defer`, recorded as owing it instead, for
        `relink_owed` to index each once at the end of a pass); so are the note-level documents
        of the notes written."""
        public = store_name(namespace, False)
        changes: dict[str, tuple[list[int], list[Doc]]] = {}
        touched: dict[str, set[str]] = {}  # by store, the notes written
        known: dict[str, str] = {}  # the language of each note written
        dropped: list[anchors.Anchor] = []  # of the public chunks removed, and added
        fresh: list[anchors.Anchor] = []
        added: dict[str, tuple[int, Sequence[SparseRow]]] = {}
        with self._db.transaction() as conn:
            for private, ids in deletes.items():
                name = store_name(namespace, private)
                gone = bm25_table.delete(conn, name, ids, touched.setdefault(name, set()))
                changes.setdefault(name, ([], []))[0].extend(gone)
                if not private:
                    dropped += anchors.drop(conn, public, gone)
            for private, rows in inserts.items():
                name = store_name(namespace, private)
                gone = changes.setdefault(name, ([], []))[0]
                replaced = bm25_table.delete(conn, name, [r.id for r in rows],
                                   touched.setdefault(name, set()))
                touched[name].update(r.path for r in rows)
                gone.extend(replaced)
                first = bm25_table.insert(conn, name, rows, above=max(gone, default=0))
                added[name] = (first, rows)
                if not private:
                    dropped += anchors.drop(conn, public, replaced)
                    fresh += anchors.write(conn, public, [(first + i, r.path, r.text)
                                                          for i, r in enumerate(rows)
                                                          if not r.archived])
            # The anchors gathered ahead for the notes written give way to their chunks'.
            dropped += anchors.drop_ahead(conn, public, set().union(*touched.values()))
            for name, paths in touched.items():
                anchors.drop_names(conn, name, paths)
            for name, (_, rows) in added.items():  # before the documents: their aliases' keys
                anchors.add_names(conn, name, ((r.path, r.aliases if name == public else ())
                                               for r in rows))
            for name, (first, rows) in added.items():  # every anchor of this write is in
                docs = bm25_table.engine_docs(conn, public, first, rows)
                known.update((r.path, doc[3]) for r, doc in zip(rows, docs, strict=True))
                bm25_table.record_languages(conn, name, {doc[3] for doc in docs})
                changes[name][1].extend(docs)
            relinked = self._relinked(conn, namespace, anchors.changed(dropped, fresh), added)
            for name, (_, rows) in added.items():  # their documents have every anchor now
                relinks.settle(conn, name, (r.path for r in rows))
            for name, named in relinked.items():
                (relinks.owe if defer else relinks.settle)(conn, name, named)
            if defer:
                relinked = {}
            changes = {name: change for name, change in changes.items() if any(change)}
            written = list(dict.fromkeys([*changes, *relinked]))
            _mark_pending(conn, written)
        for name in written:
            if name in self._behind:
                self._rebuild(name, public)  # from the table, which now holds this write too
                continue
            engine = self._engine(name, create=True)
            notes = self._engine(name, notes=True, create=True)
            assert engine is not None and notes is not None
            gone, docs = changes.get(name, ([], []))
            try:
                engine.delete(gone)
                engine.add(docs)
                self._relink(engine, name, public, relinked.get(name, []))
                self._renote(notes, name, gone, touched.get(name, set()), known)
                engine.commit()
                notes.commit()
            except BaseException:
                # The store stays pending (a next writer rebuilds it) and behind (so does this
                # one's next write): the engine lacks this write, and the chunk count alone
                # cannot tell when it rewrote as many chunks as it removed.
                self._behind.add(name)
                engine.rollback()
                notes.rollback()
                raise
        if written:
            self._settled(written)
        if not defer:  # a deferring pass compacts at its end (`relink_owed`)
            self._compact(written, public)

    def _compact(self, names: Iterable[str], public: str) -> None:
        """Rebuild from its table each of the stores `names` that is stale (`_stale`)."""
        for name in names:
            if self._stale(name):
                self._rebuild(name, public, tables=False)

    def _stale(self, name: str, rewriting: int = 0) -> bool:
        """Whether the store's engines hold, or would once `rewriting` of its chunk documents
        are written again, more deleted documents than ranking.json allows
        (`bm25.max_deleted_share`): they would rank by statistics of text no longer there."""
        limit = get_schema().bm25_max_deleted
        for engine, more in ((self._engine(name), rewriting),
                             (self._engine(name, notes=True), 0)):
            if engine is not None:
                deleted, held = engine.deleted()
                if held and (deleted + more) / (held + more) > limit:
                    return True
        return False

    def gather_anchors(self, namespace: str, notes: Iterable[tuple[str, str]]) -> bool:
        """Before a cold pass (both stores of the namespace empty), record the anchors the public
        notes (path, body) it is about to write will give (`anchors.gather`): each note's
        document is then written once, with its final anchors, and the pass owes no note its
        incoming-link text at its end. A note's chunks give way to what was gathered for it as
        it is written (any difference relinks the notes it names); `relink_owed` forgets what
        the pass never wrote. Returns whether the stores were empty (nothing gathered if not)."""
        public = store_name(namespace, False)
        with self._db.transaction() as conn:
            if any(self._exists(conn, name) and conn.execute(
                    f'SELECT 1 FROM "{name}" LIMIT 1').fetchone()
                   for name in (public, store_name(namespace, True))):
                return False
            anchors.gather(conn, public, notes)
        return True

    def relink_owed(self, namespace: str) -> int:
        """Index again, once each, the notes of the namespace's stores that deferred writes left
        owing their incoming-link text (`relinks.py`), and those named by anchors gathered
        ahead of a pass for notes it did not write (`gather_anchors`: a note gone, unreadable,
        or a pass killed before its end); returns how many. Their rows are cleared
        after the engine's commit: a crash before it leaves them for the next call. Then the
        stores are compacted, as a write that does not defer is (`_compact`)."""
        public = store_name(namespace, False)
        with self._db.transaction() as conn:  # what the pass gathered ahead and never wrote
            unwritten = anchors.drop_ahead(conn, public)
            for name, named in self._relinked(
                    conn, namespace, anchors.changed(unwritten, []), {}).items():
                relinks.owe(conn, name, named)
        conn = self._db.get()
        done = 0
        for private in (False, True):
            name = store_name(namespace, private)
            paths = relinks.owed(conn, name)
            if not paths:
                continue
            done += len(paths)
            if name in self._behind:
                self._rebuild(name, public)  # which indexes every note with its anchors
                continue
            if self._stale(name, bm25_table.chunks_of(conn, name, paths)):
                self._rebuild(name, public, tables=False)  # compacted, every note relinked
                continue
            engine = self._engine(name, create=True)
            assert engine is not None
            try:
                self._relink(engine, name, public, paths)
                engine.commit()
            except BaseException:
                self._behind.add(name)
                engine.rollback()
                raise
            with self._db.transaction() as tx:
                relinks.settle(tx, name, paths)
        self._compact([store_name(namespace, private) for private in (False, True)], public)
        return done

    def _relinked(
        self, conn: sqlite3.Connection, namespace: str, named: Mapping[str, str],
        added: Mapping[str, tuple[int, Sequence[SparseRow]]],
    ) -> dict[str, list[str]]:
        """By store, the notes the changed anchor keys `named` name (each with the first linking
        path whose anchors changed, `anchors.changed`), but those just written (their documents
        already have the anchors of this write) and those whose capped anchors end before it."""
        out = {}
        public = store_name(namespace, False)
        for private in (False, True):
            name = store_name(namespace, private)
            fresh = {r.path for r in added.get(name, (0, ()))[1]}
            if named and self._exists(conn, name):
                paths = [p for p in anchors.named(conn, name, set(named)) if p not in fresh
                         and not anchors.beyond_cap(conn, public, p, min(
                             named[key] for key in anchors.note_keys(conn, public, p)
                             if key in named))]
                if paths:
                    out[name] = paths
        return out

    def _renote(self, notes: Bm25Engine, name: str, gone: Sequence[int],
                paths: set[str], known: Mapping[str, str]) -> None:
        """The note-level documents of the notes `paths` of store `name` written again (a note
        document is keyed by its first chunk's rowid: those of `gone`, the rows deleted, go).
        An engine with nothing to write is not opened for writing (an English store's stays
        empty)."""
        held = notes.count() > 0
        if held:
            notes.delete(gone)
        if not paths:
            return
        cursor = bm25_table.note_rows(self._db.get(), name, sorted(paths))
        for chunks, docs in bm25_table.table_docs(cursor, lambda _: "", known):
            if held:
                notes.delete([doc[0] for doc in chunks])
            if docs:
                notes.add(docs)

    def _relink(self, engine: Bm25Engine, name: str, public: str, paths: Sequence[str]) -> None:
        """Index the chunks of the notes `paths` of store `name` again, with their anchors."""
        if not paths:
            return
        conn = self._db.get()
        cursor = bm25_table.note_rows(conn, name, paths)
        for batch, _ in bm25_table.table_docs(
                cursor, lambda path: anchors.text_for(conn, public, path)):
            engine.delete([doc[0] for doc in batch])
            engine.add(batch)

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

    def note_texts(self, namespace: str, notes: int) -> list[tuple[str, str]]:
        """(text, language setting) of up to `notes` public notes, each note's chunks joined."""
        conn = self._db.get()
        name = store_name(namespace, False)
        if not self._exists(conn, name):
            return []
        return [(str(text), str(lang)) for text, lang in conn.execute(
            f'SELECT group_concat(text, char(10)), max(lang) FROM "{name}" WHERE path IN '
            f'(SELECT DISTINCT path FROM "{name}" ORDER BY path LIMIT ?) GROUP BY path',
            (notes,))]

    def count(self, namespace: str, private: bool) -> int:
        conn = self._db.get()
        name = store_name(namespace, private)
        if not self._exists(conn, name):
            return 0
        return int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])

    def probe(self, namespace: str) -> None:
        """Read both stores' tables once (a damaged file raises DatabaseError here; a damaged engine
        is found by `create` or by a search)."""
        conn = self._db.get()
        for private in (False, True):
            name = store_name(namespace, private)
            if self._exists(conn, name):
                conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()

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

    def chunk_paths(self, namespace: str, private: bool, ids: Sequence[str]) -> dict[str, str]:
        """The note path of each of `ids` stored here (one indexed lookup)."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not ids or not self._exists(conn, name):
            return {}
        return dict(conn.execute(f'SELECT id, path FROM "{name}" '
                                 "WHERE id IN (SELECT value FROM json_each(?))",
                                 (json.dumps(list(ids)),)))

    def paths_of(
        self, namespace: str, private: bool, ids: Sequence[str]
    ) -> dict[str, tuple[str, str, tuple[str, ...]]]:
        """(note path, text, its note's aliases) by chunk id, for those of `ids` stored here (one
        indexed lookup)."""
        conn = self._db.get()
        name = store_name(namespace, private)
        if not ids or not self._exists(conn, name):
            return {}
        return {cid: (path, text, tuple(json.loads(aliases or "[]")))
                for cid, path, text, aliases in conn.execute(
                    f'SELECT id, path, text, aliases FROM "{name}" '
                    "WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),))}

    def search(
        self, namespace: str, query: str, k: int, *, private: bool, include_archived: bool,
        only: Mapping[bool, Sequence[str]] | None = None, prepared: Bm25Query | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, BM25 score) from the public store, plus the private one when
        `private`; larger is better. `only` restricts each store to those chunk ids (a search
        filter), inside the query, so k come back when k match. `prepared` (of `query`) shares
        its terms and feedback with the query's other searches."""
        conn = self._db.get()
        stores = [store_name(namespace, p) for p in ((False, True) if private else (False,))]
        shared = prepared or Bm25Query(query)
        terms = shared.terms(conn, stores)
        if not terms or k <= 0:
            return []
        hits: list[tuple[str, float]] = []
        for store_private in (False, True) if private else (False,):
            name = store_name(namespace, store_private)
            if not self._exists(conn, name) or (only is not None and not only.get(store_private)):
                continue
            ids = None if only is None else only[store_private]
            hits += self._reading(conn, name, functools.partial(
                bm25_query.hits, conn, name, shared, stores, k, include_archived, ids))
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:k]

    def note_scores(
        self, namespace: str, query: str, k: int, *, private: bool, include_archived: bool,
        prepared: Bm25Query | None = None,
    ) -> dict[str, float]:
        """The note-level scores of the best `k` notes (`note_level.py`), by note path, as
        shares of the best one's, from the public store plus the private one when `private`;
        none unless the query takes feedback (its store holds notes in such a language).
        `prepared` (of `query`) shares its terms and feedback with the chunk search."""
        conn = self._db.get()
        stores = [store_name(namespace, p) for p in ((False, True) if private else (False,))]
        shared = prepared or Bm25Query(query)
        terms = shared.terms(conn, stores)
        if not terms or k <= 0 or not takes_feedback(terms):
            return {}
        found: list[tuple[str, float]] = []
        for name in stores:
            if not self._exists(conn, name):
                continue
            ranked = self._reading(conn, name, functools.partial(
                self._note_hits, conn, name, shared, stores, k, include_archived))
            paths = dict(conn.execute(
                f'SELECT rowid, path FROM "{name}" WHERE rowid IN '
                "(SELECT value FROM json_each(?))", (json.dumps([r for r, _ in ranked]),)))
            found += [(str(paths[rowid]), score) for rowid, score in ranked if rowid in paths]
        return note_level.normalised(found)

    def _note_hits(
        self, conn: sqlite3.Connection, name: str, shared: Bm25Query, stores: Sequence[str],
        k: int, include_archived: bool, engine: Bm25Engine,
    ) -> list[tuple[int, float]]:
        """Top-k (first chunk's rowid, score) of the store's note engine (`engine`, the store's
        chunk engine, expands the query)."""
        try:
            notes = self._engine(name, notes=True)
            if notes is None:  # none yet: a writer builds it on opening
                return []
            return notes.top(shared.expanded(conn, stores, name, engine), k,
                             live_only=not include_archived)
        except (ValueError, OSError) as exc:  # damaged or removed since it was opened
            raise damaged(note_level.engine(name), str(exc).splitlines()[0]) from exc

    def _reading(self, conn: sqlite3.Connection, name: str,
                 read: Callable[[Bm25Engine], list[_T]]) -> list[_T]:
        """`read(engine)` with the store's engine (nothing for an empty store without one). When
        it finds the store's engines damaged or missing while the table came to name another
        generation of them, a writer (of this process or another) put new ones in their place
        meanwhile, and it reads those: the table's change is the signal, there is no waiting.
        IndexDamaged when the generation stayed the same."""
        while True:
            generation = self._engines.generation(conn, name)
            try:
                engine = self._searchable(conn, name)
                return [] if engine is None else read(engine)
            except IndexDamaged:
                if self._engines.generation(conn, name) == generation:
                    raise

    def _searchable(self, conn: sqlite3.Connection, name: str) -> Bm25Engine | None:
        """The store's engine; None for an empty store without one; IndexDamaged when chunks
        have no engine to rank them (a reader of an index a writer has not opened since the
        engine came, or a damaged one)."""
        try:
            engine = self._engine(name)
        except (ValueError, OSError) as exc:
            raise damaged(name, str(exc).splitlines()[0]) from exc
        if engine is None and conn.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone():
            raise damaged(name, "it has no ranking engine")
        return engine

    def close(self) -> None:
        self._engines.close()
        self._db.close_all()


def _mark_pending(conn: sqlite3.Connection, names: Iterable[str]) -> None:
    """Mark the stores `names` as written to their tables, not yet to their engines."""
    conn.executemany(f'INSERT OR REPLACE INTO "{_STATE}" VALUES (?, ?, 1)',
                     ((name, VERSION) for name in names))
