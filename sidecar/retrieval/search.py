"""Hybrid search: dense ∥ BM25 → fusion → candidate pool → re-rank → provenance-weighted score.

`search()` is the one entry point the CLI, the HTTP API and the answer pipeline call. Every stage
is a small function so the evaluation harness can run the same ranking over a BEIR corpus.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from sidecar.errors import BadRequest
from sidecar.index.records import ChunkRecord
from sidecar.index.scope import NoteFilter, Scope
from sidecar.models.reranker import Reranker, rerank_limits
from sidecar.retrieval.filters import is_admissible, result_flags
from sidecar.retrieval.fusion import FusionSettings, Ranked, fusion_settings, ranks, top
from sidecar.retrieval.rerank import rerank_pool
from sidecar.retrieval.scoring import final_score, recency_factor
from sidecar.schema import Schema, get_schema

FloatArray = npt.NDArray[np.float32]
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


class SearchIndex(Protocol):
    def dense_search(
        self, vector: FloatArray, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, only: Scope | None = None,
    ) -> list[tuple[str, float]]: ...

    def bm25_search(
        self, query: str, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, only: Scope | None = None,
    ) -> list[tuple[str, float]]: ...

    def scope(
        self, note_filter: NoteFilter, *, private: bool, namespace: str | None = None
    ) -> Scope | None: ...

    def get_chunks(
        self, ids: Sequence[str], *, private: bool, namespace: str | None = None
    ) -> Mapping[str, ChunkRecord]: ...


class QueryEmbedder(Protocol):
    def embed_queries(self, queries: Sequence[str]) -> FloatArray: ...


async def first_stage(
    index: SearchIndex, embedder: QueryEmbedder, query: str, depth: int, options: SearchOptions
) -> dict[str, Ranked]:
    """The dense and BM25 lists, `depth` long, fetched concurrently (ADR-0005 decision 1), each
    restricted inside its store to the notes `options.filters` admits."""
    only = await asyncio.to_thread(
        index.scope, options.filters, private=options.private, namespace=options.namespace
    )
    scope: dict[str, Any] = {
        "private": options.private,
        "namespace": options.namespace,
        "include_archived": options.include_archived,
        "only": only,
    }

    async def dense() -> Ranked:
        vectors = await asyncio.to_thread(embedder.embed_queries, [query])
        return await asyncio.to_thread(index.dense_search, vectors[0], depth, **scope)

    dense_list, bm25_list = await asyncio.gather(
        dense(), asyncio.to_thread(index.bm25_search, query, depth, **scope)
    )
    return {"dense": dense_list, "bm25": bm25_list}


def fuse_pool(
    lists: Mapping[str, Ranked], depth: int, fusion: FusionSettings, size: int | None = None
) -> list[tuple[str, float]]:
    """The candidate pool: the `size` (default `depth`) best chunks of lists `depth` deep."""
    return top(fusion.fuse(lists, depth), size or depth)


def _check(query: str, options: SearchOptions) -> None:
    if not query.strip():
        raise BadRequest("the query is empty: give some words to search for")
    if options.k < 1:
        raise BadRequest(f"k must be at least 1, got {options.k}")


def _admitted(
    pool: Sequence[tuple[str, float]], chunks: Mapping[str, ChunkRecord], options: SearchOptions
) -> list[tuple[ChunkRecord, float]]:
    kept = []
    for chunk_id, fused in pool:
        chunk = chunks.get(chunk_id)
        if chunk is not None and is_admissible(
            chunk.type, chunk.tags, chunk.private,
            private_mode=options.private, include_archived=options.include_archived,
        ) and options.filters.admits(chunk.path, chunk.type, chunk.tags, chunk.date):
            kept.append((chunk, fused))
    return kept


async def candidates(
    index: SearchIndex, embedder: QueryEmbedder, query: str, options: SearchOptions,
    fusion: FusionSettings,
) -> tuple[dict[str, Ranked], list[tuple[ChunkRecord, float]]]:
    """First stage, fusion into the pool, then the filters (before any top-k cut).

    The stores already leave out archived and private chunks, hold only retrievable types and
    apply the search filters, so `depth = max(pool, k)` candidates per retriever leave at least
    k whenever k exist; the filters here are the second line of defence.
    """
    depth = max(fusion.pool, options.k)
    lists = await first_stage(index, embedder, query, depth, options)
    pool = fuse_pool(lists, depth, fusion)
    chunks = await asyncio.to_thread(
        index.get_chunks,
        [chunk_id for chunk_id, _ in pool],
        private=options.private,
        namespace=options.namespace,
    )
    return lists, _admitted(pool, chunks, options)


def result_document(
    chunk: ChunkRecord, fused: float, similarity: float, rerank: float | None,
    rank_of: Mapping[str, Mapping[str, int]], schema: Schema,
) -> dict[str, Any]:
    """One result of the search document: the chunk, its score and why it scored so."""
    weight = schema.type_weight(chunk.type)
    decay = (
        recency_factor(chunk.newer_in_cluster, schema.decay_floor, schema.decay_per_newer)
        if chunk.type in schema.decay_types
        else 1.0
    )
    return {
        "path": chunk.path,
        "title": chunk.title,
        "type": chunk.type,
        "type_inferred": chunk.type_inferred,
        "score": round(final_score(similarity, weight, decay), 6),
        "flags": result_flags(chunk.tags),
        "private": bool(chunk.private),
        "text": chunk.text,
        "heading_path": list(chunk.heading_path),
        "line_start": chunk.line_start,
        "line_end": chunk.line_end,
        "block_ids": list(chunk.block_ids),
        "why": {
            "dense_rank": rank_of["dense"].get(chunk.id),
            "bm25_rank": rank_of["bm25"].get(chunk.id),
            "fused": round(fused, 6),
            "rerank": None if rerank is None else round(rerank, 6),
            "similarity": round(similarity, 6),
            "type_weight": weight,
            "decay": round(decay, 6),
            "cluster": chunk.cluster,
            "newer_in_cluster": chunk.newer_in_cluster,
        },
    }


def passage(chunk: ChunkRecord) -> str:
    """What the re-ranker reads: the note title, then the chunk (titles carry much of the topic)."""
    if chunk.title and not chunk.text.lstrip().startswith(chunk.title):
        return f"{chunk.title}\n{chunk.text}"
    return chunk.text


async def search(
    index: SearchIndex, embedder: QueryEmbedder, reranker: Reranker | None, query: str,
    options: SearchOptions | None = None, *, reranker_reason: str = "",
    fusion: FusionSettings | None = None,
) -> dict[str, Any]:
    """The search document of docs/http-api.md for `query`, best `options.k` results first.

    `reranker_reason` says why `reranker` is None; `fusion` overrides `schema/ranking.json`.
    """
    options = options or SearchOptions()
    _check(query, options)
    schema = get_schema()
    fusion = fusion or fusion_settings()
    lists, admitted = await candidates(index, embedder, query, options, fusion)
    if reranker is not None and options.rerank:
        # A cross-encoder's cost grows with the pool: re-rank the best of the fused list only.
        admitted = admitted[: max(rerank_limits().pool, options.k)]
    outcome = await rerank_pool(
        reranker if options.rerank else None,
        query,
        [passage(chunk) for chunk, _ in admitted],
        [fused for _, fused in admitted],
        fusion.ceiling(RETRIEVERS),
        reason="re-ranking turned off for this query" if not options.rerank else reranker_reason,
    )
    rank_of = {name: ranks(ranked) for name, ranked in lists.items()}
    results = [
        result_document(chunk, fused, similarity, rerank, rank_of, schema)
        for (chunk, fused), similarity, rerank in zip(
            admitted, outcome.similarities, outcome.rerank_scores, strict=True
        )
    ]
    results.sort(key=lambda r: (-r["score"], -r["why"]["fused"], r["path"], r["line_start"]))
    document: dict[str, Any] = {
        "query": query,
        "namespace": options.namespace,
        "rerank": outcome.name,
    }
    if outcome.reason:
        document["rerank_reason"] = outcome.reason
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
