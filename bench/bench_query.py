"""Query latency of `search()` over a 50,000-chunk vault, without and with re-ranking.

    .venv/bin/python bench/bench_query.py [--chunks 50000] [--queries 200] [--data DIR] [--work DIR]

The vault is generated (one chunk per note, text drawn from SciFact abstracts, types, tags and
clusters mixed as a real vault would have them) and indexed once through the real index; it is
kept in `--work` so later runs skip the build. To avoid an hour of embedding, *note* vectors come
from a fixed random projection of their MiniLM token ids (lexical, not semantic, but the same
dimension and unit norm, so the stores do the same work); every *query* is embedded by the real
fp32/int8 MiniLM, as in `ora search`. With re-ranking, the configured cross-encoder is used if
there is one, else a random-weight BERT of ms-marco-MiniLM-L-6-v2's exact shape (6 layers, 384
wide), which costs the same per passage as the real model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from report import SCIFACT, percentile

from sidecar.index import open_index
from sidecar.models.build import BertShape, bert_graph, random_weights
from sidecar.models.embedder import Embedder, OnnxEmbedder, load_embedder
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
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-9, None)


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


async def measure(
    index: Any, embedder: Embedder, reranker: Reranker | None, queries: list[str]
) -> dict[str, float]:
    options = SearchOptions(k=10, rerank=reranker is not None)
    for query in queries[:5]:  # warm-up: sessions, SQLite pages, HNSW in memory
        await search(index, embedder, reranker, query, options)
    timings = []
    for query in queries:
        started = time.perf_counter()
        await search(index, embedder, reranker, query, options)
        timings.append(1000 * (time.perf_counter() - started))
    return {
        "queries": len(timings),
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(percentile(timings, 0.95), 1),
        "mean_ms": round(statistics.fmean(timings), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rerank-queries", type=int, default=30)
    parser.add_argument("--data", type=Path, default=SCIFACT, help="the BEIR SciFact folder")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ora-bench-query"))
    args = parser.parse_args()

    vault = args.work / f"vault-{args.chunks}"
    config = make_config(vault)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.system()}, python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "chunks": args.chunks,
    }
    if not (config.data / "ledger.sqlite").is_file():
        print(f"writing {args.chunks} notes into {vault}", file=sys.stderr)
        write_vault(vault, args.data, args.chunks)
        started = time.perf_counter()
        with open_index(config, writer=True, embedder=ProjectionEmbedder()) as index:
            report["index"] = index.reconcile()
        report["index_seconds"] = round(time.perf_counter() - started, 1)
    queries = list(load_queries(args.data / "queries.jsonl").values())[: args.queries]
    embedder = load_embedder(config)
    report["query_embedder"] = embedder.model_id
    with open_index(config, writer=False) as index:
        stats = index.stats()
        report["indexed_chunks"] = stats.get("chunks")
        report["no_rerank"] = asyncio.run(measure(index, embedder, None, queries))
        reranker, _reason = build_reranker(config)
        label = reranker.name if reranker else "random-weight MiniLM-L6 cross-encoder (proxy)"
        reranker = reranker or cross_encoder_proxy(args.work / "cross-encoder-proxy")
        report["rerank"] = {
            "model": label,
            **asyncio.run(measure(index, embedder, reranker, queries[: args.rerank_queries])),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
