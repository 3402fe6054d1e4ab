"""Query latency of `search()` (no re-ranking) over vaults of 10k, 50k and 100k chunks, by stage.

    .venv/bin/python bench/bench_query.py [--sizes 10000 50000 100000] [--queries 200]
        [--rounds 1] [--rerank-queries 0] [--data DIR] [--work DIR]

Each vault is generated (one chunk per note, text drawn from SciFact abstracts, types, tags and
clusters mixed as a real vault would have them) and indexed once through the real index; it is
kept in `--work` (`vault-N`) so later runs skip the build. To avoid an hour of embedding, *note*
vectors come from a fixed random projection of their MiniLM token ids (lexical, not semantic, but
the same dimension and unit norm, so the stores do the same work); every *query* is embedded by
the real model, as in `ora search`.

The machine may be shared, so each query is timed in wall milliseconds and in CPU milliseconds of
the whole process (every thread: onnxruntime's, Chroma's, SQLite's), and the load average is
recorded before and after each size. The sizes are measured round-robin (`--rounds`), so a change
of load hits all of them alike. Stages are timed by wrapping the index and embedder calls
`search()` makes: query embedding, dense, BM25 (the last two concurrent with embedding),
filter scope, fusion, the candidates' facts (note properties ranking reads, from SQLite), the
records (text and metadata from Chroma, for the citations), and the rest (filters, scoring,
result documents, thread hand-offs). With `--rerank-queries N`, N queries are also timed with
re-ranking (the configured cross-encoder, else a random-weight BERT of ms-marco-MiniLM-L-6-v2's
exact shape, which costs the same per passage as the real model). With `--filter-queries N`, N
queries are also timed with a type filter that admits about a quarter of the vault.
"""


from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from report import SCIFACT, cpu_name, percentile

from sidecar.index import open_index
from sidecar.index.scope import NoteFilter
from sidecar.models.bert_onnx import BertShape, bert_graph, random_weights
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder, OnnxEmbedder
from sidecar.models.files import int8_model_file, minilm_source_dir
from sidecar.models.reranker import OnnxCrossEncoder, Reranker, build_reranker
from sidecar.retrieval.beir import load_corpus, load_queries
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import make_config

TYPES = ["engram"] * 40 + ["resource"] * 30 + ["chat"] * 15 + ["transcript"] * 5 + ["web"] * 10
MINILM_L6 = BertShape(vocab_size=30522, hidden_size=384, num_layers=6, num_heads=12,
                      intermediate_size=1536)


class ProjectionEmbedder(OnnxEmbedder):
    """Note vectors from a fixed random projection of token ids (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(int8_model_file(), "int8")
        self.model_id = "bench:token-projection"
        self._table = np.random.default_rng(7).standard_normal((30522, self.dim)).astype(
            np.float32
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray[Any, Any]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
            out[row] = self._table[encoding.ids].sum(axis=0)
        norms = np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-9, None)
        return np.asarray(out / norms)


def write_vault(vault: Path, scifact: Path, chunks: int, seed: int = 3) -> None:
    """`chunks` notes of ~120 words, each one chunk, with a realistic mix of types and tags."""
    rng = random.Random(seed)
    words = [w for doc in load_corpus(scifact / "corpus.jsonl") for w in doc.text.split()]
    for i in range(chunks):
        kind = rng.choice(TYPES)
        tags = [t for t, p in (("private", 0.05), ("archived", 0.05), ("incubating", 0.05))
                if rng.random() < p]
        start = rng.randrange(len(words) - 130)
        extra = ""
        if kind in ("chat", "transcript", "web"):
            created = f"202{rng.randrange(5)}-0{rng.randrange(1, 10)}-1{rng.randrange(10)}"
            extra = f"cluster: topic-{rng.randrange(500)}\ndate created: {created}\n"
        folder = vault / kind / f"{i // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note {i}.md").write_text(
            f"---\nnexus: []\ntype: {kind}\ntags: {json.dumps(tags)}\n{extra}---\n\n"
            + " ".join(words[start : start + 120]) + "\n",
            encoding="utf-8",
        )


def cross_encoder_proxy(folder: Path) -> OnnxCrossEncoder:
    """A random-weight cross-encoder with ms-marco-MiniLM-L-6-v2's shape."""
    if not (folder / "model.onnx").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        onnx.save(bert_graph(random_weights(MINILM_L6, num_labels=1), MINILM_L6),
                  str(folder / "model.onnx"))
        shutil.copy(minilm_source_dir() / "tokenizer.json", folder / "tokenizer.json")
        (folder / "config.json").write_text(json.dumps(MINILM_L6.to_config()), encoding="utf-8")
    return OnnxCrossEncoder(folder)


STAGES = ("embed", "dense", "bm25", "notes", "scope", "unembedded", "fusion", "facts", "records")


class StageClock:
    """Wall and CPU milliseconds of each stage of the current query (see the module docstring)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def timed(self, stage: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started, cpu_started = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.wall[stage] = self.wall.get(stage, 0.0) + 1000 * (
                    time.perf_counter() - started)
                self.cpu[stage] = self.cpu.get(stage, 0.0) + 1000 * (
                    time.thread_time() - cpu_started)
        return run


class TimedIndex:
    """The index with its search calls timed; any other call `search()` makes goes to the index
    untimed (counted in "rest"), so a call added to the search path cannot break the bench."""

    def __init__(self, index: Any, clock: StageClock) -> None:
        self._index = index
        self.dense_search = clock.timed("dense", index.dense_search)
        self.bm25_search = clock.timed("bm25", index.bm25_search)
        self.scope = clock.timed("scope", index.scope)
        self.get_chunks = clock.timed("records", index.get_chunks)
        self.chunk_facts = clock.timed("facts", index.chunk_facts)
        self.bm25_notes = clock.timed("notes", index.bm25_notes)
        self.unembedded = clock.timed("unembedded", index.unembedded)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


class TimedEmbedder:
    def __init__(self, embedder: Embedder, clock: StageClock) -> None:
        self.embed_queries = clock.timed("embed", embedder.embed_queries)


def summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 1),
            "p95": round(percentile(values, 0.95), 1)}


CLOCK = StageClock()
# Fusion is a plain function `search()` calls: time it where `candidates()` looks it up.
_search_module = sys.modules[search.__module__]
_search_module.fuse_pool = CLOCK.timed("fusion", _search_module.fuse_pool)  # type: ignore[attr-defined]


class Measure:
    """Per-query wall and CPU milliseconds, and per-stage wall medians, of one vault."""

    def __init__(self, index: Any, embedder: Embedder) -> None:
        self.clock = CLOCK
        self.index = TimedIndex(index, CLOCK)
        self.embedder = TimedEmbedder(embedder, CLOCK)
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.stages: dict[str, list[float]] = {s: [] for s in (*STAGES, "rest")}

    async def query(self, query: str, reranker: Reranker | None = None,
                    filters: NoteFilter | None = None) -> None:
        self.clock.wall.clear()
        self.clock.cpu.clear()
        options = SearchOptions(k=10, rerank=reranker is not None,
                                filters=filters or NoteFilter())
        started, cpu_started = time.perf_counter(), time.process_time()
        await search(self.index, self.embedder, reranker, query, options)
        wall = 1000 * (time.perf_counter() - started)
        self.wall.append(wall)
        self.cpu.append(1000 * (time.process_time() - cpu_started))
        stage = {s: self.clock.wall.get(s, 0.0) for s in STAGES}
        for name, ms in stage.items():
            self.stages[name].append(ms)
        # Embedding then dense runs beside BM25 and the whole-note BM25; what is left of the
        # wall time is in the loop.
        path = (stage["scope"] + max(stage["embed"] + stage["dense"], stage["bm25"], stage["notes"])
                + stage["unembedded"] + stage["fusion"] + stage["facts"] + stage["records"])
        self.stages["rest"].append(max(0.0, wall - path))

    def report(self) -> dict[str, Any]:
        return {
            "queries": len(self.wall),
            "wall_ms": {**summary(self.wall), "mean": round(statistics.fmean(self.wall), 1)},
            "cpu_ms": {**summary(self.cpu), "mean": round(statistics.fmean(self.cpu), 1)},
            "stage_p50_ms": {s: round(statistics.median(v), 1) for s, v in self.stages.items()},
        }


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build(vault: Path, data: Path, chunks: int) -> dict[str, Any]:
    """Write and index the vault of `chunks` notes unless `vault` already holds one."""
    config = make_config(vault)
    if (config.data / "ledger.sqlite").is_file():
        return {}
    print(f"writing {chunks} notes into {vault}", file=sys.stderr)
    write_vault(vault, data, chunks)
    started = time.perf_counter()
    with open_index(config, writer=True, embedder=ProjectionEmbedder()) as index:
        summary_ = index.reconcile()
    return {"index": summary_, "index_seconds": round(time.perf_counter() - started, 1)}


# A filter that admits about a quarter of a generated vault (its chats and web clips).
FILTER = NoteFilter.make(types=["chat", "web"])


async def run_sizes(
    args: argparse.Namespace, queries: list[str], reports: dict[int, dict[str, Any]]
) -> None:
    """Every query on every size, sizes round-robin within each round."""
    with contextlib.ExitStack() as stack:
        runs: dict[int, Measure] = {}
        indexes: dict[int, Any] = {}
        embedder = load_embedder(make_config(args.work / f"vault-{args.sizes[0]}"))
        for size in args.sizes:
            config = make_config(args.work / f"vault-{size}")
            index = indexes[size] = stack.enter_context(open_index(config, writer=False))
            reports[size].update(indexed_chunks=index.stats().get("chunks"),
                                 query_embedder=embedder.model_id)
            runs[size] = Measure(index, embedder)
            for query in queries[:5]:  # warm-up: sessions, SQLite pages, HNSW in memory
                await search(index, embedder, None, query, SearchOptions(rerank=False))
        for _ in range(args.rounds):
            for query in queries:
                for size in args.sizes:
                    await runs[size].query(query)
        for size, measured in runs.items():
            reports[size]["no_rerank"] = measured.report()
        if args.filter_queries:
            for size, index in indexes.items():
                filtered = Measure(index, embedder)
                for query in queries[: args.filter_queries]:
                    await filtered.query(query, filters=FILTER)
                reports[size]["filtered"] = {"filter": "types chat, web", **filtered.report()}
        if args.rerank_queries:
            config = make_config(args.work / f"vault-{args.sizes[0]}")
            reranker, _reason = build_reranker(config)
            label = reranker.name if reranker else "random-weight MiniLM-L6 cross-encoder (proxy)"
            reranker = reranker or cross_encoder_proxy(args.work / "cross-encoder-proxy")
            for size, index in indexes.items():
                ranked = Measure(index, embedder)
                for query in queries[: args.rerank_queries]:
                    await ranked.query(query, reranker)
                reports[size]["rerank"] = {"model": label, **ranked.report()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--rerank-queries", type=int, default=0)
    parser.add_argument("--filter-queries", type=int, default=0,
                        help="also time this many queries with a type filter (chats, web clips)")
    parser.add_argument("--data", type=Path, default=SCIFACT, help="the BEIR SciFact folder")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ora-bench-query"))
    args = parser.parse_args()

    reports = {size: build(args.work / f"vault-{size}", args.data, size) for size in args.sizes}
    queries = list(load_queries(args.data / "queries.jsonl").values())[: args.queries]
    report: dict[str, Any] = {
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()}, "
                   f"python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": load(),
    }
    asyncio.run(run_sizes(args, queries, reports))
    report["load_after"] = load()
    report["sizes"] = reports
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
