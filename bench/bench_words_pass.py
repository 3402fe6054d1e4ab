"""The words pass of a cold `ora serve` (issue 29): wall and the server's CPU until the API answers
and until every note is findable by its words, with no searches to share the cores with.

A vault with a real vault's length mix is generated (`gen_vault.py --realistic`, seed 1), then a
cold `ora serve` is started over it (no background contradiction scan) and `GET /v1/status` is
read every 0.2 s until the reconcile leaves its words phase (`scan`; the first `embed` progress
comes after the embedding pass's first batch, which is counted too). With `--compare OLD_TREE`
(e.g. `git archive main | tar -x -C /tmp/old`) the other tree is run too, interleaved, `--rounds`
times each. CPU is the server's own (user + system, /proc), load the 1-minute average.

    python bench/bench_words_pass.py [--notes 4000] [--compare DIR] [--rounds 2] [--links N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_findable import _call, _cpu_s, serving
from gen_vault import generate
from report import ROOT, interleaved


def run(vault: Path, data: Path, tree: Path) -> dict[str, Any]:
    shutil.rmtree(data, ignore_errors=True)
    load = os.getloadavg()[0]
    with serving(vault, data, data.with_suffix(".log"), tree) as (proc, port, token, started):
        out: dict[str, Any] = {"listening_s": round(time.monotonic() - started, 2),
                               "listening_cpu_s": _cpu_s(proc.pid)}
        while _call(port, token, "GET", "/v1/status")["reconcile"]["phase"] in ("pending", "scan"):
            time.sleep(0.2)
        out["words_s"] = round(time.monotonic() - started, 2)
        out["words_cpu_s"] = _cpu_s(proc.pid)
        out["load"] = [round(load, 1), round(os.getloadavg()[0], 1)]
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=4000)
    parser.add_argument("--compare", type=Path, help="another checkout to run too")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--links", type=int, default=0,
                        help="wikilinks at the end of each note (gen_vault.py --links)")
    args = parser.parse_args()
    trees = {"this": ROOT, **({"other": args.compare.resolve()} if args.compare else {})}
    with tempfile.TemporaryDirectory(prefix="ora-words-") as tmp:
        vault = Path(tmp) / "vault"
        generate(vault, args.notes, seed=1, realistic=True, links=args.links)
        results = interleaved(trees, args.rounds,
                              lambda label, tree: run(vault, Path(tmp) / f"data-{label}", tree))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
