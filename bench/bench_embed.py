"""int8 vs fp32 all-MiniLM-L6-v2 on the same SciFact passages: throughput and dense quality.

    .venv/bin/python bench/bench_embed.py [--data ../shared/eval/scifact] [--write]

Quality is dense-only nDCG@10 / Recall@100 of SciFact's 300 test queries over a sub-corpus:
every document judged for a test query plus OTHERS random others (seeded), identical for both
variants. Throughput is chunks per second (wall and CPU) on 2 threads, the two variants
embedding the sub-corpus in alternating blocks so that load from other processes hits both
alike. The fp32 model is built into a temporary folder. `--write` replaces the
`## Embedding models` section of docs/benchmarks.md. The full-corpus SciFact evaluation
lives in bench/run_scifact.py.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from report import SCIFACT, cpu_name, section_main

from sidecar.models.build import build_fp32_embedder
from sidecar.models.embedder import AUTO_ORDER, Embedder, open_embedder
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.metrics import evaluate_run

OTHERS = 1000
THREADS = 2
BLOCK = 64
HEADING = "## Embedding models"


def _embed_interleaved(
    embedders: dict[str, Embedder], passages: list[str]
) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, dict[str, float]]]:
    """Every passage embedded by every variant, block by block in turn, so that load from
    other processes falls on both alike; wall and CPU seconds are summed per variant."""
    parts: dict[str, list[np.ndarray[Any, Any]]] = {name: [] for name in embedders}
    clock = {name: {"wall": 0.0, "cpu": 0.0} for name in embedders}
    for start in range(0, len(passages), BLOCK):
        block = passages[start : start + BLOCK]
        for name, embedder in embedders.items():
            wall, cpu = time.perf_counter(), time.process_time()
            parts[name].append(embedder.embed(block))
            clock[name]["wall"] += time.perf_counter() - wall
            clock[name]["cpu"] += time.process_time() - cpu
    return {name: np.concatenate(p) for name, p in parts.items()}, clock


def run(data: Path) -> dict[str, Any]:
    docs = load_corpus(data / "corpus.jsonl")
    queries = load_queries(data / "queries.jsonl")
    qrels = load_qrels(data / "qrels" / "test.tsv")
    judged = {doc for rels in qrels.values() for doc in rels}
    rng = random.Random(0)
    others = [d for d in docs if d.id not in judged]
    subset = [d for d in docs if d.id in judged] + rng.sample(others, min(OTHERS, len(others)))
    passages = [d.passage for d in subset]
    qids = sorted(qrels)

    models = Path(tempfile.mkdtemp(prefix="ora-bench-models-"))
    build_fp32_embedder(models)
    embedders = {v: open_embedder(v, models, threads=THREADS) for v in ("int8", "fp32")}
    vectors, clock = _embed_interleaved(embedders, passages)
    out: dict[str, Any] = {"docs": len(subset), "queries": len(qids), "variants": {}}
    for name, embedder in embedders.items():
        q = embedder.embed([queries[qid] for qid in qids])
        top = np.argsort(-(q @ vectors[name].T), axis=1)[:, :100]
        ranked = {qid: [subset[i].id for i in row] for qid, row in zip(qids, top, strict=True)}
        out["variants"][name] = {
            "model_id": embedder.model_id,
            "chunks_per_s": len(passages) / clock[name]["wall"],
            "chunks_per_cpu_s": len(passages) / clock[name]["cpu"],
            **evaluate_run(ranked, qrels),
        }
    cos = (vectors["int8"] * vectors["fp32"]).sum(axis=1)
    out["cosine_int8_fp32"] = {"mean": float(cos.mean()), "min": float(cos.min())}
    return out


def render(result: dict[str, Any]) -> str:
    v = result["variants"]
    rows = "\n".join(
        f"| {name} | `{r['model_id']}` | {r['chunks_per_s']:.1f} | {r['chunks_per_cpu_s']:.1f} "
        f"| {r['ndcg@10']:.4f} | {r['recall@100']:.4f} |"
        for name, r in v.items()
    )
    cos = result["cosine_int8_fp32"]
    return f"""{HEADING}

`bench/bench_embed.py`, {dt.date.today().isoformat()}, {cpu_name()}, {os.cpu_count()} cores
(onnxruntime {THREADS} intra-op threads, load average {os.getloadavg()[0]:.1f} at the end).
SciFact test queries ({result['queries']}) over a sub-corpus of {result['docs']} documents: every
judged document plus {OTHERS} random others (seed 0); passages are title + abstract, read up to
256 tokens. Both variants embed the sub-corpus in alternating blocks of {BLOCK}; chunks per
CPU-second (process time) is the steadier figure when other jobs share the cores.

| variant | model_id | chunks/s (wall) | chunks per CPU-s | nDCG@10 | Recall@100 |
|---|---|---|---|---|---|
{rows}

Agreement: cosine(int8, fp32) per passage, mean {cos['mean']:.4f}, min {cos['min']:.4f}.

Decision: `embed_model = auto` takes the first available of {', '.join(AUTO_ORDER)}.
{DECISION}
"""


# Written after reading the numbers above; kept here so a rerun of --write keeps the reasoning.
DECISION = """\
fp32 first. On this machine it embeds about a quarter more chunks per second than int8
(dynamic int8 quantisation buys no speed from onnxruntime's kernels on this CPU), its nDCG@10
equals int8's within noise (0.004 apart on 300 queries, same Recall@100), and it is the
reference model exactly (cosine > 0.9999 to sentence-transformers on the same weights,
tests/models/test_build.py). int8 stays the fallback until `ora models build` has run: it ships
ready-made inside a package and is 4× smaller (23 MB against 90 MB). An earlier run with other
jobs on the two cores (load average 7–13) gave a fifth of these wall-clock rates and the same
ratio per CPU-second (8.0 vs 9.9)."""


def main() -> int:
    return section_main(__doc__, HEADING, lambda data: render(run(data)), "--data", type=Path,
                        default=SCIFACT)


if __name__ == "__main__":
    raise SystemExit(main())
