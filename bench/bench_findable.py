"""Findable at once (issue 29): how soon after `ora serve` starts is every note found by its words.

For each size a vault with a real vault's length mix is generated (`gen_vault.py --realistic`,
seed 1, a cold data folder), and a sample of its retrievable notes is chosen, evenly over the
vault's paths, each with a word that no other note holds (a word of its own text when there is
one, often the number in a generated note's title; else a made-up word is appended to the note
before the run, its modification time kept, and counted as `planted`). Then
`ora serve` is started (no background contradiction scan) and, from the moment it is launched:

- `listening`: the API answers;
- `findable`: every sampled note has been returned by `POST /v1/search` for its word (k 10, no
  re-ranking, private mode so private notes count too); the notes not found yet are searched
  for again, one after another, every POLL_PAUSE_S, until found (the searches cost CPU too);
- `full`: the start-up reconcile is done (every note embedded), from `GET /v1/status`;
  `--words-only` stops once everything is findable (a 50,000-note embedding takes hours).

Also the server's CPU seconds at those moments (user + system, /proc), its peak RSS (VmHWM) and
the load average. Results go to the `## Findable at once` section of docs/benchmarks.md.

    python bench/bench_findable.py [--sizes 1000 4000] [--sample 40] [--words-only]
        [--root DIR] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from bench_rss import proc_status
from gen_vault import generate
from report import ROOT, cpu_name, write_section

from sidecar.schema import get_schema

ORA = str(Path(sys.executable).parent / "ora")
_WORD = re.compile(r"\w+")
# Between rounds of searches: the searches share the two cores with the indexing they time.
POLL_PAUSE_S = 0.5
HEADER = (
    "| notes | sampled | API up | median found | every note found | server CPU then "
    "| phase then | full index | server CPU | chunks | peak RSS (MiB) | load |\n"
    "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"
)
_TYPE = re.compile(r'^type: "?([\w-]+)"?$', re.MULTILINE)


def _words(text: str) -> set[str]:
    body = text.split("\n---\n", 1)[-1]  # the frontmatter's words are not the note's
    return {w.lower() for w in _WORD.findall(body)}


def choose(vault: Path, paths: list[str], sample: int) -> tuple[dict[str, str], int]:
    """{path: a word only that note holds} for `sample` retrievable notes spread over `paths`;
    and how many words had to be planted."""
    retrievable = get_schema().retrievable_types
    texts = {p: (vault / p).read_text(encoding="utf-8") for p in paths}
    df = Counter(w for text in texts.values() for w in _words(text))
    candidates = sorted(p for p, text in texts.items()
                        if (m := _TYPE.search(text)) and m.group(1) in retrievable)
    step = max(1, len(candidates) // sample)
    chosen: dict[str, str] = {}
    planted = 0
    for n, path in enumerate(candidates[::step][:sample]):
        # Letters first; a generated note's own word is often the number in its title.
        own = sorted((w for w in _words(texts[path]) if df[w] == 1 and len(w) >= 5),
                     key=lambda w: (w.isdigit(), w))
        if own:
            chosen[path] = own[0]
            continue
        word = f"zqvx{n:04d}marker"
        target = vault / path
        stamp = target.stat()
        with target.open("a", encoding="utf-8") as f:
            f.write(f"\nA word of its own: {word}.\n")
        # Its modification time kept: the index takes the newest notes first.
        os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        chosen[path], planted = word, planted + 1
    return chosen, planted


def _cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _call(port: int, token: str, method: str, route: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{route}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def run(root: Path, notes: int, sample: int, words_only: bool) -> dict[str, Any]:
    vault, data = root / f"vault-{notes}", root / f"data-{notes}"
    paths = generate(vault, notes, seed=1, realistic=True)
    words, planted = choose(vault, paths, sample)
    log = root / f"serve-{notes}.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ORA_SCAN_DELAY": "-1"}
    load = os.getloadavg()[0]
    started = time.monotonic()
    with log.open("wb") as err:
        proc = subprocess.Popen([ORA, "serve", str(vault), "--data", str(data), "--port", "0"],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
    out: dict[str, Any] = {"notes": notes, "sample": len(words), "planted": planted,
                           "load_start": load}
    try:
        while not (ports := re.findall(r"listening on http://[^ ]*:(\d+)", log.read_text())):
            if proc.poll() is not None:
                raise SystemExit(f"ora serve did not start:\n{log.read_text()}")
            time.sleep(0.1)
        out["listening_s"] = time.monotonic() - started
        port, token = int(ports[0]), (data / "token").read_text().strip()
        waiting = dict(words)
        found_at: list[float] = []
        while waiting:
            for path, word in list(waiting.items()):
                doc = _call(port, token, "POST", "/v1/search",
                            {"query": word, "k": 10, "rerank": False, "private": True,
                             "include_archived": True})
                if any(r["path"] == path for r in doc["results"]):
                    del waiting[path]
                    found_at.append(time.monotonic() - started)
            if time.monotonic() - started > 7200:
                raise SystemExit(f"not findable after 2 h: {sorted(waiting)}")
            time.sleep(POLL_PAUSE_S)
        out["findable_s"] = max(found_at)
        out["median_found_s"] = sorted(found_at)[len(found_at) // 2]
        out["findable_cpu_s"] = _cpu_s(proc.pid)
        status = _call(port, token, "GET", "/v1/status")
        out["phase_when_findable"] = status["reconcile"]["phase"]
        if not words_only:
            while True:
                status = _call(port, token, "GET", "/v1/status")
                if not status["reconcile"]["running"] and status["reconcile"]["phase"] == "done":
                    break
                time.sleep(1.0)
            out["full_s"] = time.monotonic() - started
            out["full_cpu_s"] = _cpu_s(proc.pid)
            out["chunks"] = status["chunks"]
        out["files"] = status["files"]
        out["hwm_mib"] = proc_status(proc.pid).get("VmHWM", 0)
        out["load_end"] = os.getloadavg()[0]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    print(f"{notes} notes: {out}", file=sys.stderr)
    return out


def markdown(r: dict[str, Any]) -> str:
    def cell(row: dict[str, Any], key: str, unit: str = " s") -> str:
        return f"{row[key]:.0f}{unit}" if key in row else "– (words only)"

    rows = [
        f"| {s['notes']} | {s['sample']} ({s['planted']} planted) | {s['listening_s']:.1f} s "
        f"| {s['median_found_s']:.1f} s | **{s['findable_s']:.1f} s** "
        f"| {s['findable_cpu_s']:.0f} s | {s['phase_when_findable']} | {cell(s, 'full_s')} "
        f"| {cell(s, 'full_cpu_s')} | {s.get('chunks', '–')} | {s['hwm_mib']} "
        f"| {s['load_start']:.1f} / {s['load_end']:.1f} |"
        for s in r["sizes"]
    ]
    return f"""## Findable at once

`python bench/bench_findable.py` (issue 29), {r['date']}, {r['machine']}, two cores. A cold
`ora serve` over a generated realistic vault (`gen_vault.py --realistic`, seed 1); a sample of
retrievable notes spread over the vault, each searched for (`POST /v1/search`, k 10, no
re-ranking) by a word no other note holds, again and again until found. Times are from the
launch of `ora serve`; CPU is the server's own (user + system). The index is built in two passes:
every note by its words first (BM25 and the ledger), then its meaning (the embedding). Load: the
1-minute load average at start and end; above 2 the machine was shared with other work, and wall
times are then longer than on a quiet two-core machine (the CPU seconds are not).

{HEADER}
{chr(10).join(rows)}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 4000])
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--words-only", action="store_true",
                        help="stop once every sampled note is findable (no full index)")
    parser.add_argument("--root", type=Path, help="keep the vaults and indexes here")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    results: dict[str, Any] = {"date": dt.date.today().isoformat(), "machine": cpu_name()}
    with tempfile.TemporaryDirectory(prefix="ora-findable-") as tmp:
        root = args.root or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        results["sizes"] = [run(root, n, args.sample, args.words_only) for n in args.sizes]
    print(json.dumps(results, indent=2))
    if args.write:
        write_section("## Findable at once", markdown(results))


if __name__ == "__main__":
    main()
