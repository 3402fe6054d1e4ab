"""Notes related to one note: its chunks' vectors and its links, scored like search results.

The note's own chunk vectors (stored, or embedded now for a note the index keeps no chunks of,
such as a `working` draft) each query the dense store, restricted to the notes the filters admit
and never the note itself. A candidate note's similarity is its best chunk's cosine similarity to
any source chunk, a text copied into several notes counting for the closest of them only (the
others are ranked by their own chunks; `_notes`); the store is searched deeper until k notes
are found or none is left. Notes the source links to (body wikilinks and Markdown links,
`relationships`) or that link back get `link_bonus`. The score is then the search formula,
`similarity × type_weight × decay`, with the same admission rules (retrievable types, archived,
private) and the same result shape. Outside private mode a note the vault's settings make
private now is neither answered nor a result, filed as private by the index yet or not
(`private_now.py`). Each result lists its note's relationships as a search result does.
A caller's `leave_out` (the CLI: notes changed on disk since `ora index`, one may be private
now) is neither a result, a copy named, nor named in relationships.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from sidecar.chunking.limits import chunk_bounded
from sidecar.errors import BadRequest, NotFound, UnreadableNote
from sidecar.index.index import Index
from sidecar.index.records import ChunkRecord
from sidecar.index.scope import NoteFilter, Scope
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.copies import collapse, copy_key
from sidecar.retrieval.filters import is_admissible
from sidecar.retrieval.private_now import (
    PrivatePaths,
    hidden_now,
    settings_now_of,
    with_private_now,
)
from sidecar.retrieval.relations import graph_for
from sidecar.retrieval.search import result_document
from sidecar.schema import get_schema, load_json
from sidecar.vault.links import NameIndex
from sidecar.vault.note import Note, read_note
from sidecar.vault.scan import as_saved, normalise_rel
from sidecar.vault.vault_settings import holds_private_text


@dataclass(frozen=True)
class RelatedSettings:
    """`schema/ranking.json` `related`."""

    source_chunks: int
    per_source: int
    link_bonus: float


@cache
def related_settings() -> RelatedSettings:
    found = load_json("ranking.json")["related"]
    return RelatedSettings(
        int(found["source_chunks"]), int(found["per_source"]), float(found["link_bonus"])
    )


@dataclass(frozen=True)
class RelatedOptions:
    """What a caller may ask of one related query (the HTTP body and the CLI flags)."""

    k: int = 10
    private: bool = False
    include_archived: bool = False
    namespace: str = "default"
    filters: NoteFilter = field(default_factory=NoteFilter)
    # Paths private by the vault's settings now (outside private mode left out, in it flagged
    # private); `related` sets it unless the caller did.
    private_now: PrivatePaths | None = None
    # Notes a library caller leaves out, as results and as names in any result (the CLI: those
    # changed on disk since indexing, `retrieval/on_disk.py`); asked last, as it may read files.
    leave_out: Callable[[str], bool] | None = None


def _spread(items: list[int], n: int) -> list[int]:
    """At most n items spread evenly over the list (first and last included)."""
    if len(items) <= n:
        return items
    step = (len(items) - 1) / (n - 1) if n > 1 else 0
    return [items[round(i * step)] for i in range(n)]


def _outgoing(note: Note, names: NameIndex) -> set[str]:
    """The notes a note links to: its body's wikilinks and Markdown links (embeds included),
    then every relationship's links."""
    out = {path for path in names.linked(note.body, note.path) if path}
    out.update(p for links in note.relationships.values() for link in links
               if (p := names.resolve_link(link)))
    return out


class _Source:
    """The note being related: its vectors and the notes it is linked with."""

    def __init__(self, index: Index, embedder: Embedder, path: str, options: RelatedOptions):
        self.index = index
        self.path = path
        self.options = options
        self.ns = options.namespace
        row = index.ledger.rows(self.ns, [path]).get(path)
        try:
            self.note: Note | None = read_note(
                index.config.vault, path, int(index.config.max_file_bytes))
        except (OSError, UnreadableNote):
            self.note = None
        private = (row is not None and row.private) or (
            options.private_now is not None and options.private_now(path)) or (
            self.note is not None and holds_private_text(
                self.note, settings_now_of(index.config).settings()))
        # Outside private mode a private note is answered exactly as a missing one: a different
        # answer would tell that a private note of that name exists.
        if (row is None and self.note is None) or (private and not options.private):
            raise NotFound(f"no note {path} in the vault (a private note is found only in "
                           "private mode): check the path (relative to the vault)")
        settings = related_settings()
        if row is not None and row.chunk_ids and row.embedded:  # else its vectors wait
            ids = [row.chunk_ids[i] for i in _spread(list(range(len(row.chunk_ids))),
                                                     settings.source_chunks)]
            self.vectors = index.chunk_vectors(ids, private_store=row.private, namespace=self.ns)
            self.own_ids = set(row.chunk_ids)
        else:
            self.vectors = self._embed_now(embedder, settings.source_chunks)
            self.own_ids = set()

    def _embed_now(self, embedder: Embedder, limit: int) -> FloatArray:
        """Vectors of a note the index holds no chunks of (a non-retrievable type, or new)."""
        if self.note is None:
            return np.zeros((0, 0), dtype=np.float32)
        chunks = chunk_bounded(self.note, embedder.tokenizer,
                               int(self.index.config.chunk_tokens)).chunks
        picked = [chunks[i].embed_text for i in _spread(list(range(len(chunks))), limit)]
        return embedder.embed(picked) if picked else np.zeros((0, 0), dtype=np.float32)

    def linked(self, names: NameIndex) -> set[str]:
        """Paths this note links to, and notes whose chunks link back (found through BM25 on
        the note's name, then checked)."""
        out: set[str] = set()
        if self.note is not None:
            out.update(_outgoing(self.note, names))
        stem = self.path.rsplit("/", 1)[-1].removesuffix(".md")
        hits = self.index.bm25_search(stem, 50, private=self.options.private, namespace=self.ns)
        chunks = self.index.get_chunks([cid for cid, _ in hits], private=self.options.private,
                                       namespace=self.ns)
        out.update(c.path for c in chunks.values() if self.path in names.linked(c.text, c.path))
        out.discard(self.path)
        return out


def _linked_scope(
    index: Index, linked: set[str], scope: Scope | None, options: RelatedOptions
) -> Scope:
    """The chunk ids of the linked notes, by store, within `scope` when a filter is set."""
    out: Scope = {False: [], True: []}
    allowed = None if scope is None else {i for ids in scope.values() for i in ids}
    for row in index.ledger.rows(options.namespace, sorted(linked)).values():
        if row.private and not options.private:
            continue
        out[row.private].extend(i for i in row.chunk_ids if allowed is None or i in allowed)
    return out


def _nearest(
    index: Index, vectors: FloatArray, depth: int, options: RelatedOptions, only: Scope | None
) -> tuple[dict[str, float], bool]:
    """Best cosine similarity of each chunk found near any source vector, and whether a
    vector's hits were cut at `depth` (more lie beyond)."""
    best: dict[str, float] = {}
    cut = False
    for vector in vectors:
        hits = index.dense_search(
            vector, depth, private=options.private, namespace=options.namespace,
            include_archived=options.include_archived, only=only,
        )
        cut = cut or len(hits) >= depth
        for cid, sim in hits:
            if sim > best.get(cid, -1.0):
                best[cid] = sim
    return best, cut


Near = tuple[ChunkRecord, float, list[str]]
"""A related note's closest chunk, its similarity, the other notes holding a copy of it."""


def _notes(index: Index, best: dict[str, float], source: _Source) -> list[Near]:
    """One entry per candidate note, best first. A text copied into several notes (a daily
    template's task list) stands for one of them, the closest, which names the others; each
    other note is ranked by its own closest chunk that is no such copy, so a template's text
    never hides the notes that share it."""
    options = source.options
    chunks = index.get_chunks([cid for cid in best if cid not in source.own_ids],
                              private=options.private, namespace=options.namespace)
    ranked = sorted(((chunk, best[cid]) for cid, chunk in chunks.items()
                     if chunk.path != source.path and _admitted(chunk, options)),
                    key=lambda pair: (-pair[1], pair[0].id))
    kept, others = collapse(ranked, lambda pair: copy_key(pair[0].text), lambda pair: pair[0].path)
    per_note: dict[str, Near] = {}
    for n, (chunk, sim) in enumerate(kept):
        per_note.setdefault(chunk.path, (chunk, sim, others.get(n, [])))
    return list(per_note.values())


def _find(index: Index, embedder: Embedder, path: str, options: RelatedOptions) -> dict[str, Any]:
    # the name as typed (composed) finds a note macOS saved decomposed
    path = as_saved(index.config.vault, path)
    options = with_private_now(options, index.config)
    source = _Source(index, embedder, path, options)
    schema = get_schema()
    settings = related_settings()
    results: list[dict[str, Any]] = []
    if source.vectors.size:
        scope = index.scope(options.filters, private=options.private, namespace=options.namespace)
        linked = source.linked(NameIndex(index.ledger.paths(options.namespace)))
        only = _linked_scope(index, linked, scope, options)
        count = sum(len(ids) for ids in only.values())
        near_linked = _nearest(index, source.vectors, count, options, only)[0] if count else {}
        depth = options.k + settings.per_source + len(source.own_ids)
        while True:  # copies count once: deeper until k notes, or no more chunks
            best, cut = _nearest(index, source.vectors, depth, options, scope)
            for cid, sim in near_linked.items():
                best[cid] = max(sim, best.get(cid, -1.0))
            notes = _notes(index, best, source)
            if len(notes) >= options.k or not cut:
                break
            depth *= 2
        dense_rank = {chunk.id: n for n, (chunk, _, _) in enumerate(notes, start=1)}
        for chunk, sim, copies in notes:
            is_linked = chunk.path in linked
            similarity = min(1.0, max(0.0, sim) + (settings.link_bonus if is_linked else 0.0))
            result = result_document(chunk, sim, similarity, None,
                                     {"dense": dense_rank, "bm25": {}}, schema, copies,
                                     private_now=options.private_now)
            result["why"]["linked"] = is_linked
            results.append(result)
        results.sort(key=lambda r: (-r["score"], r["path"]))
        results = results[: options.k]
        # Each note is listed once: a result is not named again among another's copies.
        shown = {r["path"] for r in results}
        for result in results:
            result["duplicates"] = [p for p in result["duplicates"] if p not in shown]
        _with_relationships(index, results, options)
    return {"path": path, "namespace": options.namespace, "results": results}


def _with_relationships(index: Index, results: list[dict[str, Any]],
                        options: RelatedOptions) -> None:
    """Each result's `relationships`, as a search result lists them (`relations.py`: a private
    note named in private mode only, none `options.leave_out` leaves out)."""
    if not results:
        return
    graph = graph_for(index, options.namespace)
    for result in results:
        result["relationships"] = graph.outgoing(result["path"], private=options.private,
                                                 unnamed=options.leave_out)


def _admitted(chunk: ChunkRecord, options: RelatedOptions) -> bool:
    return is_admissible(
        chunk.type, chunk.tags, chunk.private,
        private_mode=options.private, include_archived=options.include_archived,
    ) and options.filters.admits(chunk.path, chunk.type, chunk.tags, chunk.date, chunk.cluster,
                                 chunk.conversation) and (
        not hidden_now(options.private_now, options.private, chunk.path)) and (
        options.leave_out is None or not options.leave_out(chunk.path))


async def related(
    index: Index, embedder: Embedder, path: str, options: RelatedOptions | None = None
) -> dict[str, Any]:
    """The related-notes document of docs/http-api.md: at most `options.k` notes, best first,
    one result per note (its closest chunk), the note itself never among them.

    NotFound when the note is neither indexed nor in the vault, or (the same answer) when it is
    private and the request is not in private mode."""
    options = options or RelatedOptions()
    if options.k < 1:
        raise BadRequest(f"k must be at least 1, got {options.k}")
    return await asyncio.to_thread(_find, index, embedder, normalise_rel(path), options)
