"""How many searches of a reader in another process fail while a writer rebuilds a BM25 store.

Free-running, as `tests/index/test_bm25_swap.py` is not (it pauses the writer at each step):
this process writes a store of 8 notes, then rewrites one note `--rebuilds` times with
`ranking.json` `bm25.max_deleted_share` at 0, so every write rebuilds the store's engines
(`Bm25Store._rebuild`); meanwhile a reader process searches in a loop, by a store it keeps open
and by one opened afresh each time. A search fails when it raises (IndexDamaged) or misses the
note it must find. Counts, not timings: they do not depend on the machine's load, though how
often a reader meets a rebuild's instants does.

    python bench/bench_bm25_swap.py [--rebuilds 200] [--compare DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from report import ROOT

CHILD = """
import dataclasses, json, subprocess, sys, tempfile, time
from pathlib import Path
from sidecar import schema as schema_module
from sidecar.index import bm25 as bm25_module
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow

READER = '''
import json, sys
from pathlib import Path
from sidecar.index.bm25 import Bm25Store
path, stop = Path(sys.argv[1]), Path(sys.argv[2])
kept, searches, failed = Bm25Store(path), 0, []
def found(store):
    try:
        hits = store.search("ns", "orchard", 10, private=False, include_archived=False)
        return "n3" in [c for c, _ in hits] or "missed"
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc)[:160]}"
print("ready", flush=True)
while not stop.exists():
    fresh = Bm25Store(path)
    for answer in (found(fresh), found(kept)):
        searches += 1
        if answer is not True:
            failed.append(answer)
    fresh.close()
print(json.dumps({"searches": searches, "failed": len(failed), "first": failed[:2]}))
'''

original = schema_module.get_schema
schema_module.get_schema = lambda: dataclasses.replace(original(), bm25_max_deleted=0.0)
bm25_module.get_schema = schema_module.get_schema
words = ["harbour", "lantern", "meadow", "orchard", "quarry", "saddle", "thimble", "violet"]

def rows(version):
    out = [SparseRow(f"n{i}", f"{w}.md", False, f"The {w} note, about the {w}.", "", "")
           for i, w in enumerate(words)]
    out[0] = SparseRow("n0", "harbour.md", False, f"Harbour, written {version} times.", "", "")
    return out

with tempfile.TemporaryDirectory() as data:
    path, stop = Path(data) / "bm25.sqlite", Path(data) / "stop"
    writer = Bm25Store(path)
    writer.create("ns")
    writer.replace("ns", deletes={}, inserts={False: rows(0)})
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(stop)],
                              stdout=subprocess.PIPE, text=True)
    reader.stdout.readline()
    started = time.process_time()
    for version in range(1, int(sys.argv[1]) + 1):
        writer.replace("ns", deletes={}, inserts={False: rows(version)[:1]})
    cpu = time.process_time() - started
    stop.touch()
    found = json.loads(reader.stdout.read().splitlines()[-1])
    reader.wait()
    writer.close()
print(json.dumps({**found, "writer_cpu_s": round(cpu, 2)}))
"""


def run(tree: Path, rebuilds: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    load = os.getloadavg()[0]
    # In the tree: `-c` puts the working directory first on sys.path, before PYTHONPATH.
    out = subprocess.run([sys.executable, "-c", CHILD, str(rebuilds)], env=env, cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    return {**json.loads(out.splitlines()[-1]), "load": round(load, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuilds", type=int, default=200)
    parser.add_argument("--compare", type=Path, nargs="*", default=[],
                        help="other checkouts to run too (e.g. git archive REV | tar -x -C DIR)")
    args = parser.parse_args()
    trees = {"this": ROOT, **{str(tree): tree.resolve() for tree in args.compare}}
    print(json.dumps({label: run(tree, args.rebuilds) for label, tree in trees.items()},
                     indent=2))


if __name__ == "__main__":
    main()
