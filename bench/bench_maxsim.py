"""A local second stage tried on SciFact: late-interaction MaxSim over MiniLM token vectors.

    .venv/bin/python bench/bench_maxsim.py [--data ../shared/eval/scifact] [--top 20]

The default hybrid pool (fusion from `schema/ranking.json`) is re-scored for its top `--top`
candidates by `(1 − β) · fused/max + β · maxsim/max`, where maxsim = Σ over query tokens of the
best cosine to any passage token (ColBERT's MaxSim; MiniLM was not trained for it, which is what
this measures). β is chosen on a sample of `qrels/train.tsv`, reported on `qrels/test.tsv`.
It prints the markdown that stands under `## Retrieval` in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from report import SCIFACT, cpu_name

from sidecar.models.embedder import open_embedder
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.evaluate import beir_store, embed_corpus, first_stage, score_runs
from sidecar.retrieval.fusion import fusion_settings
from sidecar.retrieval.search import fuse_pool
from sidecar.retrieval.vector_cache import default_cache_dir
from sidecar.settings import make_config

BETAS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)
TRAIN_SAMPLE = 300


def maxsim(query: np.ndarray, passage: np.ndarray) -> float:
    """Σ_q max_d q·d over unit token vectors (Khattab & Zaharia, ColBERT, SIGIR 2020)."""
    return float((query @ passage.T).max(axis=1).sum())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SCIFACT)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()

    config = make_config(Path.cwd(), data=Path.cwd() / ".ora-bench")
    embedder = open_embedder(str(config.embed_model), config.models_path)
    docs = load_corpus(args.data / "corpus.jsonl")
    by_id = {d.id: d for d in docs}
    queries = load_queries(args.data / "queries.jsonl")
    train = load_qrels(args.data / "qrels" / "train.tsv")
    test = load_qrels(args.data / "qrels" / "test.tsv")
    sample = sorted(random.Random(0).sample(sorted(q for q in train if q in queries),
                                            TRAIN_SAMPLE))
    wanted = {q: queries[q] for q in [*sample, *(q for q in test if q in queries)]}
    fusion = fusion_settings()

    started = time.perf_counter()
    vectors = embed_corpus(docs, embedder, default_cache_dir())
    with beir_store(docs, vectors) as store:
        lists = first_stage(store, embedder, wanted, fusion.pool)
    pools = {q: fuse_pool({n: lists[n][q] for n in lists}, fusion.pool, fusion)
             for q in wanted}

    needed = sorted({d for pool in pools.values() for d, _ in pool[: args.top]})
    print(f"token vectors for {len(needed)} passages …", file=sys.stderr)
    t0 = time.perf_counter()
    tokens: dict[str, np.ndarray] = {}
    for s in range(0, len(needed), 64):
        batch = needed[s : s + 64]
        for doc_id, vecs in zip(batch, embedder.embed_tokens([by_id[d].passage for d in batch]),
                                strict=True):
            tokens[doc_id] = vecs.astype(np.float16)
    encode_s = time.perf_counter() - t0
    qtokens = dict(zip(wanted, embedder.embed_tokens(list(wanted.values())), strict=True))

    def run(qids: list[str], beta: float) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for q in qids:
            pool = pools[q]
            head, tail = pool[: args.top], pool[args.top :]
            fused = np.array([s for _, s in head])
            sims = np.array([maxsim(qtokens[q], tokens[d].astype(np.float32)) for d, _ in head])
            mixed = (1 - beta) * fused / fused.max() + beta * sims / sims.max()
            order = [head[i][0] for i in np.argsort(-mixed, kind="stable")]
            out[q] = order + [d for d, _ in tail]
        return out

    sample_qrels = {q: train[q] for q in sample}
    train_scores = {b: score_runs({"x": run(sample, b)}, sample_qrels)["x"]["ndcg@10"]
                    for b in BETAS}
    best = max(BETAS, key=lambda b: (train_scores[b], -b))
    test_ids = [q for q in test if q in queries]
    rows = [(b, train_scores[b], score_runs({"x": run(test_ids, b)}, test)["x"]) for b in BETAS]
    lines = [f"| {b:.1f}{' (chosen on train)' if b == best else ''} | {tr:.4f} | "
             f"{te['ndcg@10']:.4f} | {te['recall@100']:.4f} |" for b, tr, te in rows]
    text = f"""### Second stage: MaxSim over MiniLM token vectors

`bench/bench_maxsim.py`, {time.strftime('%Y-%m-%d')}, {cpu_name()}, embedder `{embedder.model_id}`.
The default pool's top {args.top} re-scored by `(1 − β) · fused/max + β · MaxSim/max`; β = 0 is
the default pipeline. β chosen on {TRAIN_SAMPLE} train queries (seed 0); test = 300 queries.
Encoding token vectors for {len(needed)} passages took {encode_s:.0f} s
({1000 * encode_s / len(needed):.0f} ms a passage: the per-query cost at search time would be
about {args.top} of those, unless token vectors were stored at index time).

| β | train nDCG@10 | test nDCG@10 | test Recall@100 |
|---|---:|---:|---:|
{chr(10).join(lines)}
"""
    print(text)
    print(f"total {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
