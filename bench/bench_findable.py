"""Findable at once (issue 29): how soon after `ora serve` starts is every note found by its words.

For each size a vault with a real vault's length mix is generated (`gen_vault.py --realistic`,
seed 1, a cold data folder), and a sample of its retrievable notes is chosen, evenly over the
vault's paths, each with a word that no other note holds (a word of its own text when there is
one, often the number in a generated note's title; else a made-up word is appended to the note
before the run, its modification time kept, and counted as `planted`). Omnisearch's engine
(MiniSearch, `bench/minisearch_index.mjs`, Node) first reads and indexes the same vault and looks
for the same words. Then `ora serve` is started (no background contradiction scan) and, from the
moment it is launched:

- `listening`: the API answers;
- `findable`: every sampled note has been returned by `POST /v1/search` for its word (k 10, no
  re-ranking, private mode so private notes count too); the notes not found yet are searched
  for again, one after another, every POLL_PAUSE_S, until found (the searches cost CPU too);
- `words`: the words pass is done, every note of the vault findable by its words (the reconcile's
  phase leaves `scan`, from `GET /v1/status`, asked once a round);
- `full`: the start-up reconcile is done (every note embedded). Sizes above `--full-up-to` stop
  once the words pass is done (a 50,000-note embedding takes hours on two cores).

Also the server's CPU seconds at those moments (user + system, /proc), its peak RSS (VmHWM) and
the load average. Each size is one command, its result kept in bench/data/findable.json (one
entry per size, the newest run's); `--write` renders every kept size into the
`## Findable at once` section of docs/benchmarks.md:

    python bench/bench_findable.py --sizes 1000 --write
    python bench/bench_findable.py --sizes 4000 --write
    python bench/bench_findable.py --sizes 10000 --write
    python bench/bench_findable.py --sizes 50000 --write     # words only (above --full-up-to)

Options: [--sample 40] [--full-up-to 10000] [--no-omnisearch] [--root DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_rss import proc_status, stop
from gen_vault import generate
from report import ROOT, cpu_name, write_section

from sidecar.schema import get_schema

ORA = str(Path(sys.executable).parent / "ora")
MINISEARCH = ROOT / "bench" / "minisearch_index.mjs"
RESULTS = ROOT / "bench" / "data" / "findable.json"
_WORD = re.compile(r"\w+")
# Between rounds of searches: the searches share the two cores with the indexing they time.
POLL_PAUSE_S = 0.5
HEADER = (
    "| notes (MB) | sampled | API up | median found | every sampled note found | words pass done "
    "| server CPU then | full index | server CPU | chunks | peak RSS (MiB) "
    "| MiniSearch read + index | its CPU | its peak RSS (MiB) | its found | load |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
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


def minisearch(vault: Path, words: dict[str, str], root: Path) -> dict[str, Any]:
    """Omnisearch's engine over the same vault: `bench/minisearch_index.mjs`'s figures."""
    asked = root / "words.json"
    asked.write_text(json.dumps(words), encoding="utf-8")
    done = subprocess.run(["node", str(MINISEARCH), str(vault), "--words", str(asked)],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:  # most often MiniSearch not installed yet
        raise SystemExit(f"{MINISEARCH.name} failed (`npm install` puts MiniSearch in "
                         f"node_modules; --no-omnisearch skips it):\n{done.stderr}")
    return {"load": os.getloadavg()[0], **json.loads(done.stdout.strip().splitlines()[-1])}


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


@contextlib.contextmanager
def serving(vault: Path, data: Path, log: Path,
            tree: Path = ROOT) -> Iterator[tuple[subprocess.Popen[bytes], int, str, float]]:
    """A cold `ora serve` of `tree`'s code over `vault` (no background contradiction scan), once
    its API answers: the process, its port, its token and when it was launched (monotonic)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "ORA_SCAN_DELAY": "-1"}
    started = time.monotonic()
    with log.open("wb") as err:
        proc = subprocess.Popen([ORA, "serve", str(vault), "--data", str(data), "--port", "0"],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        while not (ports := re.findall(r"listening on http://[^ ]*:(\d+)", log.read_text())):
            if proc.poll() is not None:
                raise SystemExit(f"ora serve did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield proc, int(ports[0]), (data / "token").read_text().strip(), started
    finally:
        stop(proc, 120)


def _words_done(status: dict[str, Any]) -> bool:
    """The words pass is over: the reconcile embeds, or has finished."""
    if status["reconcile"]["phase"] == "failed":
        raise SystemExit(f"the reconcile failed: {status['last_error']}")
    return status["reconcile"]["phase"] in ("embed", "done")


def run(root: Path, notes: int, sample: int, full: bool, omnisearch: bool) -> dict[str, Any]:
    vault, data = root / f"vault-{notes}", root / f"data-{notes}"
    paths = generate(vault, notes, seed=1, realistic=True)
    words, planted = choose(vault, paths, sample)
    out: dict[str, Any] = {"notes": notes, "sample": len(words), "planted": planted,
                           "full": full, "mb": sum((vault / p).stat().st_size for p in paths) / 1e6}
    if omnisearch:
        out["minisearch"] = minisearch(vault, words, root)
    out["load_start"] = os.getloadavg()[0]
    with serving(vault, data, root / f"serve-{notes}.log") as (proc, port, token, started):
        out["listening_s"] = time.monotonic() - started
        waiting = dict(words)
        found_at: list[float] = []
        while waiting or "words_s" not in out:
            for path, word in list(waiting.items()):
                doc = _call(port, token, "POST", "/v1/search",
                            {"query": word, "k": 10, "rerank": False, "private": True,
                             "include_archived": True})
                if any(r["path"] == path for r in doc["results"]):
                    del waiting[path]
                    found_at.append(time.monotonic() - started)
            if "words_s" not in out and _words_done(_call(port, token, "GET", "/v1/status")):
                out["words_s"], out["words_cpu_s"] = time.monotonic() - started, _cpu_s(proc.pid)
            if time.monotonic() - started > 7200:
                raise SystemExit(f"not findable after 2 h: {sorted(waiting)}")
            time.sleep(POLL_PAUSE_S)
        out["findable_s"] = max(found_at)
        out["median_found_s"] = sorted(found_at)[len(found_at) // 2]
        if full:
            while True:
                status = _call(port, token, "GET", "/v1/status")
                if not status["reconcile"]["running"] and status["reconcile"]["phase"] == "done":
                    break
                time.sleep(1.0)
            out["full_s"] = time.monotonic() - started
            out["full_cpu_s"] = _cpu_s(proc.pid)
        status = _call(port, token, "GET", "/v1/status")
        out["files"], out["chunks"] = status["files"], status["chunks"]
        out["hwm_mib"] = proc_status(proc.pid).get("VmHWM", 0)
        out["load_end"] = os.getloadavg()[0]
    print(f"{notes} notes: {out}", file=sys.stderr)
    return out


def _row(s: dict[str, Any]) -> str:
    def secs(key: str, digits: int = 0) -> str:
        return f"{s[key]:.{digits}f} s" if key in s else "– (words only)"

    m = s.get("minisearch")
    theirs = (f"| {m['wall_s']:.1f} s | {m['cpu_s']:.1f} s | {m['peak_rss_mib']} "
              f"| {m['found']} of {m['sampled']} " if m else "| – | – | – | – ")
    return (
        f"| {s['notes']} ({s['mb']:.0f} MB) | {s['sample']} ({s['planted']} planted) "
        f"| {s['listening_s']:.1f} s "
        f"| {s['median_found_s']:.1f} s | {s['findable_s']:.1f} s | **{s['words_s']:.1f} s** "
        f"| {s['words_cpu_s']:.0f} s | {secs('full_s')} | {secs('full_cpu_s')} "
        f"| {s['chunks']} | {s['hwm_mib']} {theirs}"
        f"| {s['load_start']:.1f} / {s['load_end']:.1f} |"
    )


def _rows(sizes: list[str]) -> str:
    """"The 10,000-note row is" / "The 10,000- and 50,000-note rows are"."""
    if len(sizes) == 1:
        return f"The {sizes[0]}-note row is"
    return f"The {'-, '.join(sizes[:-1])}- and {sizes[-1]}-note rows are"


def markdown(r: dict[str, Any]) -> str:
    sizes = sorted(r["sizes"].values(), key=lambda s: s["notes"])
    words_only = [f"{s['notes']:,}" for s in sizes if not s["full"]]
    shared = [f"{s['notes']:,}" for s in sizes if max(s["load_start"], s["load_end"]) > 2]
    notes = []
    if words_only:
        notes.append(f"{_rows(words_only)} words only: the run stopped once the words pass was "
                     "done, the embedding (hours on two cores) not waited for.")
    if shared:
        notes.append(f"{_rows(shared)} measured with a load average above 2 (the machine "
                     "shared with other work): wall times there, Ora's and MiniSearch's, are "
                     "longer than a quiet two-core machine gives; the CPU seconds are not.")
    dates = ", ".join(sorted({s["date"] for s in sizes}))
    machine = sizes[0]["machine"] if sizes else cpu_name()
    return f"""## Findable at once

`python bench/bench_findable.py --sizes N --write` (issue 29), {dates}, {machine}, two cores.
A cold `ora serve` over a generated realistic vault (`gen_vault.py --realistic`, seed 1: most notes
short, a tail of long ones, about 4 chunks and 5 KB a note: "notes (MB)" gives the vault's size); a
sample of retrievable notes spread over the vault, each searched for (`POST /v1/search`, k 10, no
re-ranking) by a word no other note holds, again and again until found. Times are from the launch of
`ora serve`; CPU is the server's own (user + system), its start-up and the benchmark's searches
included. The index is built in two passes: every note by its words first (BM25 and the ledger),
then its meaning (the embedding); **words pass done** is when every note of the vault is findable by
its words (`GET /v1/status`: the reconcile's phase leaves `scan`), "server CPU then" the server's
CPU up to that moment. Full index: every note embedded too. Load: the 1-minute load average at start
and end; above 2 the machine was shared with other work, and wall times are then longer than on a
quiet two-core machine (the CPU seconds are not).

Omnisearch's engine on the same vault, before `ora serve` starts: MiniSearch
(`bench/minisearch_index.mjs`, Node {r.get('node', '')}) reads every note from disk and indexes it
as Omnisearch does on a cold start (its fields, tokenizer and term processing, default settings,
500 notes at a time), then searches for the same words (found: among its first ten). Its
headings and tags are parsed by the script (in Obsidian the metadata cache does that before
Omnisearch runs); saving its index to IndexedDB is not counted. It holds no meaning-based
search, so its index is complete once the words are in.

{HEADER}
{chr(10).join(_row(s) for s in sizes)}

{textwrap.fill(' '.join(notes), 100)}

Before (issue 29: a real community vault of 4,000 notes, a quiet two-core machine, one pass that
embedded each batch before writing it anywhere): notes found by their own word after 12 to
241 s, median 140 s; the reconcile took 263 s there, and Omnisearch's engine indexed the same
vault in 1.0 s. The target: every note of a 4,000-note realistic vault findable within 20 s of
`ora serve` starting, on a quiet two-core machine.
"""


def _node() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 4000])
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--full-up-to", type=int, default=10_000,
                        help="larger vaults stop once the words pass is done (no full index)")
    parser.add_argument("--no-omnisearch", action="store_true",
                        help="skip Omnisearch's engine (MiniSearch under Node)")
    parser.add_argument("--root", type=Path, help="keep the vaults and indexes here")
    parser.add_argument("--write", action="store_true",
                        help="keep these sizes' results and update docs/benchmarks.md")
    args = parser.parse_args()
    kept = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    kept.setdefault("sizes", {})
    with tempfile.TemporaryDirectory(prefix="ora-findable-") as tmp:
        root = args.root or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            result = run(root, n, args.sample, n <= args.full_up_to, not args.no_omnisearch)
            result.update(date=dt.date.today().isoformat(), machine=cpu_name())
            kept["sizes"][str(n)] = result
    kept["node"] = _node() or kept.get("node", "")
    print(json.dumps({str(n): kept["sizes"][str(n)] for n in args.sizes}, indent=2))
    if args.write:
        RESULTS.write_text(json.dumps(kept, indent=2) + "\n", encoding="utf-8")
        write_section("## Findable at once", markdown(kept))


if __name__ == "__main__":
    main()
