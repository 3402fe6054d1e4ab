"""What embedded Chroma 1.5 holds per stored vector, and whether any of its knobs bounds it
(issue 17: a cold index whose peak RSS does not grow with the vault).

Each variant runs in a fresh interpreter writing random 384-float unit vectors with a
120-word document and a few metadata keys per chunk (like the index's chunks), 500 per upsert,
and reports VmRSS after every `--step` vectors (glibc's free heap trimmed first):

- `one collection`: what the index does today;
- `closed and reopened`: the client closed (`client.close()`) and opened again after every step,
  as the idle release does;
- `N collections, cache of 1`: the vectors split into collections of `--step` each, with
  Chroma's HNSW cache sized for one index. Chroma sizes that cache from the open-file limit
  (RLIMIT_NOFILE // 5) and offers no setting; the probe lowers the value Chroma reads, in
  its own process only. Queries then touch every collection: their time is reported too.

    python bench/bench_chroma_memory.py [--vectors 40000] [--step 10000] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys

from report import ROOT, cpu_name, report_main

HEADING = "## Index memory: what Chroma holds per vector"
VARIANTS = ("one collection", "closed and reopened", "N collections, cache of 1")

_CHILD = """
import ctypes, json, shutil, sys, tempfile, time
import numpy as np
variant, total, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if variant == "N collections, cache of 1":
    import resource
    import chromadb.api.rust as rust
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    class OneIndex:  # what Chroma reads to size its HNSW cache: room for one index
        RLIMIT_NOFILE = resource.RLIMIT_NOFILE
        @staticmethod
        def getrlimit(key): return (5, hard)
    rust.resource = OneIndex
import chromadb
from chromadb.config import Settings
libc = ctypes.CDLL("libc.so.6")
def rss():
    libc.malloc_trim(0)
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
folder = tempfile.mkdtemp(prefix="ora-chroma-mem-")
settings = Settings(anonymized_telemetry=False)
def open_client():
    return chromadb.PersistentClient(path=folder, settings=settings)
def collection(client, name):
    return client.get_or_create_collection(
        name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
client = open_client()
rng = np.random.default_rng(0)
out = {"start": rss(), "steps": [], "probes": []}
text = " ".join(["word"] * 120)
for s in range(0, total, step):
    name = f"chunks-{s // step}" if variant.startswith("N collections") else "chunks"
    col = collection(client, name)
    for b in range(s, min(s + step, total), 500):
        v = rng.standard_normal((500, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        if b == s:
            out["probes"].append((name, f"{b}", v[0].tolist()))
        col.upsert(ids=[f"{b + i}" for i in range(500)], embeddings=v,
                   documents=[text] * 500,
                   metadatas=[{"path": f"notes/{b + i}.md", "archived": False, "type": "note",
                               "start": i, "end": i + 3} for i in range(500)])
    out["steps"].append(rss())
    if variant == "closed and reopened":
        client.close()
        client = open_client()
names = sorted({name for name, _, _ in out["probes"]})
started = time.perf_counter()
for name, first, vector in out["probes"]:  # every probe finds itself first, in its collection
    found = collection(client, name).query(query_embeddings=[vector], n_results=1)
    assert found["ids"][0][0] == first, (name, found["ids"])
out["query_round_ms"] = 1000 * (time.perf_counter() - started) / len(out["probes"]) * len(names)
del out["probes"]
client.close()
shutil.rmtree(folder, ignore_errors=True)
print(json.dumps(out))
"""


def run_variant(variant: str, vectors: int, step: int) -> tuple[float, list[float], float]:
    """(RSS at the start, RSS after each step, ms of a query round) of one fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _CHILD, variant, str(vectors), str(step)],
                          capture_output=True, text=True, env=env, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return float(out["start"]), [float(x) for x in out["steps"]], float(out["query_round_ms"])


def report(args: argparse.Namespace) -> str:
    step, vectors = args.step, args.vectors
    runs = {variant: run_variant(variant, vectors, step) for variant in VARIANTS}
    marks = list(range(step, vectors + 1, step))
    head = " | ".join(f"{m:,}" for m in marks)
    lines = [
        HEADING, "",
        f"`python bench/bench_chroma_memory.py --vectors {vectors} --step {step}` on "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {cpu_name()} (2 cores; RSS does not "
        "depend on the load). VmRSS (MiB) of a fresh process after each step of "
        f"{step:,} vectors (384 float32, a 120-word document and five metadata keys each):", "",
        f"| variant | start | {head} | per added vector | a query round |",
        "|---|---:|" + "---:|" * len(marks) + "---:|---:|",
    ]
    for variant, (start, steps, query_ms) in runs.items():
        per = (steps[-1] - steps[0]) * 1024 * 1024 / (vectors - step) if len(steps) > 1 else 0.0
        cells = " | ".join(f"{x:.0f}" for x in steps)
        lines.append(f"| {variant} | {start:.0f} | {cells} | {per:,.0f} B | {query_ms:.1f} ms |")
    lines += ["", "A query round asks every collection once (one collection: one query).", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vectors", type=int, default=40_000)
    parser.add_argument("--step", type=int, default=10_000)
    return report_main(parser, HEADING, report)


if __name__ == "__main__":
    sys.exit(main())
