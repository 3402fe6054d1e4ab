"""int8 vs fp32 all-MiniLM-L6-v2 on the same SciFact passages: throughput and dense quality.

    .venv/bin/python bench/bench_embed.py [--data /work/shared/eval/scifact] [--write]

Quality is dense-only nDCG@10 / Recall@100 of SciFact's 300 test queries over a sub-corpus:
every document judged for a test query plus OTHERS random others (seeded), identical for both
variants. Throughput is chunks per second on 2 threads, measured in interleaved rounds on the
same sample so that load from other processes hits both variants alike. The fp32 model is built
into a temporary folder. `--write` replaces the `## Embedding models` section of
docs/benchmarks.md. The full-corpus SciFact evaluation lives in bench/run_scifact.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from sidecar.models.build import build_fp32_embedder
from sidecar.models.embedder import AUTO_ORDER, Embedder, open_embedder
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.metrics import evaluate_run

ROOT = Path(__file__).resolve().parent.parent
OTHERS = 1000
THREADS = 2
SAMPLE = 192
ROUNDS = 3
HEADING = "## Embedding models"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _throughput(embedders: dict[str, Embedder], sample: list[str]) -> dict[str, float]:
    """Median chunks/s over interleaved rounds (int8, fp32, int8, fp32, …)."""
    times: dict[str, list[float]] = {name: [] for name in embedders}
    for _ in range(ROUNDS):
        for name, embedder in embedders.items():
            start = time.perf_counter()
            embedder.embed(sample)
            times[name].append(len(sample) / (time.perf_counter() - start))
    return {name: statistics.median(values) for name, values in times.items()}


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
    sample = rng.sample(passages, min(SAMPLE, len(passages)))

    models = Path(tempfile.mkdtemp(prefix="ora-bench-models-"))
    build_fp32_embedder(models)
    embedders = {v: open_embedder(v, models, threads=THREADS) for v in ("int8", "fp32")}
    out: dict[str, Any] = {"docs": len(subset), "queries": len(qids), "variants": {}}
    vectors: dict[str, np.ndarray[Any, Any]] = {}
    for name, embedder in embedders.items():
        start = time.perf_counter()
        vectors[name] = embedder.embed(passages)
        corpus_s = time.perf_counter() - start
        q = embedder.embed([queries[qid] for qid in qids])
        top = np.argsort(-(q @ vectors[name].T), axis=1)[:, :100]
        ranked = {qid: [subset[i].id for i in row] for qid, row in zip(qids, top, strict=True)}
        scores = evaluate_run(ranked, qrels)
        out["variants"][name] = {"model_id": embedder.model_id, "corpus_seconds": corpus_s,
                                 "corpus_chunks_per_s": len(passages) / corpus_s, **scores}
    for name, rate in _throughput(embedders, sample).items():
        out["variants"][name]["chunks_per_s"] = rate
    cos = (vectors["int8"] * vectors["fp32"]).sum(axis=1)
    out["cosine_int8_fp32"] = {"mean": float(cos.mean()), "min": float(cos.min())}
    return out


def render(result: dict[str, Any]) -> str:
    v = result["variants"]
    rows = "\n".join(
        f"| {name} | `{r['model_id']}` | {r['chunks_per_s']:.1f} | {r['corpus_chunks_per_s']:.1f} "
        f"| {r['ndcg@10']:.4f} | {r['recall@100']:.4f} |"
        for name, r in v.items()
    )
    cos = result["cosine_int8_fp32"]
    return f"""{HEADING}

`bench/bench_embed.py`, {dt.date.today().isoformat()}, {_cpu()}, {os.cpu_count()} cores shared
with other jobs (onnxruntime {THREADS} intra-op threads). SciFact test queries
({result['queries']}) over a sub-corpus of {result['docs']} documents: every judged document plus
{OTHERS} random others (seed 0); passages are title + abstract, read up to 256 tokens.
Throughput is the median of {ROUNDS} interleaved rounds on the same {SAMPLE} passages; the
whole-corpus column is one pass each (more exposed to load from other processes).

| variant | model_id | chunks/s | chunks/s (corpus pass) | nDCG@10 | Recall@100 |
|---|---|---|---|---|---|
{rows}

Agreement: cosine(int8, fp32) per passage, mean {cos['mean']:.4f}, min {cos['min']:.4f}.

Decision: `embed_model = auto` takes the first available of {', '.join(AUTO_ORDER)}.
{DECISION}
"""


# Written after reading the numbers above; kept here so a rerun of --write keeps the reasoning.
DECISION = "(pending)"


def write_section(text: str) -> None:
    """Replace (or append) our section of docs/benchmarks.md, leaving the others untouched."""
    path = ROOT / "docs" / "benchmarks.md"
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = old.find(HEADING + "\n")
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = old.find("\n## ", start + len(HEADING))
        new = old[:start] + text + (old[end + 1 :] if end >= 0 else "")
    path.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/eval/scifact"))
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    text = render(run(args.data))
    print(text)
    if args.write:
        write_section(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
