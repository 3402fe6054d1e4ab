"""Cost of conversation memory: `remember()` per turn and `context()` per question.

    .venv/bin/python bench/bench_memory.py [--turns 500] [--queries 50]

A conversation of `--turns` turns (sentences drawn from a fixed word list, so the run is
repeatable) is written through the real log (SQLite), embedder (int8 MiniLM) and Chroma
collection; then `context()` is timed for `--queries` questions with no language model (window +
recall, no summary), the per-question cost of memory before an answer is generated.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from report import percentile

from sidecar.index import open_index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.choice import load_embedder
from sidecar.settings import make_config

WORDS = (
    "bread", "starter", "yeast", "flour", "bicycle", "chain", "gear", "tax", "form", "broker",
    "python", "class", "frozen", "memory", "recall", "review", "card", "interval", "garden",
    "tomato", "water", "sun", "river", "bridge", "stone",
)


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24))) + "."


def _ms(samples: list[float]) -> str:
    p95 = percentile(samples, 0.95)
    return f"median {statistics.median(samples) * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms"


async def main(turns: int, queries: int) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "vault").mkdir()
        config = make_config(Path(tmp) / "vault", embed_model="int8", llm_url="")
        embedder = load_embedder(config)
        with open_index(config, writer=True, embedder=embedder) as index:
            store = open_store(config.data)
            memory = ConversationMemory(config, store, Episodic(index.chroma.client, "default"),
                                        embedder, "bench")
            writes = []
            for i in range(turns):
                start = time.perf_counter()
                memory.remember("user" if i % 2 == 0 else "assistant", _sentence(rng))
                writes.append(time.perf_counter() - start)
            reads = []
            for _ in range(queries):
                start = time.perf_counter()
                await memory.context(_sentence(rng))
                reads.append(time.perf_counter() - start)
            store.close()
    print(f"remember(): {_ms(writes)} over {turns} turns")
    print(f"context():  {_ms(reads)} over {queries} questions, {turns} turns stored")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.queries))
