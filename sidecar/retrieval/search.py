"""Hybrid search: dense ∥ BM25 → fusion → candidate pool → re-rank → provenance-weighted score
→ copies collapsed → top k.

`search()` is the one entry point the CLI, the HTTP API and the answer pipeline call. Every stage
is a small function so the evaluation harness can run the same ranking over a BEIR corpus.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol

from sidecar.documents.formats import is_document, page_link
from sidecar.errors import BadRequest
from sidecar.index.bm25_query import Bm25Query
from sidecar.index.note_vectors import shares as note_shares
from sidecar.index.records import ChunkFacts, ChunkRecord
from sidecar.index.scope import NoteFilter, Scope
from sidecar.language.accents import may_be_accented, restore, restore_from
from sidecar.language.languages import spec as language_spec
from sidecar.models.choice import check_query_model
from sidecar.models.embedder import FloatArray
from sidecar.models.reranker import Reranker, rerank_limits
from sidecar.retrieval.copies import collapse, copy_key
from sidecar.retrieval.filters import is_admissible, result_flags
from sidecar.retrieval.fusion import (
    FusionSettings,
    Ranked,
    fusion_settings,
    ranks,
    tied,
    top,
)
from sidecar.retrieval.phrases import phrase, phrase_settings
from sidecar.retrieval.private_now import PrivatePaths, hidden_now, with_private_now
from sidecar.retrieval.rerank import rerank_pool
from sidecar.retrieval.scoring import final_score, recency_factor
from sidecar.schema import Schema, get_schema
from sidecar.settings import Config

# What ranking and the filters read: SQLite facts, or a full record when one is at hand.
Chunk = ChunkFacts | ChunkRecord
RETRIEVERS = ("dense", "bm25")


@dataclass(frozen=True)
class SearchOptions:
    """What a caller may ask of one search (the HTTP body and the CLI flags)."""

    k: int = 10
    private: bool = False
    include_archived: bool = False
    rerank: bool = True
    namespace: str = "default"
    filters: NoteFilter = field(default_factory=NoteFilter)
    collapse: bool = True  # copies of one text are one result (`copies.py`)
    # False: by the words alone (BM25), the query not embedded; a server's search while a cold
    # index's words pass runs and the embedding model is not loaded yet
    dense: bool = True
    # A library caller's own exclusions, applied with the filters before any top-k cut (deeper
    # passes fill the places of what it leaves out): an answer leaves out its conversation's own
    # chat note and notes changed on disk since they were indexed (`answers/pipeline.py`)
    leave_out: Callable[[Chunk], bool] | None = None
    # Paths private by the vault's settings now (`private_now.py`): outside private mode left
    # out with the filters, a folder made private leaving search at once, not when the index
    # has filed its notes as private; in private mode flagged private. `search` sets it from
    # the index's vault unless the caller did.
    private_now: PrivatePaths | None = None
    # A library caller told, for each result made, the record of the chunk it shows: results
    # do not name their chunk, and an answer's relevance floor reads the chunk's stored vector
    # by its id (`answers/pipeline.py`)
    shown: Callable[[dict[str, Any], ChunkRecord], None] | None = None


class SearchIndex(Protocol):
    config: Config  # the vault whose settings say what is private now

    def vectors_model(self, namespace: str | None = None) -> str: ...

    def dense_search(
        self, vector: FloatArray, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, only: Scope | None = None,
    ) -> list[tuple[str, float]]: ...

    def bm25_search(
        self, query: str, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, only: Scope | None = None,
        prepared: Bm25Query | None = None,
    ) -> list[tuple[str, float]]: ...

    def bm25_notes(
        self, query: str, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, prepared: Bm25Query | None = None,
    ) -> dict[str, float]: ...

    def scope(
        self, note_filter: NoteFilter, *, private: bool, namespace: str | None = None
    ) -> Scope | None: ...

    def get_chunks(
        self, ids: Sequence[str], *, private: bool, namespace: str | None = None
    ) -> Mapping[str, ChunkRecord]: ...

    def chunk_facts(
        self, ids: Sequence[str], *, private: bool, namespace: str | None = None
    ) -> Mapping[str, ChunkFacts]: ...

    def public_paths(
        self, ids: Sequence[str], *, namespace: str | None = None
    ) -> Mapping[str, str]: ...

    def unembedded(self, ids: Sequence[str], *, namespace: str | None = None) -> set[str]: ...

    def note_vectors(
        self, paths: Iterable[str], *, private: bool, namespace: str | None = None
    ) -> Mapping[str, FloatArray]: ...

    def note_leads(
        self, paths: Iterable[str], *, private: bool, namespace: str | None = None
    ) -> Mapping[str, FloatArray]: ...


class QueryEmbedder(Protocol):
    def embed_queries(self, queries: Sequence[str]) -> FloatArray: ...


async def first_stage(
    index: SearchIndex, embedder: QueryEmbedder, query: str, depth: int, options: SearchOptions,
    prepared: Bm25Query | None = None,
) -> tuple[dict[str, Ranked], FloatArray | None]:
    """The dense and BM25 lists, `depth` long, fetched concurrently (ADR-0005 decision 1), each
    restricted inside its store to the notes `options.filters` admits; `prepared` shares the
    query's BM25 feedback with the note-level search. With them, the query's vector as the dense
    list was searched by (None when the query was not embedded)."""
    only = await asyncio.to_thread(
        index.scope, options.filters, private=options.private, namespace=options.namespace
    ) if options.filters.active else None  # no thread hand-off for the common unfiltered case
    scope: dict[str, Any] = {
        "private": options.private,
        "namespace": options.namespace,
        "include_archived": options.include_archived,
        "only": only,
    }

    async def dense(text: str) -> tuple[Ranked, FloatArray | None]:
        if not options.dense:
            return [], None
        vectors = await asyncio.to_thread(embedder.embed_queries, [text])
        return await asyncio.to_thread(index.dense_search, vectors[0], depth, **scope), vectors[0]

    (dense_list, vector), bm25_list = await asyncio.gather(
        dense(query),
        asyncio.to_thread(index.bm25_search, query, depth, **scope, prepared=prepared))
    if (options.dense and prepared is not None and prepared.takes_feedback()
            and (written := await _accented(index, query, bm25_list, options)) != query):
        dense_list, vector = await dense(written)
    return {"dense": dense_list, "bm25": bm25_list}, vector


async def _accented(
    index: SearchIndex, query: str, bm25_list: Ranked, options: SearchOptions,
) -> str:
    """`query` with the words typed without their accents written as the chunks keyword search
    found for it write them (`accents.restore`), for the embedder: keyword search folds accents,
    an embedder reads "creer" and "créer" as two words. The query itself when it has no such
    word, or those chunks none accented. Not asked of a vault all in English (whose queries
    take no feedback), which it would cost a look at those chunks for nothing. Public chunks
    only, even in private mode: what is embedded may go to an embeddings server, and a private
    note's spelling of a word is of the note; public as the settings read now say too (a folder
    just made private still has chunks filed as public)."""
    if not may_be_accented(query) or not bm25_list:
        return query
    ids = [chunk_id for chunk_id, _ in bm25_list[:restore_from()]]
    facts = await asyncio.to_thread(
        index.chunk_facts, ids, private=False, namespace=options.namespace)
    return restore(query, [facts[chunk_id].text for chunk_id in ids if chunk_id in facts
                           and not hidden_now(options.private_now, False, facts[chunk_id].path)])


def fuse_pool(
    lists: Mapping[str, Ranked], depth: int, fusion: FusionSettings, size: int | None = None,
    unembedded: set[str] | None = None, copies: Mapping[str, str] | None = None,
) -> list[tuple[str, float]]:
    """The candidate pool: the `size` (default `depth`) best chunks of lists `depth` deep;
    `unembedded` chunks (no vector yet) are not held back for lacking a dense rank; `copies`
    tells tied chunks' texts apart (`fusion.shared_ranks`)."""
    return top(fusion.fuse(lists, depth, {"dense": unembedded or set()}, copies), size or depth)


async def _copies(
    index: SearchIndex, lists: Mapping[str, Ranked], options: SearchOptions,
) -> dict[str, str]:
    """The copy key (`copies.copy_key`) of each chunk a retriever scored level with another:
    fusion then ranks copies of one text as one and distinct texts tied as an order would
    (`fusion.shared_ranks`). Only tied chunks are read, and a list mostly has none."""
    ids = sorted({chunk_id for ranked in lists.values() for chunk_id in tied(ranked)})
    if not ids:
        return {}
    facts = await asyncio.to_thread(
        index.chunk_facts, ids, private=options.private, namespace=options.namespace)
    return {chunk_id: copy_key(chunk.text) for chunk_id, chunk in facts.items()}


def _check(query: str, options: SearchOptions) -> None:
    if not query.strip():
        raise BadRequest("the query is empty: give some words to search for")
    if options.k < 1:
        raise BadRequest(f"k must be at least 1, got {options.k}")


def _admits(chunk: Chunk, options: SearchOptions) -> bool:
    # the caller's leave_out last: it may read the file (an answer's OnDisk), the rest is cheap
    return is_admissible(
        chunk.type, chunk.tags, chunk.private,
        private_mode=options.private, include_archived=options.include_archived,
    ) and options.filters.admits(chunk.path, chunk.type, chunk.tags, chunk.date, chunk.cluster,
                                 chunk.conversation) and (
        not hidden_now(options.private_now, options.private, chunk.path)
    ) and (options.leave_out is None or not options.leave_out(chunk))


def _admitted(
    pool: Sequence[tuple[str, float]], chunks: Mapping[str, Chunk], options: SearchOptions
) -> list[tuple[Chunk, float]]:
    kept = []
    for chunk_id, fused in pool:
        chunk = chunks.get(chunk_id)
        if chunk is not None and _admits(chunk, options):
            kept.append((chunk, fused))
    return kept


async def _facts(
    index: SearchIndex, ids: Sequence[str], options: SearchOptions
) -> dict[str, Chunk]:
    """What ranking reads of each id: the SQLite facts, and the Chroma record of any id they
    lack (a note being re-indexed), so a sync in progress leaves nothing out."""
    facts: dict[str, Chunk] = dict(await asyncio.to_thread(
        index.chunk_facts, ids, private=options.private, namespace=options.namespace))
    missing = [chunk_id for chunk_id in ids if chunk_id not in facts]
    if missing:
        facts.update(await asyncio.to_thread(
            index.get_chunks, missing, private=options.private, namespace=options.namespace))
    return facts


class _Candidates(NamedTuple):
    lists: dict[str, Ranked]  # the first stage's, without what the settings now hide
    ranked: list[tuple[Chunk, float]]
    phrased: set[str]  # the ids of those that hold the query word for word
    cut: bool  # whether a retriever's list was cut at `depth`: more candidates exist


async def candidates(
    index: SearchIndex, embedder: QueryEmbedder, query: str, options: SearchOptions,
    fusion: FusionSettings, depth: int | None = None,
) -> _Candidates:
    """First stage (without what the settings now hide: `_unhidden`), fusion into the pool,
    then the filters (before any top-k cut), then the lifts.

    The stores already leave out archived and private chunks, hold only retrievable types and
    apply the search filters, so `depth = max(pool, k)` candidates per retriever leave at least
    k whenever k exist; the filters here are the second line of defence (and run again on the
    records of the results shown). Copies of one text count once, and what a caller's
    `leave_out` leaves out not at all, so `search` asks again deeper when they leave fewer than
    k.
    """
    depth = depth or max(fusion.pool, options.k)
    prepared = Bm25Query(query)  # its feedback worked out once, for both BM25 searches
    (lists, vector), notes = await asyncio.gather(
        first_stage(index, embedder, query, depth, options, prepared),
        asyncio.to_thread(index.bm25_notes, query, depth, private=options.private,
                          namespace=options.namespace, include_archived=options.include_archived,
                          prepared=prepared))
    cut = any(len(found) >= depth for found in lists.values())
    lists, notes = await _unhidden(index, lists, notes, options)
    dense = {chunk_id for chunk_id, _ in lists["dense"]}
    unembedded = await asyncio.to_thread(
        index.unembedded, [i for i, _ in lists["bm25"] if i not in dense],
        namespace=options.namespace)
    pool = fuse_pool(lists, depth, fusion, unembedded=unembedded,
                     copies=await _copies(index, lists, options))
    facts = await _facts(index, [chunk_id for chunk_id, _ in pool], options)
    admitted = (await asyncio.to_thread(_admitted, pool, facts, options)  # it may read files
                if options.leave_out is not None else _admitted(pool, facts, options))
    near, lead = await asyncio.gather(
        _near_notes(index.note_vectors, vector, admitted, options, fusion.notes),
        _near_notes(index.note_leads, vector, admitted, options, fusion.leads))
    ranked, phrased = _phrased(_lifted(admitted, notes, near, lead, fusion), query, fusion)
    return _Candidates(lists, ranked, phrased, cut)


async def _unhidden(
    index: SearchIndex, lists: dict[str, Ranked], notes: dict[str, float], options: SearchOptions,
) -> tuple[dict[str, Ranked], dict[str, float]]:
    """The first stage's lists and note-level shares without what the settings now make private
    (outside private mode; still filed as public until the index plans it again), before
    fusion: left out only after it, it would still take places in the ranks (`why.dense_rank`)
    and a share of the scores of what is shown, a hint that it exists."""
    private_now = options.private_now
    if options.private or private_now is None:
        return lists, notes
    ids = list({chunk_id for ranked in lists.values() for chunk_id, _ in ranked})
    paths = await asyncio.to_thread(index.public_paths, ids, namespace=options.namespace)
    hidden = {chunk_id for chunk_id, path in paths.items() if private_now(path)}
    shown_notes = {path: share for path, share in notes.items() if not private_now(path)}
    if not hidden and len(shown_notes) == len(notes):
        return lists, notes
    best = max(shown_notes.values(), default=0.0)
    return ({name: [(i, score) for i, score in ranked if i not in hidden]
             for name, ranked in lists.items()},
            {path: share / best for path, share in shown_notes.items()} if best > 0 else {})


async def _near_notes(
    read: Callable[..., Mapping[str, FloatArray]], vector: FloatArray | None,
    admitted: Sequence[tuple[Chunk, float]], options: SearchOptions, weight: float,
) -> dict[str, float]:
    """How near each candidate note's vector `read` gives (its mean, `Index.note_vectors`; its
    lead sentence's, `Index.note_leads`) is to the query, as shares of the candidates' range
    (`index/note_vectors.py`); none when the embedder's calibration gives that lift no
    `weight` or the query was not embedded."""
    if not weight or vector is None or not admitted:
        return {}
    paths = dict.fromkeys(chunk.path for chunk, _ in admitted)
    vectors = await asyncio.to_thread(
        read, paths, private=options.private, namespace=options.namespace)
    return note_shares(vector, vectors, paths)


def _lifted(
    admitted: Sequence[tuple[Chunk, float]], notes: Mapping[str, float],
    near: Mapping[str, float], lead: Mapping[str, float], fusion: FusionSettings,
) -> list[tuple[Chunk, float]]:
    """`admitted`, best first, each fused score lifted by its note's note-level BM25 score
    (`index/note_level.py`; `notes`: by path, as shares of the best note's), that share of
    `notes.weight` of the fused scale, by how near its note's mean vector is to the query
    (`near`), that share of the embedder's `fusion.notes`, and by how near its note's lead
    sentence is (`lead`), that share of `fusion.leads`; the sum scaled back within it."""
    if not notes and not near and not lead:
        return list(admitted)
    words = language_spec().note_weight if notes else 0.0
    meaning = fusion.notes if near else 0.0
    leading = fusion.leads if lead else 0.0
    top_score = fusion.ceiling(RETRIEVERS)
    lifted = [(chunk, (fused + top_score * (words * notes.get(chunk.path, 0.0)
                                            + meaning * near.get(chunk.path, 0.0)
                                            + leading * lead.get(chunk.path, 0.0)))
               / (1 + words + meaning + leading))
              for chunk, fused in admitted]
    return sorted(lifted, key=lambda item: -item[1])


def _phrased(
    admitted: Sequence[tuple[Chunk, float]], query: str, fusion: FusionSettings,
) -> tuple[list[tuple[Chunk, float]], set[str]]:
    """`admitted`, best first, each chunk that holds the whole query word for word lifted by
    `phrase.weight` of the fused scale, and each chunk of a note the query names (its file name
    or an alias, whole) by the whole scale besides, which puts that note first; the sums
    scaled back within it (`phrases.py`). With the ids of those chunks; as it was when none
    holds it, as a question's candidates mostly are. A chat note's chunk is never lifted: it
    holds the questions asked, so asking one again would cite the chat before what answers
    it."""
    settings = phrase_settings()
    sought = phrase(query, settings.min_words) if settings.weight else None
    if sought is None:
        return list(admitted), set()
    held: set[str] = set()
    named: set[str] = set()
    for chunk, _ in admitted:
        aliases = chunk.aliases  # a note's aliases name it as its file name does
        if chunk.conversation is None and sought.names(chunk.path, aliases):
            named.add(chunk.id)
        if chunk.conversation is None and sought.held_by(chunk.path, chunk.text, aliases):
            held.add(chunk.id)
    if not held and not named:
        return list(admitted), held
    scale = fusion.ceiling(RETRIEVERS)
    # A named chunk's sum is at least 1 (+ weight, as its name holds a query of two words or
    # more): no other chunk's is more.
    whole = 1.0 if named else 0.0
    lifted = [(chunk, (fused + scale * (settings.weight * (chunk.id in held)
                                        + whole * (chunk.id in named)))
               / (1 + settings.weight + whole))
              for chunk, fused in admitted]
    return sorted(lifted, key=lambda item: -item[1]), held | named


async def _records(
    index: SearchIndex, chunks: Sequence[Chunk], options: SearchOptions
) -> dict[str, ChunkRecord]:
    """The full records (text, place in the note) of `chunks`, those already at hand reused."""
    out = {chunk.id: chunk for chunk in chunks if isinstance(chunk, ChunkRecord)}
    wanted = [chunk.id for chunk in chunks if chunk.id not in out]
    if wanted:
        out.update(await asyncio.to_thread(
            index.get_chunks, wanted, private=options.private, namespace=options.namespace))
    return out


@dataclass(frozen=True)
class Scored:
    """A candidate with its scores; `score` is the final one, rounded as results show it."""

    chunk: Chunk
    fused: float
    similarity: float
    rerank: float | None
    score: float


def _weight_and_decay(chunk: Chunk, schema: Schema) -> tuple[float, float]:
    weight = schema.type_weight(chunk.type)
    decay = (
        recency_factor(chunk.newer_in_cluster, schema.decay_floor, schema.decay_per_newer)
        if chunk.type in schema.decay_types
        else 1.0
    )
    return weight, decay


def _score(chunk: Chunk, similarity: float, schema: Schema) -> float:
    return round(final_score(similarity, *_weight_and_decay(chunk, schema)), 6)


def _order(scored: Scored) -> tuple[float, float, str]:
    """The order of results, but for the line a chunk starts at (only its record knows it)."""
    return (-scored.score, -round(scored.fused, 6), scored.chunk.path)


Copies = dict[str, list[str]]
"""Chunk id of a result → the other notes holding a copy of its text."""


def _distinct(scored: Sequence[Scored], options: SearchOptions) -> tuple[list[Scored], Copies]:
    """`scored` (best first) with the copies of a text after its best-ranked one left out, so
    the next candidates take their places. Only admitted candidates are compared: only notes
    the request may see are named."""
    if not options.collapse:
        return list(scored), {}
    kept, others = collapse(scored, lambda s: copy_key(s.chunk.text), lambda s: s.chunk.path)
    return kept, {s.chunk.id: others[n] for n, s in enumerate(kept) if n in others}


async def _shown(
    index: SearchIndex, scored: Sequence[Scored], options: SearchOptions,
    records: dict[str, ChunkRecord], schema: Schema,
) -> tuple[list[Scored], Copies]:
    """The results to show, on their full records, and their copies: the best `options.k` of
    `scored` (sorted by `_order`) once copies are collapsed, with those tied with the k-th (the
    line decides among them).

    Only these records are read from Chroma. Each is checked again against the filters and
    re-scored; should one disagree with its SQLite facts (a sync between the two reads), every
    candidate is read and ranked on its record instead, as if there were no facts.
    """
    distinct, copies = _distinct(scored, options)
    cut = distinct[: options.k]
    if cut:
        last = _order(cut[-1])
        cut += itertools.takewhile(lambda s: _order(s) == last, distinct[options.k:])
    records.update(await _records(index, [s.chunk for s in cut], options))

    def on_record(s: Scored) -> Scored | None:
        record = records.get(s.chunk.id)
        if record is None or not _admits(record, options):
            return None
        return replace(s, chunk=record, score=_score(record, s.similarity, schema))

    shown = [on_record(s) for s in cut]
    if all(r is not None and r.score == s.score for r, s in zip(shown, cut, strict=True)):
        return [r for r in shown if r is not None], copies
    records.update(await _records(index, [s.chunk for s in scored], options))
    return _distinct(sorted((r for r in map(on_record, scored) if r is not None), key=_order),
                     options)


def result_document(
    chunk: ChunkRecord, fused: float, similarity: float, rerank: float | None,
    rank_of: Mapping[str, Mapping[str, int]], schema: Schema, duplicates: Sequence[str] = (),
    *, phrase: bool | None = None, private_now: PrivatePaths | None = None,
) -> dict[str, Any]:
    """One result of the search document: the chunk, its score and why it scored so;
    `duplicates` names the other notes holding a copy of its text (`copies.py`); `phrase`,
    whether it holds the query word for word (a search's results only). Flagged private when
    the index files it so or `private_now` (the settings now) says it is."""
    weight, decay = _weight_and_decay(chunk, schema)
    why: dict[str, Any] = {
        "dense_rank": rank_of["dense"].get(chunk.id),
        "bm25_rank": rank_of["bm25"].get(chunk.id),
        "fused": round(fused, 6),
        "rerank": None if rerank is None else round(rerank, 6),
        "similarity": round(similarity, 6),
        "type_weight": weight,
        "decay": round(decay, 6),
        "cluster": chunk.cluster,
        "newer_in_cluster": chunk.newer_in_cluster,
    }
    if phrase is not None:
        why["phrase"] = phrase
    doc = {
        "path": chunk.path,
        "title": chunk.title,
        "type": chunk.type,
        "type_inferred": chunk.type_inferred,
        "score": _score(chunk, similarity, schema),
        "flags": result_flags(chunk.tags),
        "private": bool(chunk.private) or (private_now is not None and private_now(chunk.path)),
        "text": chunk.text,
        "heading_path": list(chunk.heading_path),
        "line_start": chunk.line_start,
        "line_end": chunk.line_end,
        "block_ids": list(chunk.block_ids),
        "duplicates": list(duplicates),
        "why": why,
    }
    return cite_page(doc, chunk)


def cite_page(result: dict[str, Any], chunk: ChunkRecord) -> dict[str, Any]:
    """A document's chunk cites its page, with the link Obsidian opens there, not lines."""
    if is_document(chunk.path):
        result |= {"line_start": None, "line_end": None, "page": chunk.page,
                   "link": page_link(chunk.path, chunk.page)}
    return result


def passage(chunk: ChunkRecord) -> str:
    """What the re-ranker reads: the note title, then the chunk (titles carry much of the topic)."""
    if chunk.title and not chunk.text.lstrip().startswith(chunk.title):
        return f"{chunk.title}\n{chunk.text}"
    return chunk.text


class RememberedQueries:
    """A query embedder that embeds each text once: a search asked again deeper (copies left
    fewer than k) does not embed its query again, and a caller that passes one to a search
    reads the query's vector after it (`vector`): an answer's relevance floor compares the
    passages with the very vector the search found them by (`answers/pipeline.py`)."""

    def __init__(self, embedder: QueryEmbedder) -> None:
        self.embedder = embedder
        self.vectors: dict[tuple[str, ...], FloatArray] = {}

    @property
    def model_id(self) -> str:
        """The wrapped embedder's: a search picks its calibration and checks the index by it."""
        return str(getattr(self.embedder, "model_id", ""))

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        key = tuple(queries)
        if key not in self.vectors:
            self.vectors[key] = self.embedder.embed_queries(queries)
        return self.vectors[key]

    def vector(self, query: str) -> FloatArray | None:
        """The query vector of `query` alone as embedded so far, or None when it was not (a
        search by the words alone)."""
        vectors = self.vectors.get((query,))
        return None if vectors is None else vectors[0]


def _texts_head(
    admitted: Sequence[tuple[Chunk, float]], n: int, options: SearchOptions
) -> list[tuple[Chunk, float]]:
    """The first of `admitted` that hold `n` distinct texts (all copies of them included), so
    the copies of a template do not take the re-ranker's places of other texts."""
    if not options.collapse:
        return list(admitted[:n])
    seen: set[str] = set()
    for end, (chunk, _) in enumerate(admitted):
        seen.add(copy_key(chunk.text))
        if len(seen) > n:
            return list(admitted[:end])
    return list(admitted)


@dataclass(frozen=True)
class _Ranking:
    """One pass of a search over candidate lists `depth` deep."""

    lists: dict[str, Ranked]
    phrased: set[str]
    name: str
    reason: str
    shown: list[Scored]
    copies: Copies
    records: dict[str, ChunkRecord]
    deeper: bool  # whether a retriever's list was cut at `depth`: more candidates exist


async def _rank(
    index: SearchIndex, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions, reranker_reason: str, fusion: FusionSettings, depth: int,
) -> _Ranking:
    schema = get_schema()
    lists, admitted, phrased, cut = await candidates(index, embedder, query, options, fusion,
                                                     depth)
    reranking = reranker is not None and options.rerank
    records: dict[str, ChunkRecord] = {}
    if reranking:
        # A cross-encoder's cost grows with the pool: re-rank the best of the fused list only.
        admitted = _texts_head(admitted, max(rerank_limits().pool, options.k), options)
        records = await _records(index, [chunk for chunk, _ in admitted], options)
        admitted = [(records[c.id], fused) for c, fused in admitted if c.id in records]
    outcome = await rerank_pool(
        reranker if options.rerank else None,
        query,
        [passage(records[chunk.id]) for chunk, _ in admitted] if reranking else [],
        [fused for _, fused in admitted],
        fusion.ceiling(RETRIEVERS),
        reason="re-ranking turned off for this query" if not options.rerank else reranker_reason,
        private=options.private or any(chunk.private for chunk, _ in admitted),
    )
    scored = [
        Scored(chunk, fused, similarity, rerank, _score(chunk, similarity, schema))
        for (chunk, fused), similarity, rerank in zip(
            admitted, outcome.similarities, outcome.rerank_scores, strict=True
        )
    ]
    scored.sort(key=_order)
    shown, copies = await _shown(index, scored, options, records, schema)
    return _Ranking(lists, phrased, outcome.name, outcome.reason, shown, copies, records, cut)


async def search(
    index: SearchIndex, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions | None = None, *, reranker_reason: str = "",
    fusion: FusionSettings | None = None,
) -> dict[str, Any]:
    """The search document of docs/http-api.md for `query`, best `options.k` results first.

    `reranker_reason` says why `reranker` is None; `fusion` overrides `schema/ranking.json`.
    When copies of one text (or what `options.leave_out` leaves out) leave fewer than k results
    and the retrievers hold more, the search is asked again twice as deep, so the next distinct
    texts fill their places.
    """
    options = options or SearchOptions()
    _check(query, options)
    # off the event loop: it may read ora.yaml
    options = await asyncio.to_thread(with_private_now, options, index.config)
    if options.dense:  # never one model's query vector against another model's vectors
        # a writer's own namespace (the server's searches) reads no file; another, index.json
        indexed = index.vectors_model(options.namespace)
        check_query_model(index.config.data, indexed, str(getattr(embedder, "model_id", "")))
    schema = get_schema()
    fusion = fusion or fusion_settings(str(getattr(embedder, "model_id", "")))
    remembered = (embedder if isinstance(embedder, RememberedQueries)
                  else RememberedQueries(embedder))
    depth = max(fusion.pool, options.k)
    while True:
        ranking = await _rank(index, remembered, reranker, query, options, reranker_reason,
                              fusion, depth)
        if len(ranking.shown) >= options.k or not ranking.deeper:
            break
        depth *= 2
    rank_of = {name: ranks(ranked) for name, ranked in ranking.lists.items()}
    results = [
        result_document(ranking.records[s.chunk.id], s.fused, s.similarity, s.rerank, rank_of,
                        schema, ranking.copies.get(s.chunk.id, ()),
                        phrase=s.chunk.id in ranking.phrased, private_now=options.private_now)
        for s in ranking.shown
    ]
    if options.shown is not None:  # made in `ranking.shown`'s order
        for result, s in zip(results, ranking.shown, strict=True):
            options.shown(result, ranking.records[s.chunk.id])
    results.sort(key=lambda r: (-r["score"], -r["why"]["fused"], r["path"], r.get("page") or 0,
                                r["line_start"] or 0))
    document: dict[str, Any] = {
        "query": query,
        "namespace": options.namespace,
        "rerank": ranking.name,
    }
    if ranking.reason:
        document["rerank_reason"] = ranking.reason
    document["results"] = results[: options.k]
    return document


def search_sync(
    index: SearchIndex, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions | None = None, *, reranker_reason: str = "",
    fusion: FusionSettings | None = None,
) -> dict[str, Any]:
    """`search()` for synchronous callers (the CLI)."""
    return asyncio.run(
        search(
            index, embedder, reranker, query, options,
            reranker_reason=reranker_reason, fusion=fusion,
        )
    )
