"""Latency of local re-ranking per query, by pool size, passage length and batching.

    .venv/bin/python bench/bench_rerank.py [--rounds 3] [--data DIR] [--work DIR] [--write]

A random-weight cross-encoder of ms-marco-MiniLM-L-6-v2's exact shape (6 layers, 384 wide; it
costs what the real model costs per token) scores SciFact queries against pools of SciFact
abstracts, through the real `OnnxCrossEncoder`. Every configuration sees the same queries and
pools, interleaved round by round (the order rotates), so a load change on the shared machine
hits all of them alike; wall and process-CPU milliseconds are both reported, with the load
average. A last row scores a repeated query (every score from the cache).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

from bench_query import cross_encoder_proxy
from report import SCIFACT, cpu_name, percentile, report_main

from sidecar.models.reranker import LocalRerankLimits, OnnxCrossEncoder, rerank_limits
from sidecar.retrieval.beir import load_corpus, load_queries

HEADING = "## Re-ranking latency"
# (label, pool, max_tokens, token_budget or None for batches of 32)
CONFIGS = (
    ("before: pool 100, 512 tokens, batches of 32", 100, 512, None),
    ("pool 30, 256 tokens, batches of 32", 30, 256, None),
    ("pool 30, 256 tokens, budget 4096", 30, 256, 4096),
    ("pool 30, 128 tokens, budget 4096", 30, 128, 4096),
    ("pool 20, 160 tokens, budget 4096", 20, 160, 4096),
    ("pool 20, 128 tokens, budget 4096", 20, 128, 4096),
)


def run(rounds: int, data: Path, work: Path) -> dict[str, Any]:
    folder = work / "cross-encoder-proxy"
    cross_encoder_proxy(folder)
    models = {label: OnnxCrossEncoder(folder, limits=LocalRerankLimits(pool, tokens, budget, 0))
              for label, pool, tokens, budget in CONFIGS}
    docs = [d.passage for d in load_corpus(data / "corpus.jsonl")]
    queries = list(load_queries(data / "queries.jsonl").values())
    rng = random.Random(11)
    wall: dict[str, list[float]] = {label: [] for label in models}
    cpu: dict[str, list[float]] = {label: [] for label in models}
    warm = next(iter(models.values()))
    warm.score("warm up", docs[:8])
    for r in range(rounds):
        query, pool = rng.choice(queries), rng.sample(docs, 100)
        order = list(CONFIGS[r % len(CONFIGS):] + CONFIGS[: r % len(CONFIGS)])
        for label, size, _tokens, _budget in order:
            started, cpu_started = time.perf_counter(), time.process_time()
            models[label].score(query, pool[:size])
            wall[label].append(1000 * (time.perf_counter() - started))
            cpu[label].append(1000 * (time.process_time() - cpu_started))
    cached = OnnxCrossEncoder(folder, limits=rerank_limits())
    query, pool = queries[0], docs[: rerank_limits().pool]
    cached.score(query, pool)
    hits = []
    for _ in range(rounds):
        started = time.perf_counter()
        cached.score(query, pool)
        hits.append(1000 * (time.perf_counter() - started))
    rows = [{"config": label, "p50_ms": round(statistics.median(wall[label])),
             "max_ms": round(max(wall[label])), "cpu_p50_ms": round(statistics.median(cpu[label]))}
            for label in models]
    rows.append({"config": f"repeated query, pool {len(pool)} (cache)",
                 "p50_ms": round(statistics.median(hits), 1),
                 "max_ms": round(percentile(hits, 1.0), 1), "cpu_p50_ms": None})
    return {"rows": rows, "rounds": rounds, "load": os.getloadavg()}


def render(result: dict[str, Any]) -> str:
    load = " / ".join(f"{x:.2f}" for x in result["load"])
    lines = [
        HEADING, "",
        f"`python bench/bench_rerank.py --rounds {result['rounds']}` on {date.today()}, "
        f"{cpu_name()} ({os.cpu_count()} cores, shared), load average {load} at the end; a "
        "random-weight cross-encoder of ms-marco-MiniLM-L-6-v2's shape (the real model's cost) "
        "scoring SciFact abstracts (~250 tokens each) against SciFact queries, one query per "
        "round per configuration, configurations interleaved.", "",
        "| configuration | p50 ms (wall) | max ms | p50 CPU ms |", "|---|---:|---:|---:|",
    ]
    for row in result["rows"]:
        cpu = "" if row["cpu_p50_ms"] is None else str(row["cpu_p50_ms"])
        lines.append(f"| {row['config']} | {row['p50_ms']} | {row['max_ms']} | {cpu} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=SCIFACT)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ora-bench-rerank"))
    return report_main(parser, HEADING, lambda args: render(run(args.rounds, args.data, args.work)))


if __name__ == "__main__":
    raise SystemExit(main())
