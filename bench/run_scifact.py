"""Tune fusion on SciFact's train qrels, then report every mode on the test qrels.

    .venv/bin/python bench/run_scifact.py [--data ../shared/eval/scifact] [--write]

The first stage (dense via Chroma, BM25 via tantivy, both the index's own stores) runs once
per query, deep enough for every setting tried; the sweep then re-fuses those lists. Settings are
chosen on `qrels/train.tsv` only; `--write` stores the winner in `schema/ranking.json`. Corpus
vectors come from the on-disk cache that `ora eval` shares.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from report import SCIFACT, cpu_name

from sidecar.models.embedder import open_embedder
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.evaluate import (
    Lists,
    beir_store,
    embed_corpus,
    first_stage,
    hybrid_run,
    runs,
    score_runs,
)
from sidecar.retrieval.fusion import FusionSettings, fusion_settings
from sidecar.retrieval.vector_cache import default_cache_dir
from sidecar.schema import schema_dir
from sidecar.settings import make_config

RRF_K = (1, 2, 3, 5, 10, 20, 30, 45, 60, 100)
DENSE_WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
CONVEX_ALPHA = (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
# Pools above 100 gained < 0.003 nDCG@10 on train in a first sweep but cost linearly in
# candidate fetching and re-ranking time, so the latency budget caps the pool at 100.
POOLS = (50, 100)
DEPTH = max(POOLS)


def _subset(lists: Lists, qids: set[str]) -> Lists:
    return {name: {q: r for q, r in per.items() if q in qids} for name, per in lists.items()}


def candidates() -> list[FusionSettings]:
    grid = [
        FusionSettings("rrf", k, {"dense": w, "bm25": 1.0}, pool)
        for k, w, pool in itertools.product(RRF_K, DENSE_WEIGHTS, POOLS)
    ]
    grid += [
        FusionSettings(method, 0, {"dense": a, "bm25": round(1 - a, 2)}, pool)
        for method, a, pool in itertools.product(
            ("convex_minmax", "convex_max"), CONVEX_ALPHA, POOLS
        )
    ]
    return grid


def sweep(
    lists: Lists, qrels: dict[str, dict[str, int]]
) -> list[tuple[float, float, FusionSettings]]:
    """(nDCG@10, Recall@100, settings) for every candidate, best first."""
    scored = []
    for settings in candidates():
        s = score_runs({"hybrid": hybrid_run(lists, settings)}, qrels)["hybrid"]
        scored.append((s["ndcg@10"], s["recall@100"], settings))
    scored.sort(key=lambda t: (-t[0], -t[1]))
    return scored


def write_schema(best: FusionSettings) -> None:
    """Store the tuned values, keeping the file's one-key-per-line layout."""
    path = schema_dir() / "ranking.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    # `convex` ignores k; the RRF constant already there stays for anyone switching back.
    k = best.k if best.method == "rrf" else data["fusion"]["k"]
    data["fusion"] = {"method": best.method, "k": k, "weights": best.weights}
    data["candidate_pool"] = best.pool
    lines = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
             for key, value in data.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SCIFACT)
    parser.add_argument("--write", action="store_true", help="store the winner in schema/")
    parser.add_argument("--json", type=Path, help="also write all numbers to this file")
    args = parser.parse_args()

    config = make_config(Path.cwd(), data=Path.cwd() / ".ora-bench")
    embedder = open_embedder(str(config.embed_model), config.models_path)
    docs = load_corpus(args.data / "corpus.jsonl")
    queries = load_queries(args.data / "queries.jsonl")
    train = load_qrels(args.data / "qrels" / "train.tsv")
    test = load_qrels(args.data / "qrels" / "test.tsv")
    wanted = {q: queries[q] for q in {*train, *test} if q in queries}

    started = time.perf_counter()
    vectors = embed_corpus(docs, embedder, default_cache_dir())
    with beir_store(docs, vectors) as store:
        t0 = time.perf_counter()
        lists = first_stage(store, embedder, wanted, DEPTH)
        per_query_ms = 1000 * (time.perf_counter() - t0) / len(wanted)

    ranked = sweep(_subset(lists, set(train)), train)
    best = ranked[0][2]
    print("train top 10:", file=sys.stderr)
    for ndcg, recall, s in ranked[:10]:
        print(f"  {ndcg:.4f} {recall:.4f} {s.method} k={s.k} w={s.weights} pool={s.pool}",
              file=sys.stderr)
    test_lists = _subset(lists, set(test))
    baseline = FusionSettings("rrf", 60, {"dense": 1.0, "bm25": 1.0}, 100)
    best_rrf = next(s for _n, _r, s in ranked if s.method == "rrf")
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {cpu_name()}, python "
                   f"{platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "embedder": embedder.model_id,
        "first_stage_ms_per_query": round(per_query_ms, 1),
        "seconds": round(time.perf_counter() - started, 1),
        "tuned_on_train": {"method": best.method, "k": best.k, "weights": best.weights,
                           "candidate_pool": best.pool, "train_ndcg@10": ranked[0][0]},
        "schema_before": vars(fusion_settings()),
        "test": {},
    }
    report["best_rrf_on_train"] = vars(best_rrf)
    for name, settings in (
        ("rrf k=60 (untuned)", baseline), ("best rrf on train", best_rrf), ("tuned", best)
    ):
        mode_runs, _ = runs(test_lists, settings, ["bm25", "dense", "hybrid"])
        report["test"][name] = score_runs(mode_runs, test)
    if args.write:
        write_schema(best)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
