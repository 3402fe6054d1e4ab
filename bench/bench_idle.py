"""Where an idle sidecar's memory goes, and what the idle release gives back (issue 17).

Over an indexed vault (`bench_rss.py --root DIR` leaves them in DIR/vault-N, DIR/data-N), in one
fresh process, as `ora serve` opens them: RSS (VmRSS) after the imports, the embedder, the index
opened as the writer, the start-up reconcile (nothing changed), a first and a second search;
then after releasing the embedder's session and the Chroma client (`idle_release_s`: each with a
heap trim), and after the next search, which reloads both (its wall time).

    python bench/bench_idle.py --root DIR --sizes 1000 4000 16000 [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from report import ROOT, cpu_name, report_main

HEADING = "## Index memory: idle"
STEPS = ("imports", "embedder", "index", "reconciled", "searched", "embedder released",
         "Chroma released", "searched again")
QUERIES = ("how do tides follow the moon", "spaced repetition and memory",
           "a sourdough starter and its flour")

# One fresh interpreter per vault: what it prints on stdout is the measurement.
_CHILD = """
import json, sys, time
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
out = {"imports": rss()}
from sidecar.index import open_index
from sidecar.heap import release_free_heap
from sidecar.models.embedder import load_embedder
from sidecar.retrieval.search import SearchOptions, search_sync
from sidecar.settings import make_config
vault, data, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
config = make_config(vault, data)
out["imports"] = rss()
embedder = load_embedder(config); out["embedder"] = rss()
index = open_index(config, writer=True, embedder=embedder); out["index"] = rss()
out["chunks"] = index.reconcile()["chunks"]; out["reconciled"] = rss()
def timed(query):
    started = time.perf_counter()
    search_sync(index, embedder, None, query, SearchOptions(k=10, rerank=False))
    return 1000 * (time.perf_counter() - started)
out["first_ms"] = timed(queries[0]); out["warm_ms"] = timed(queries[1]); out["searched"] = rss()
assert embedder.release(0.0); release_free_heap(); out["embedder released"] = rss()
assert index.chroma.release(0.0); release_free_heap(); out["Chroma released"] = rss()
out["reload_ms"] = timed(queries[2]); out["searched again"] = rss()
index.close()
print(json.dumps(out))
"""


def measure(root: Path, notes: int) -> dict[str, Any]:
    vault, data = root / f"vault-{notes}", root / f"data-{notes}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(vault), str(data), json.dumps(QUERIES)],
        env=env, capture_output=True, text=True, check=True)  # fmt: skip
    result: dict[str, Any] = {"notes": notes, **json.loads(done.stdout.splitlines()[-1])}
    print(result, file=sys.stderr)
    return result


def report(args: argparse.Namespace) -> str:
    runs = [measure(args.root, n) for n in args.sizes]
    head = "| step | " + " | ".join(f"{r['notes']} notes, {r['chunks']} chunks" for r in runs)
    rows = [f"| {step} | " + " | ".join(f"{r[step]:.0f}" for r in runs) + " |" for step in STEPS]
    timings = [
        f"| {label} | " + " | ".join(f"{r[key]:.0f}" for r in runs) + " |"
        for label, key in (("first search (ms)", "first_ms"), ("warm search (ms)", "warm_ms"),
                           ("search after the release (ms)", "reload_ms"))
    ]
    return f"""{HEADING}

`bench/bench_idle.py`, {dt.date.today().isoformat()}, {cpu_name()}, load average
{os.getloadavg()[0]:.1f}: RSS (MiB) of one process opening an indexed realistic vault as
`ora serve` does, step by step (searches without re-ranking, k 10).

{head} |
|---|{"---:|" * len(runs)}
{chr(10).join(rows)}
{chr(10).join(timings)}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000])
    return report_main(parser, HEADING, report)


if __name__ == "__main__":
    raise SystemExit(main())
