"""How many notes a cold words pass indexes again for their incoming-link text, and its CPU.

The count does not depend on the machine's load, as `bench_words_pass.py`'s timings do: every
note a batch's links name is indexed again once per call of `Bm25Store._relink` it is passed to.
A linked vault is generated (`gen_vault.py --realistic --links N`, seed 1), then each tree's
`Syncer.sync(..., lexical=True)` (a reconcile's words pass, no server, no embedding) is run on it
in a child process, interleaved, `--rounds` times. CPU is the child's own (all threads).

    python bench/bench_relinks.py [--notes 4000] [--links 6] [--rounds 3] [--compare DIR ...]
        [--instructions]

CPU seconds of a machine others share vary by ±15 % between rounds, as much as the differences
measured. `--instructions` counts instead the instructions of each tree's pass under valgrind's
callgrind (all threads; the same count on any load; each run ~70 times slower, so use
`--notes 1000 --rounds 1`): each child's count less that of a child that opens the index alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gen_vault import generate
from report import ROOT, interleaved

CHILD = """
import json, sys, tempfile, time
from pathlib import Path
from sidecar.index import open_index
from sidecar.index.bm25 import Bm25Store
from sidecar.models.embedder import open_embedder
from sidecar.settings import make_config
from sidecar.vault.scan import iter_note_paths

vault, models = map(Path, sys.argv[1:3])
relinked = [0]
real = getattr(Bm25Store, "_relink", None)  # None: a tree before the incoming-link text

def counted(self, engine, name, public, paths):
    relinked[0] += len(paths)
    return real(self, engine, name, public, paths)

if real is not None:
    Bm25Store._relink = counted
with tempfile.TemporaryDirectory() as data:
    index = open_index(make_config(vault, Path(data)), writer=True,
                       embedder=open_embedder("int8", models, defer=True))
    started = time.process_time()
    paths = set(iter_note_paths(vault))
    if sys.argv[3:] != ["open"]:
        index._need_writer().sync(paths, quick=True, recent_first=True, lexical=True)
    print(json.dumps({"relinked": relinked[0], "cpu_s": round(time.process_time() - started, 2)}))
    index.close()
"""


def _child(tree: Path, vault: Path, models: Path, *, counted: bool,
           open_only: bool = False) -> tuple[dict[str, Any], int | None]:
    """The child's report, and its instructions when `counted` (under callgrind)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    grind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] if counted else []
    # In the tree: `-c` puts the working directory first on sys.path, before PYTHONPATH.
    done = subprocess.run([*grind, sys.executable, "-c", CHILD, str(vault), str(models),
                           *(["open"] if open_only else [])], env=env, cwd=tree, check=True,
                          capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    return json.loads(done.stdout.splitlines()[-1]), int(found.group(1)) if found else None


def run(tree: Path, vault: Path, models: Path, *, counted: bool = False) -> dict[str, Any]:
    load = os.getloadavg()[0]
    out, instructions = _child(tree, vault, models, counted=counted)
    if instructions is not None:  # the pass's own: less what opening the index costs
        _, opening = _child(tree, vault, models, counted=True, open_only=True)
        out["instructions"] = instructions - (opening or 0)
    return {**out, "load": round(load, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=4000)
    parser.add_argument("--links", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", type=Path, nargs="*", default=[],
                        help="other checkouts to run too (e.g. git archive REV | tar -x -C DIR)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each pass's instructions under callgrind (slow)")
    args = parser.parse_args()
    trees = {"this": ROOT, **{str(tree): tree.resolve() for tree in args.compare}}
    with tempfile.TemporaryDirectory(prefix="ora-relinks-") as tmp:
        vault = Path(tmp) / "vault"
        generate(vault, args.notes, seed=1, realistic=True, links=args.links)
        results = interleaved(trees, args.rounds,
                              lambda label, tree: run(tree, vault, Path(tmp) / "models",
                                                      counted=args.instructions))
    summary = {label: {"relinked": runs[0]["relinked"],
                       "cpu_s_median": statistics.median(x["cpu_s"] for x in runs),
                       **({"instructions_median": statistics.median(
                           x["instructions"] for x in runs)} if args.instructions else {}),
                       "runs": runs} for label, runs in results.items()}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
