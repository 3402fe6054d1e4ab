"""Retrieval quality on a BEIR data set, through the index's own stores and the search ranking.

The corpus goes into a temporary namespace of the real BM25 (tantivy) and Chroma stores,
one document per chunk (title + text, as BEIR's baselines index it). Every query then runs the
first stage once, deep enough for every mode, and each mode is built from those lists:

- `bm25`, `dense`: one retriever alone;
- `hybrid`: fused into the candidate pool (`schema/ranking.json`);
- `default`: what `ora search` does with these documents: the pool, re-ranked when a re-ranker is
  configured, copies collapsed (all BEIR documents share one type, so type weights and decay
  change nothing).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from sidecar.errors import BadRequest
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
from sidecar.index.chroma import ChromaStore
from sidecar.models.embedder import Embedder
from sidecar.models.reranker import Reranker
from sidecar.retrieval.beir import Document
from sidecar.retrieval.copies import collapse, copy_key
from sidecar.retrieval.fusion import FusionSettings, Ranked
from sidecar.retrieval.metrics import evaluate_run
from sidecar.retrieval.rerank import rerank_pool
from sidecar.retrieval.search import fuse_pool
from sidecar.retrieval.vector_cache import cached_embed

MODES = ("bm25", "dense", "hybrid", "default")
NAMESPACE = "beir"
RECALL_K = 100
NDCG_K = 10

Lists = dict[str, dict[str, Ranked]]
"""Retriever name → query id → ranked (doc id, score)."""


def _bar(total: int, desc: str) -> tqdm[Any]:
    return tqdm(total=total, desc=desc, unit="doc", file=sys.stderr, leave=False)


@dataclass
class BeirStore:
    """A BEIR corpus in the index's BM25 and Chroma stores."""

    bm25: Bm25Store
    chroma: ChromaStore

    def bm25_search(self, query: str, depth: int) -> Ranked:
        return self.bm25.search(NAMESPACE, query, depth, private=False, include_archived=False)

    def dense_search(self, vector: np.ndarray[Any, Any], depth: int) -> Ranked:
        return self.chroma.query(NAMESPACE, False, vector, depth, include_archived=False)

    def close(self) -> None:
        self.bm25.close()


def embed_corpus(docs: Sequence[Document], embedder: Embedder, cache: Path) -> np.ndarray[Any, Any]:
    """Corpus vectors, read from the (content hash, model id) cache where present."""
    bar = _bar(len(docs), "embed corpus")
    try:
        return cached_embed(
            [d.passage for d in docs], embedder.embed, embedder.model_id, cache, bar.update
        )
    finally:
        bar.close()


@contextmanager
def beir_store(docs: Sequence[Document], vectors: np.ndarray[Any, Any]) -> Iterator[BeirStore]:
    """A temporary store holding `docs` (removed on exit)."""
    with tempfile.TemporaryDirectory(prefix="ora-eval-") as folder:
        path = Path(folder)
        bm25 = Bm25Store(path / "bm25.sqlite")
        bm25.create(NAMESPACE)
        rows = [SparseRow(d.id, d.id, False, d.text, d.title, "") for d in docs]
        bm25.replace(NAMESPACE, {}, {False: rows})
        chroma = ChromaStore(path, "")
        ids = [d.id for d in docs]
        bar = _bar(len(docs), "index corpus")
        for start in range(0, len(docs), 1000):
            end = start + 1000
            chroma.upsert(
                NAMESPACE, False, ids[start:end], vectors[start:end],
                [d.passage for d in docs[start:end]], [{"archived": False}] * len(ids[start:end]),
            )
            bar.update(len(ids[start:end]))
        bar.close()
        store = BeirStore(bm25, chroma)
        try:
            yield store
        finally:
            store.close()


def first_stage(
    store: BeirStore, embedder: Embedder, queries: Mapping[str, str], depth: int
) -> Lists:
    """Both retrievers' lists for every query, `depth` long."""
    ids = list(queries)
    vectors = embedder.embed([queries[q] for q in ids])
    lists: Lists = {"dense": {}, "bm25": {}}
    for qid, vector in tqdm(
        zip(ids, vectors, strict=True), total=len(ids), desc="queries", file=sys.stderr,
        leave=False,
    ):
        lists["dense"][qid] = store.dense_search(vector, depth)
        lists["bm25"][qid] = store.bm25_search(queries[qid], depth)
    return lists


def _cut(lists: Mapping[str, Ranked], depth: int) -> dict[str, Ranked]:
    return {name: ranked[:depth] for name, ranked in lists.items()}


def hybrid_run(
    lists: Lists, fusion: FusionSettings, depth: int | None = None
) -> dict[str, list[str]]:
    """Fused pool per query; each retriever contributes its top `depth` (default: pool size)."""
    depth = depth or fusion.pool
    run: dict[str, list[str]] = {}
    for qid in lists["dense"]:
        per_query = _cut({name: lists[name][qid] for name in lists}, depth)
        # Each document a text of its own: ties share ranks as live search shares them.
        pool = fuse_pool(per_query, depth, fusion, max(depth, RECALL_K), copies={})
        run[qid] = [doc for doc, _ in pool]
    return run


async def _default_run(
    lists: Lists, fusion: FusionSettings, reranker: Reranker | None,
    queries: Mapping[str, str], passages: Mapping[str, str],
) -> tuple[dict[str, list[str]], str]:
    names: set[str] = set()
    run: dict[str, list[str]] = {}
    for qid in tqdm(lists["dense"], desc="default", file=sys.stderr, leave=False):
        per_query = _cut({name: lists[name][qid] for name in lists}, fusion.pool)
        pool = fuse_pool(per_query, fusion.pool, fusion, max(fusion.pool, RECALL_K), copies={})
        scored = await rerank_pool(
            reranker, queries[qid], [passages[d] for d, _ in pool], [f for _, f in pool],
            fusion.ceiling(list(lists)),
        )
        names.add(scored.name)
        order = sorted(range(len(pool)), key=lambda i: -scored.similarities[i])
        kept, _ = collapse([pool[i][0] for i in order], lambda d: copy_key(passages[d]), str)
        run[qid] = kept
    return run, ", ".join(sorted(names))


def runs(
    lists: Lists, fusion: FusionSettings, modes: Sequence[str], *,
    reranker: Reranker | None = None, queries: Mapping[str, str] | None = None,
    passages: Mapping[str, str] | None = None,
) -> tuple[dict[str, dict[str, list[str]]], str]:
    """Each requested mode's ranked doc ids per query, and the re-ranker `default` used."""
    out: dict[str, dict[str, list[str]]] = {}
    used = ""
    for mode in modes:
        if mode in ("bm25", "dense"):
            out[mode] = {q: [d for d, _ in r[:RECALL_K]] for q, r in lists[mode].items()}
        elif mode == "hybrid":
            out[mode] = hybrid_run(lists, fusion)
        elif mode == "default":
            out[mode], used = asyncio.run(
                _default_run(lists, fusion, reranker, queries or {}, passages or {})
            )
        else:
            raise BadRequest(f"unknown mode {mode!r}: choose from {', '.join(MODES)}, all")
    return out, used


def score_runs(
    mode_runs: Mapping[str, Mapping[str, Sequence[str]]], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """nDCG@10 and Recall@100 per mode, rounded to 4 places."""
    return {
        mode: {
            name: round(value, 4)
            for name, value in evaluate_run(run, qrels, ndcg_k=NDCG_K, recall_k=RECALL_K).items()
        }
        for mode, run in mode_runs.items()
    }


def evaluate(
    docs: Sequence[Document], queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
    embedder: Embedder, *, modes: Sequence[str], fusion: FusionSettings, cache: Path,
    reranker: Reranker | None = None, log: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    """`{"modes": {mode: {"ndcg@10", "recall@100"}}, ...}` for the judged queries."""
    judged = {q: queries[q] for q in qrels if q in queries}
    if not judged:
        raise BadRequest("no query in the qrels file appears in the queries file")
    vectors = embed_corpus(docs, embedder, cache)
    log(f"indexing {len(docs)} documents into a temporary store")
    with beir_store(docs, vectors) as store:
        depth = max(fusion.pool, RECALL_K)
        lists = first_stage(store, embedder, judged, depth)
    passages = {d.id: d.passage for d in docs} if "default" in modes else {}
    mode_runs, used = runs(
        lists, fusion, modes, reranker=reranker, queries=judged, passages=passages
    )
    return {
        "modes": score_runs(mode_runs, qrels),
        "queries": len(judged),
        "documents": len(docs),
        "embedder": embedder.model_id,
        "rerank": used or None,
        "fusion": {"method": fusion.method, "k": fusion.k, "weights": fusion.weights,
                   "candidate_pool": fusion.pool},
    }
