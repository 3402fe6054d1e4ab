"""Relationships in retrieval: 'The Vault' — "The relationship graph is queryable; the system
traverses it during retrieval."

After a search, each result lists its note's relationships (kind → notes). A note that a live
(not archived) note `supersedes` is flagged `superseded`, says by which notes, and ranks just
below its successor when both are results. With `expand`, the notes one hop away along the kinds
of `schema/relationships.json` `retrieval.expand` are added below the direct results (their best
chunk for the query, scored like search results), each saying which link brought it. Private
notes are never named outside private mode; expanded notes pass the same admission rules as
search results.

The graph comes from the notes' frontmatter, cached per vault and re-read only for files whose
size or modification time changed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.errors import OraError
from sidecar.index.index import Index
from sidecar.models.reranker import Reranker
from sidecar.retrieval.filters import is_admissible
from sidecar.retrieval.search import QueryEmbedder, SearchOptions, result_document, search
from sidecar.schema import get_schema, load_json
from sidecar.vault.links import NameIndex
from sidecar.vault.note import read_note
from sidecar.vault.scan import iter_note_paths

SUPERSEDED = "superseded"


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
    stamp: tuple[int, int]  # size, mtime_ns
    links: dict[str, tuple[str, ...]]  # kind → raw link strings
    private: bool
    archived: bool


class RelationGraph:
    """The `relationships` of every note of one vault."""

    def __init__(self, vault: Path, max_bytes: int) -> None:
        self.vault, self.max_bytes = vault, max_bytes
        self._entries: dict[str, _Entry] = {}
        self._names = NameIndex(())
        self._guard = threading.Lock()

    def refresh(self) -> None:
        """Re-read the frontmatter of notes added or changed since the last refresh."""
        with self._guard:
            seen: dict[str, _Entry] = {}
            for rel in iter_note_paths(self.vault):
                try:
                    st = os.stat(self.vault / rel)
                except OSError:
                    continue
                stamp = (st.st_size, st.st_mtime_ns)
                old = self._entries.get(rel)
                if old is not None and old.stamp == stamp:
                    seen[rel] = old
                    continue
                try:
                    note = read_note(self.vault, rel, self.max_bytes)
                except (OSError, OraError):
                    continue
                seen[rel] = _Entry(stamp, note.relationships, note.is_private, note.is_archived)
            if set(seen) != set(self._entries):
                self._names = NameIndex(seen)
            self._entries = seen

    def _visible(self, path: str, private: bool) -> bool:
        entry = self._entries.get(path)
        return entry is not None and (private or not entry.private)

    def outgoing(self, path: str, *, private: bool) -> dict[str, list[str]]:
        """Relationship kind → the notes it links to (those this mode may name)."""
        entry = self._entries.get(path)
        if entry is None:
            return {}
        out: dict[str, list[str]] = {}
        for kind, links in entry.links.items():
            targets = [t for link in links if (t := self._names.resolve_link(link)) is not None
                       and t != path and self._visible(t, private)]
            if targets:
                out[kind] = sorted(set(targets))
        return out

    def superseded_by(self, path: str, *, private: bool) -> list[str]:
        """The live notes (not archived) whose `supersedes` names `path`."""
        kind = relation_settings().supersedes
        found = []
        for source, entry in self._entries.items():
            if entry.archived or source == path or not self._visible(source, private):
                continue
            if any(self._names.resolve_link(link) == path for link in entry.links.get(kind, ())):
                found.append(source)
        return sorted(found)


_GRAPHS: dict[Path, RelationGraph] = {}
_GRAPHS_GUARD = threading.Lock()


def graph_for(vault: Path, max_bytes: int) -> RelationGraph:
    """The vault's graph, refreshed (one stat per note; changed notes re-read)."""
    with _GRAPHS_GUARD:
        graph = _GRAPHS.setdefault(vault, RelationGraph(vault, max_bytes))
    graph.refresh()
    return graph


def _link(path: str) -> str:
    return f"[[{path.removesuffix('.md')}]]"


def annotate(results: list[dict[str, Any]], graph: RelationGraph, *,
             private: bool) -> list[dict[str, Any]]:
    """Each result with its `relationships`; superseded ones flagged, with `superseded_by`,
    and placed just below their successor when it is a result too."""
    for r in results:
        r["relationships"] = graph.outgoing(r["path"], private=private)
        successors = graph.superseded_by(r["path"], private=private)
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
    graph: RelationGraph, options: SearchOptions,
) -> list[dict[str, Any]]:
    """The notes one hop away along the expand kinds, best chunk each, with `expanded_from`."""
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
    vector = (await asyncio.to_thread(embedder.embed, [query]))[0]
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
                include_archived=options.include_archived):
            continue
        doc = result_document(chunk, sim, max(sim, 0.0), None, {"dense": {}, "bm25": {}},
                              schema)
        doc["expanded_from"] = via[chunk.path]
        doc["relationships"] = graph.outgoing(chunk.path, private=options.private)
        best[chunk.path] = doc
    return sorted(best.values(), key=lambda d: (-d["score"], d["path"]))


async def search_related(
    index: Index, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions, *, reranker_reason: str = "", expand: bool = False,
) -> dict[str, Any]:
    """`search()`, then relationships: listed, supersession applied, one hop expanded when
    `expand` (the expanded results follow the direct ones, in `results`)."""
    document = await search(index, embedder, reranker, query, options,
                            reranker_reason=reranker_reason)
    graph = await asyncio.to_thread(graph_for, index.config.vault,
                                    int(index.config.max_file_bytes))
    document["results"] = annotate(document["results"], graph, private=options.private)
    if expand:
        document["results"] += await _expanded(index, embedder, query, document["results"],
                                               graph, options)
    return document
