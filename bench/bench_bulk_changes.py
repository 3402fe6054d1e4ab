"""Bulk changes with the server running: many notes made private at once, a folder moved back
and forth, a settings change that re-plans every note.

A vault is generated (`gen_vault.py`, seed 1) and indexed cold (`ora index`); then `ora serve`
(no background contradiction scan) runs over it while this script changes the files as a user's
tools would, each change written at once, and measures from the moment the writing starts:

- **private flip**: `--private` public retrievable notes get a `#private` tag appended (a tag
  renamed across the vault). `hidden`: none of `--flip-sample` of them is returned any more by
  a non-private `POST /v1/search` for a word only that note holds (each searched in turn, every
  note timed by the answer that first leaves it out); `filed`: the server's queue is empty and
  nothing is being indexed (the notes moved to the private store). Each sampled note is then
  checked to be found in private mode.
- **folder moves**: the generated vault's `--folder` is renamed to `<folder> moved` and back,
  `--moves` times. Per move, `found`: `--sample` of its notes returned at the new path by their
  own word (timed the same way); `filed` as above. After the moves: the HNSW graph files Chroma
  keeps for the index (`data_level0.bin`, summed), the `chroma/` folder and the server's VmRSS,
  against before them.
- **settings re-plan**: `ora.yaml` gets a private folder that holds no note, which re-plans every
  note (docs/vault-settings.md): `re-planned` when the reconcile this starts has ended.

CPU is the server's own (user + system) over each phase. Load: the 1-minute load average.

    python bench/bench_bulk_changes.py [--notes 4000] [--private 400] [--moves 10]
        [--folder Resources] [--sample 30] [--flip-sample 5] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_findable import ORA, _call, _cpu_s, choose, serving
from bench_rss import proc_status
from gen_vault import generate
from report import cpu_name, report_main

HEADING = "## Bulk changes with the server running"
POLL_PAUSE_S = 0.2
# A phase that has not settled by then has failed: the script stops and says so.
PHASE_LIMIT_S = 1800


class Server:
    """The running `ora serve`: its process, port and token, and calls to it."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, token: str) -> None:
        self.proc, self.port, self.token = proc, port, token

    def search(self, query: str, *, private: bool = False) -> list[str]:
        doc = _call(self.port, self.token, "POST", "/v1/search",
                    {"query": query, "k": 10, "rerank": False, "private": private})
        return [r["path"] for r in doc["results"]]

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = _call(self.port, self.token, "GET", "/v1/status")
        return status

    def cpu_s(self) -> float:
        return _cpu_s(self.proc.pid)


def _until(done: Callable[[], bool], what: str, started: float) -> float:
    """Seconds from `started` until `done()`, asked every POLL_PAUSE_S."""
    while not done():
        if time.monotonic() - started > PHASE_LIMIT_S:
            raise SystemExit(f"{what}: not done after {PHASE_LIMIT_S} s")
        time.sleep(POLL_PAUSE_S)
    return time.monotonic() - started


def _idle(server: Server) -> bool:
    status = server.status()
    if status["reconcile"]["phase"] == "failed":
        raise SystemExit(f"the reconcile failed: {status['last_error']}")
    return not status["queue"] and not status["indexing"] and not status["reconcile"]["running"]


def _level0_mib(data: Path) -> float:
    return sum(p.stat().st_size for p in data.rglob("data_level0.bin")) / 2**20


def _folder_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def _each_seen(server: Server, waiting: dict[str, str], shown: bool, started: float,
               what: str) -> tuple[float, list[float]]:
    """Search each note of `waiting` ({path: its word}) again and again until it is returned
    (`shown`) or is not; the seconds from `started` until the last was so, each note timed by
    the search that first saw it so (its answer's arrival: the rounds are as slow as the
    searches meanwhile, and a round's end would overstate it); and every search's seconds."""
    seen: list[float] = []
    latencies: list[float] = []
    waiting = dict(waiting)
    while waiting:
        for path, word in list(waiting.items()):
            asked = time.monotonic()
            found = path in server.search(word)
            latencies.append(time.monotonic() - asked)
            if found == shown:
                seen.append(time.monotonic() - started)
                del waiting[path]
        if time.monotonic() - started > PHASE_LIMIT_S:
            raise SystemExit(f"{what}: not done after {PHASE_LIMIT_S} s")
        time.sleep(POLL_PAUSE_S if waiting else 0)
    return max(seen, default=0.0), latencies


def flip_private(vault: Path, server: Server, words: dict[str, str],
                 sample_size: int) -> dict[str, Any]:
    sample = dict(list(words.items())[:sample_size])
    # Shown before, each: and the server's first searches (which load its embedding model)
    # are not timed as part of the flip.
    _each_seen(server, sample, True, time.monotonic(), "private flip: shown before")
    cpu = server.cpu_s()
    started = time.monotonic()
    for path in words:
        with (vault / path).open("a", encoding="utf-8") as f:
            f.write("\n#private\n")
    written = time.monotonic() - started
    hidden_s, latencies = _each_seen(server, sample, False, started, "private flip: hidden")
    out = {"notes": len(words), "written_s": written, "hidden_s": hidden_s,
           "search_p50_ms": 1000 * statistics.median(latencies)}
    out["filed_s"] = _until(lambda: _idle(server), "private flip: filed", started)
    out["cpu_s"] = server.cpu_s() - cpu
    lost = [p for p, w in sample.items() if p not in server.search(w, private=True)]
    if lost:
        raise SystemExit(f"private flip: not found in private mode: {lost}")
    return out


def move_folder(vault: Path, data: Path, server: Server, folder: str, moves: int,
                words: dict[str, str]) -> dict[str, Any]:
    before = {"level0_mib": _level0_mib(data), "chroma_mib": _folder_mib(data / "chroma"),
              "rss_mib": proc_status(server.proc.pid).get("VmRSS", 0)}
    cpu = server.cpu_s()
    found: list[float] = []
    filed: list[float] = []
    names = [folder, f"{folder} moved"]
    for n in range(moves):
        old, new = names[n % 2], names[(n + 1) % 2]
        started = time.monotonic()
        (vault / old).rename(vault / new)
        waiting = {f"{new}/{p.split('/', 1)[1]}": w for p, w in words.items()}
        found.append(_each_seen(server, waiting, True, started, f"move {n}: found")[0])
        filed.append(_until(lambda: _idle(server), f"move {n}: filed", started))
    after = {"level0_mib": _level0_mib(data), "chroma_mib": _folder_mib(data / "chroma"),
             "rss_mib": proc_status(server.proc.pid).get("VmRSS", 0)}
    return {"moves": moves, "notes": sum(1 for _ in (vault / names[moves % 2]).rglob("*.md")),
            "found_median_s": statistics.median(found), "found_max_s": max(found),
            "filed_median_s": statistics.median(filed), "filed_max_s": max(filed),
            "cpu_s": server.cpu_s() - cpu, "before": before, "after": after}


def replan(vault: Path, server: Server) -> dict[str, Any]:
    cpu = server.cpu_s()
    reconciles = server.status()["reconcile"]
    started = time.monotonic()
    settings = vault / "ora.yaml"
    text = settings.read_text(encoding="utf-8") if settings.exists() else ""
    settings.write_text(text + "private:\n  - Nothing here/\n", encoding="utf-8")

    def began() -> bool:
        now = server.status()["reconcile"]
        return bool(now["running"]) or now != reconciles

    began_s = _until(began, "settings re-plan: began", started)
    return {"began_s": began_s,
            "replanned_s": _until(lambda: _idle(server), "settings re-plan: done", started),
            "cpu_s": server.cpu_s() - cpu}


def run(args: argparse.Namespace) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="ora-bulk-"))
    vault, data = root / "vault", root / "data"
    paths = generate(vault, args.notes, seed=1)
    texts = {p: (vault / p).read_text(encoding="utf-8") for p in paths}
    public = [p for p in paths if "private" not in texts[p]]
    in_folder = [p for p in public if p.startswith(args.folder + "/")]
    if not in_folder:
        raise SystemExit(f"no public note in {args.folder}/ of the generated vault")
    rng = random.Random(1)
    # Engrams: a type that decays with no cluster, so a note's own word ranks it first.
    engrams = [p for p in public if p.startswith("Engrams/")]
    # One word of its own per note; words are planted before indexing where a note has none.
    to_flip, _ = choose(vault, rng.sample(engrams, min(len(engrams), args.private * 2)),
                        args.private)
    to_move, _ = choose(vault, in_folder, args.sample)
    load = [os.getloadavg()[0]]
    started = time.monotonic()
    subprocess.run([ORA, "index", str(vault), "--data", str(data), "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    out: dict[str, Any] = {"date": dt.date.today().isoformat(), "machine": cpu_name(),
                           "notes": args.notes, "sample": args.sample,
                           "flip_sample": args.flip_sample,
                           "index_s": time.monotonic() - started}
    with serving(vault, data, root / "serve.log") as (proc, port, token, _):
        server = Server(proc, port, token)
        _until(lambda: _idle(server), "start-up reconcile", time.monotonic())
        status = server.status()
        out["files"], out["chunks"] = status["files"], status["chunks"]
        out["flip"] = flip_private(vault, server, to_flip, args.flip_sample)
        out["moves"] = move_folder(vault, data, server, args.folder, args.moves, to_move)
        out["replan"] = replan(vault, server)
        out["hwm_mib"] = proc_status(proc.pid).get("VmHWM", 0)
    load.append(os.getloadavg()[0])
    out["load"] = load
    print(out, file=sys.stderr)
    return out


def markdown(r: dict[str, Any]) -> str:
    f, m, p = r["flip"], r["moves"], r["replan"]
    b, a = m["before"], m["after"]
    rows = [
        (f"{f['notes']} public notes tagged `#private` at once (written in "
         f"{f['written_s']:.2f} s): gone from non-private search (searches meanwhile: "
         f"{f['search_p50_ms']:.0f} ms median)",
         f"**{f['hidden_s']:.1f} s**", f"{f['filed_s']:.1f} s", f"{f['cpu_s']:.0f} s"),
        (f"a {m['notes']}-note folder renamed, {m['moves']} times back and forth: found at its "
         "new paths, median / max",
         f"{m['found_median_s']:.1f} / {m['found_max_s']:.1f} s",
         f"{m['filed_median_s']:.1f} / {m['filed_max_s']:.1f} s", f"{m['cpu_s']:.0f} s in all"),
        ("`ora.yaml`: a private folder added that holds no note (every note re-planned, nothing "
         "re-embedded)", "–", f"**{p['replanned_s']:.1f} s**", f"{p['cpu_s']:.0f} s"),
    ]
    table = "\n".join("| " + " | ".join(row) + " |" for row in rows)
    command = (f"python bench/bench_bulk_changes.py --notes {r['notes']} --private {f['notes']} "
               f"--moves {m['moves']}")
    return f"""{HEADING}

`{command}`, {r['date']}, {r['machine']}, two cores, load {r['load'][0]:.1f} /
{r['load'][1]:.1f} (start / end). Vault: `gen_vault.py --notes {r['notes']}` (seed 1),
{r['files']} files, {r['chunks']} chunks, indexed cold by `ora index` ({r['index_s']:.0f} s), then
`ora serve` over it (its watcher applying the changes; no background contradiction scan). Times
from the moment the change starts to be written; a sample of the changed notes ({r['flip_sample']}
of those made private, held out all at once; {r['sample']} of those moved) searched for by a word
only each holds (`POST /v1/search`, k 10, no re-ranking), one after
another, until the change shows for each (a note timed by the answer that first shows it; the
last note's time is given); "filed" when the server's queue is empty and nothing is being indexed.
CPU: the server's, over the phase.

| change | shown in search | filed | server CPU |
|---|---:|---:|---:|
{table}

After the moves: Chroma's HNSW graph files (`data_level0.bin`, all stores) {b['level0_mib']:.1f} →
{a['level0_mib']:.1f} MiB (compaction bounds them: docs/index.md); `chroma/` {b['chroma_mib']:.0f} →
{a['chroma_mib']:.0f} MiB (`chroma.sqlite3` keeps its free pages); the server's VmRSS
{b['rss_mib']} → {a['rss_mib']} MiB; its peak over the run {r['hwm_mib']} MiB.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=4000)
    parser.add_argument("--private", type=int, default=400)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--folder", default="Resources")
    parser.add_argument("--sample", type=int, default=30)
    # The notes made private are held out of answers all at once, when their change is seen: a
    # few searched in turn time that moment; thirty would time the searches' own round.
    parser.add_argument("--flip-sample", type=int, default=5)
    return report_main(parser, HEADING, lambda args: markdown(run(args)))


if __name__ == "__main__":
    sys.exit(main())
