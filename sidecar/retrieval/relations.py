"""Relationships in retrieval: 'The Vault' — "The relationship graph is queryable; the system
traverses it during retrieval."

After a search, each result lists its note's relationships (kind → notes). A note that a live
(not archived) note `supersedes` is flagged `superseded`, says by which notes, and ranks just
below its successor when both are results. With `expand`, the notes one hop away along the kinds
of `schema/relationships.json` `retrieval.expand` are added below the direct results (their best
chunk for the query, scored like search results), each saying which link brought it. Private
notes are never named outside private mode; expanded notes pass the same admission rules as
search results. A caller may name notes never to name (`unnamed`): the CLI, which no watcher
keeps in line with the vault, those changed on disk since `ora index` (one may be private now,
and the graph follows the ledger's hashes, not the files).

The graph comes from the notes' frontmatter, kept in `DATA/relations.sqlite` and re-read only
for notes whose content hash in the index's ledger changed. A link names a note as
`vault/links.py` resolves it: by file name, then path, then one of a note's `aliases` (kept with
its links, so an edit of a note's aliases, which changes its hash, is followed). Outside private
mode a private note's aliases name nothing (as in lint and the anchors' names): they neither name
it nor, by taking a name from a public note, tell that it exists.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.data_folder import private_file, private_folder
from sidecar.errors import OraError
from sidecar.index.index import Index
from sidecar.index.sqlite import ThreadConnections, unwritable_conn
from sidecar.models.reranker import Reranker
from sidecar.retrieval.filters import is_admissible
from sidecar.retrieval.private_now import (
    PrivatePaths,
    hidden_now,
    settings_now_of,
    with_private_now,
)
from sidecar.retrieval.search import QueryEmbedder, SearchOptions, result_document, search
from sidecar.schema import get_schema, load_json
from sidecar.vault.links import NameIndex
from sidecar.vault.note import read_note
from sidecar.vault.properties import note_aliases

SUPERSEDED = "superseded"
# Notes a caller never names (`search_related`'s `unnamed`), asked only of notes named otherwise.
Unnamed = Callable[[str], bool] | None


@dataclass(frozen=True)
class RelationSettings:
    supersedes: str
    expand: tuple[str, ...]


@cache
def relation_settings() -> RelationSettings:
    r = load_json("relationships.json")["retrieval"]
    return RelationSettings(str(r["supersedes"]), tuple(str(k) for k in r["expand"]))


@dataclass(frozen=True)
class _Entry:
    hash: str  # the content hash the index last saw
    links: dict[str, tuple[str, ...]]  # kind → raw link strings
    private: bool  # by the note's own words; where it lies is asked at each search
    archived: bool
    aliases: tuple[str, ...] = ()  # the note's other names (`properties.note_aliases`)


RELATIONS_FILE = "relations.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
  namespace TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, links TEXT NOT NULL,
  private INTEGER NOT NULL, archived INTEGER NOT NULL, aliases TEXT,
  PRIMARY KEY (namespace, path));
"""


def _has_aliases(conn: sqlite3.Connection) -> bool:
    return "aliases" in {str(row[1]) for row in conn.execute("PRAGMA table_info(notes)")}


def _setup(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    if _has_aliases(conn) or unwritable_conn(conn):
        return  # read-only (a full disk): read as it stands, `_load`
    # A file written before aliases were kept: its rows (aliases NULL) are read again once.
    conn.execute("BEGIN IMMEDIATE")  # another process may be adding the column
    try:
        if not _has_aliases(conn):
            conn.execute("ALTER TABLE notes ADD COLUMN aliases TEXT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _links(text: str) -> dict[str, tuple[str, ...]]:
    if text == "{}":  # most notes: skip the parse
        return {}
    return {str(k): tuple(v) for k, v in json.loads(text).items()}


def _names(entries: Mapping[str, _Entry]) -> NameIndex:
    """The names (paths and aliases) of `entries`: outside private mode only those of notes it
    may name, so a private note never takes a name from a public one (nor shows it exists)."""
    return NameIndex(entries, {p: e.aliases for p, e in entries.items() if e.aliases})


class RelationGraph:
    """The `relationships` of every indexed note of one namespace.

    Kept in `DATA/relations.sqlite` and in memory, and refreshed from the index's ledger: only
    notes whose content hash changed since are read again, so a search pays one ledger query.
    """

    def __init__(self, data: Path, vault: Path, namespace: str, max_bytes: int) -> None:
        path = private_file(private_folder(data) / RELATIONS_FILE)
        self._db = ThreadConnections(path, _setup)
        self.vault, self.namespace, self.max_bytes = vault, namespace, max_bytes
        self._entries: dict[str, _Entry] | None = None
        # By mode (private or not): names of notes, with the aliases that mode may resolve.
        self._names: dict[bool, NameIndex] = {False: NameIndex(()), True: NameIndex(())}
        # By mode: note → live notes superseding it.
        self._superseders: dict[bool, dict[str, list[str]]] = {False: {}, True: {}}
        # Which notes ora.yaml makes private now (`refresh`): its `private` folders.
        self._private_now: PrivatePaths = lambda path: False
        self._guard = threading.Lock()

    def close(self) -> None:
        self._db.close_all()

    def _load(self) -> dict[str, _Entry]:
        conn = self._db.get()
        aliases = "aliases" if _has_aliases(conn) else "NULL"  # read-only, not yet upgraded
        rows = conn.execute(
            f"SELECT path, hash, links, private, archived, {aliases} FROM notes"
            " WHERE namespace = ?", (self.namespace,))
        # A row without aliases (NULL: written before they were kept) is read again.
        return {str(p): _Entry(str(h) if names is not None else "", _links(links), bool(priv),
                               bool(arch), tuple(json.loads(names)) if names else ())
                for p, h, links, priv, arch, names in rows}

    def _read(self, rel: str, note_hash: str) -> _Entry:
        try:
            note = read_note(self.vault, rel, self.max_bytes)
        except (OSError, OraError):
            return _Entry(note_hash, {}, True, False)  # unreadable: links nothing, names nothing
        return _Entry(note_hash, note.relationships, note.is_private, note.is_archived,
                      note_aliases(note.frontmatter))

    def refresh(self, hashes: Mapping[str, str], private_now: PrivatePaths | None = None) -> None:
        """Follow the ledger: `hashes` is every indexed path with its content hash,
        `private_now` which paths the vault's settings make private now (`private_now.py`)."""
        with self._guard:
            # a new `private_now` (SettingsNow keeps one until ora.yaml or the manifest
            # changes) may hide other notes: the public names are built again
            moved = private_now is not None and private_now is not self._private_now
            if private_now is not None:
                self._private_now = private_now
            entries = self._entries if self._entries is not None else self._load()
            changed = {p: self._read(p, h) for p, h in hashes.items()
                       if (e := entries.get(p)) is None or e.hash != h}
            gone = [p for p in entries if p not in hashes]
            before = entries
            if changed or gone:
                with self._db.transaction() as conn:
                    conn.executemany("DELETE FROM notes WHERE namespace = ? AND path = ?",
                                     [(self.namespace, p) for p in gone])
                    conn.executemany(
                        "INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(self.namespace, p, e.hash, json.dumps(e.links), int(e.private),
                          int(e.archived), json.dumps(e.aliases)) for p, e in changed.items()])
                entries = {p: e for p, e in entries.items() if p in hashes} | changed
            # Names change with the set of paths or a note's aliases (or its privacy, which
            # decides whether its aliases name it outside private mode): rarely, so the name
            # indexes are built again only then.
            renamed = moved or self._entries is None or set(entries) != set(self._entries) or any(
                (old := before.get(p)) is None or old.aliases != e.aliases
                or old.private != e.private for p, e in changed.items())
            if renamed:
                self._names = {True: _names(entries), False: _names(
                    {p: e for p, e in entries.items()
                     if not (e.private or self._private_now(p))})}
            if renamed or changed:
                self._superseders = {mode: self._reverse(entries, self._names[mode])
                                     for mode in (False, True)}
            self._entries = entries

    @staticmethod
    def _reverse(entries: Mapping[str, _Entry], names: NameIndex) -> dict[str, list[str]]:
        """Each superseded note → the live (not archived) notes whose `supersedes` name it."""
        kind = relation_settings().supersedes
        found: dict[str, list[str]] = {}
        for source, entry in sorted(entries.items()):
            for link in () if entry.archived else entry.links.get(kind, ()):
                target = names.resolve_link(link)
                if target is not None and target != source:
                    found.setdefault(target, []).append(source)
        return found

    def _entry(self, path: str) -> _Entry | None:
        return None if self._entries is None else self._entries.get(path)

    def _visible(self, path: str, private: bool) -> bool:
        """Whether this mode may name the note. Privacy by folder is not kept with the entry: a
        change of ora.yaml's `private` leaves the note's hash, so its entry, as it was.
        (`private_now` fails closed on settings that cannot say.)"""
        entry = self._entry(path)
        return entry is not None and (private or not (entry.private or self._private_now(path)))

    def outgoing(self, path: str, *, private: bool,
                 unnamed: Unnamed = None) -> dict[str, list[str]]:
        """Relationship kind → the notes it links to (those this mode may name, none that
        `unnamed` says not to)."""
        entry = self._entry(path)
        if entry is None:
            return {}
        out: dict[str, list[str]] = {}
        for kind, links in entry.links.items():
            targets = [t for link in links
                       if (t := self._names[private].resolve_link(link)) is not None
                       and t != path and self._visible(t, private)
                       and (unnamed is None or not unnamed(t))]
            if targets:
                out[kind] = sorted(set(targets))
        return out

    def superseded_by(self, path: str, *, private: bool, unnamed: Unnamed = None) -> list[str]:
        """The live notes (not archived) whose `supersedes` names `path` (none that
        `unnamed` says not to)."""
        return [s for s in self._superseders[private].get(path, ())
                if self._visible(s, private) and (unnamed is None or not unnamed(s))]


_GRAPHS: dict[tuple[Path, str], RelationGraph] = {}
_GRAPHS_GUARD = threading.Lock()


def graph_for(index: Index, namespace: str) -> RelationGraph:
    """The namespace's graph, brought in line with the index's ledger."""
    config = index.config
    with _GRAPHS_GUARD:
        key = (config.data, namespace)
        if key in _GRAPHS and not (config.data / RELATIONS_FILE).is_file():
            _GRAPHS.pop(key).close()  # the data folder was deleted: start from the ledger
        if key not in _GRAPHS:
            _GRAPHS[key] = RelationGraph(config.data, config.vault, namespace,
                                         int(config.max_file_bytes))
        graph = _GRAPHS[key]
    graph.refresh(index.ledger.hashes(namespace), settings_now_of(config).private_paths())
    return graph


def _link(path: str) -> str:
    return f"[[{path.removesuffix('.md')}]]"


def annotate(results: list[dict[str, Any]], graph: RelationGraph, *,
             private: bool, unnamed: Unnamed = None) -> list[dict[str, Any]]:
    """Each result with its `relationships`; superseded ones flagged, with `superseded_by`,
    and placed just below their successor when it is a result too. Nothing names a note
    `unnamed` says not to (nor is a result flagged superseded by such a note alone)."""
    for r in results:
        r["relationships"] = graph.outgoing(r["path"], private=private, unnamed=unnamed)
        successors = graph.superseded_by(r["path"], private=private, unnamed=unnamed)
        if successors:
            if SUPERSEDED not in r["flags"]:
                r["flags"].append(SUPERSEDED)
            r["superseded_by"] = [_link(s) for s in successors]
    ordered = [r for r in results if "superseded_by" not in r]
    for r in (r for r in results if "superseded_by" in r):
        newer = {link.removeprefix("[[").removesuffix("]]") + ".md" for link in r["superseded_by"]}
        after = [i for i, o in enumerate(ordered) if o["path"] in newer]
        at = after[-1] + 1 if after else next(
            (i for i, o in enumerate(ordered) if o["score"] < r["score"]), len(ordered))
        if after:
            r["score"] = min(r["score"], ordered[after[-1]]["score"])
        ordered.insert(at, r)
    return ordered


async def _expanded(
    index: Index, embedder: QueryEmbedder, query: str, results: Sequence[dict[str, Any]],
    graph: RelationGraph, options: SearchOptions, unnamed: Unnamed = None,
) -> list[dict[str, Any]]:
    """The notes one hop away along the expand kinds, best chunk each, with `expanded_from`
    (the results' `relationships` already leave out what `unnamed` says not to name)."""
    shown = {r["path"] for r in results}
    via: dict[str, dict[str, str]] = {}
    for r in results:
        for kind in relation_settings().expand:
            for target in r["relationships"].get(kind, ()):
                if target not in shown and target not in via:
                    via[target] = {"path": r["path"], "kind": kind, "link": _link(target)}
    if not via:
        return []
    rows = index.ledger.rows(options.namespace, sorted(via))
    only: dict[bool, list[str]] = {False: [], True: []}
    for row in rows.values():
        if not row.private or options.private:
            only[row.private].extend(row.chunk_ids)
    if not only[False] and not only[True]:
        return []
    vector = (await asyncio.to_thread(embedder.embed_queries, [query]))[0]
    hits = await asyncio.to_thread(
        index.dense_search, vector, len(only[False]) + len(only[True]), private=options.private,
        namespace=options.namespace, include_archived=options.include_archived, only=only)
    chunks = await asyncio.to_thread(index.get_chunks, [cid for cid, _ in hits],
                                     private=options.private, namespace=options.namespace)
    schema, best = get_schema(), {}
    for cid, sim in hits:  # best first: keep each note's first admitted chunk
        chunk = chunks.get(cid)
        if chunk is None or chunk.path in best or not is_admissible(
                chunk.type, chunk.tags, chunk.private, private_mode=options.private,
                include_archived=options.include_archived) or hidden_now(
                options.private_now, options.private, chunk.path):
            continue
        doc = result_document(chunk, sim, max(sim, 0.0), None, {"dense": {}, "bm25": {}},
                              schema, private_now=options.private_now)
        doc["expanded_from"] = via[chunk.path]
        doc["relationships"] = graph.outgoing(chunk.path, private=options.private,
                                              unnamed=unnamed)
        best[chunk.path] = doc
    return sorted(best.values(), key=lambda d: (-d["score"], d["path"]))


async def search_related(
    index: Index, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions, *, reranker_reason: str = "", expand: bool = False,
    unnamed: Unnamed = None,
) -> dict[str, Any]:
    """`search()`, then relationships: listed, supersession applied, one hop expanded when
    `expand` (the expanded results follow the direct ones, in `results`). Outside private
    mode, notes the vault's settings make private now are left out, filed as private by the
    index yet or not (`private_now.py`). No relationship, `superseded_by` or expanded result
    names a note `unnamed` says not to (the CLI: one changed on disk since indexing); the
    server passes none, its watcher keeping the index in line with the vault."""
    # set here, not left to `search`: the expanded notes are checked with it too
    options = await asyncio.to_thread(with_private_now, options, index.config)
    document = await search(index, embedder, reranker, query, options,
                            reranker_reason=reranker_reason)
    graph = await asyncio.to_thread(graph_for, index, options.namespace)
    results = document["results"]
    document["results"] = (  # `unnamed` may read files (the CLI's `OnDisk`): off the loop
        annotate(results, graph, private=options.private) if unnamed is None else
        await asyncio.to_thread(annotate, results, graph, private=options.private,
                                unnamed=unnamed))
    if expand:
        document["results"] += await _expanded(index, embedder, query, document["results"],
                                               graph, options, unnamed)
    return document
