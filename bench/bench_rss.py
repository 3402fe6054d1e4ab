"""Memory benchmark: peak RSS of a cold `ora index` at several vault sizes, idle RSS after.

For each size (1,000 / 4,000 / 10,000 notes by default) a vault with a real vault's length mix
(`gen_vault.py --realistic`: most notes short, a tail of very long ones) is generated, then:

1. cold `ora index` (a subprocess, as a user runs it): its peak RSS, read as VmHWM from
   /proc/PID/status while it runs (and the kernel's ru_maxrss at exit), and chunks per second;
2. `ora serve` and `ora watch` started over the indexed vault: their RSS once settled (no change
   of more than 1 % over 5 s after they are ready), with everything kept loaded and again after
   the idle release (`idle_release_s` RELEASE_S), then a search timed as it reloads; each is
   stopped with SIGINT.

With `--compare OLD_TREE` it also compares indexing throughput with another checkout (e.g.
`git archive main | tar -x -C /tmp/old`) on one small vault, cold runs interleaved old/new so a
load that swings on shared cores hits both alike; medians of `--rounds` runs each.

Results go to the `## Index memory` section of docs/benchmarks.md (with --write).

    python bench/bench_rss.py [--sizes 1000 4000 10000] [--server-sizes 1000 4000]
        [--root DIR] [--cold-only] [--compare DIR] [--write]

`--root` keeps the vaults, indexes and cold results there and reuses them (a long cold index
can run apart with `--cold-only`); `--server-sizes` also indexes those sizes with Chroma as a
real `chroma run` server and reports the sidecar's and the server's RSS apart.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gen_vault import generate
from report import ROOT, cpu_name, write_section

from sidecar.index.idle import CHECK_S

ORA = str(Path(sys.executable).parent / "ora")
SETTLE_S = 5.0
# The idle period the released measurements run with (the setting's default is 300 s).
RELEASE_S = 10.0
HEADER = (
    "| notes | files | chunks | cold `ora index` peak RSS (MiB) | ru_maxrss (MiB) | wall "
    "| chunks/s | `ora serve` idle (MiB) | released | `ora watch` idle (MiB) | released "
    "| search after release / warm (ms) |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)

SERVER_HEADER = (
    "| notes | chunks | cold `ora index` peak RSS (MiB) | Chroma server peak (MiB) | wall "
    "| `ora serve` idle (MiB) | released | Chroma server idle (MiB) "
    "| search after release / warm (ms) |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process in MiB (empty once it is gone)."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return out


def _env(tree: Path, chroma_url: str = "") -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "ORA_CHROMA_URL": chroma_url}


def cold_index(vault: Path, data: Path, tree: Path = ROOT, chroma_url: str = "") -> dict[str, Any]:
    """Run a cold `ora index` of `vault`; its peak RSS, chunks, wall and CPU seconds."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [ORA, "index", str(vault), "--data", str(data), "--json"], env=_env(tree, chroma_url),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    hwm = 0
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    out = b""
    while True:
        hwm = max(hwm, proc_status(proc.pid).get("VmHWM", 0))
        out += proc.stdout.read() or b""
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.25)
    out += proc.stdout.read() or b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ora index {vault} failed with status {status}")
    proc.returncode = 0
    wall = time.monotonic() - started
    doc = json.loads(out)
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "hwm_mib": hwm, "maxrss_mib": usage.ru_maxrss // 1024, "wall": wall, "cpu": cpu,
        "files": doc["files"], "chunks": doc["chunks"], "embedded": doc["embedded"],
        "per_s": doc["embedded"] / wall, "per_cpu_s": doc["embedded"] / cpu,
    }  # fmt: skip


def stop(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Stop an `ora` process as Ctrl-C would, killed if it has not ended within `timeout` s."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def search_ms(port: int, token: str, query: str) -> float:
    """Wall milliseconds of one `POST /v1/search` (k 10, no re-ranking)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/search", method="POST",
        data=json.dumps({"query": query, "k": 10, "rerank": False}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()
    return 1000 * (time.perf_counter() - started)


def _settled_rss(pid: int, deadline: float) -> int:
    """VmRSS (MiB) once it changed by at most 1 % over SETTLE_S seconds."""
    samples: list[int] = []
    while time.monotonic() < deadline:
        samples.append(proc_status(pid).get("VmRSS", 0))
        window = samples[-int(SETTLE_S) - 1:]
        if len(window) > SETTLE_S and max(window) - min(window) <= 0.01 * max(window):
            break
        time.sleep(1.0)
    return samples[-1]


def idle_rss(args: list[str], ready: str, log: Path, release_s: float = 0.0,
             data: Path | None = None, chroma_url: str = "") -> dict[str, Any]:
    """Start `ora ARGS` with `idle_release_s` = `release_s` (0: never), wait for `ready` on its
    stderr, then (with a release) for the idle period and the next check to pass, and for its
    RSS to settle; its RSS then and its peak so far (MiB). With `data` (`ora serve`), a search
    is then timed twice: the first reloads what was released, the second is warm. The process
    is stopped with SIGINT (killed if it hangs)."""
    # No background contradiction scan: a first `ora serve` over a fresh index would scan every
    # note (minutes to hours with the real model), which is work, not idling.
    env = {**_env(ROOT, chroma_url), "ORA_IDLE_RELEASE_S": str(release_s),
           "ORA_SCAN_DELAY": "-1"}
    with log.open("wb") as err:
        proc = subprocess.Popen([ORA, *args], env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 600
        while ready not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"ora {args[0]} did not start:\n{log.read_text()}")
            time.sleep(0.25)
        if release_s > 0:
            time.sleep(release_s + min(CHECK_S, release_s / 2) + 1)
        out: dict[str, Any] = {"rss_mib": _settled_rss(proc.pid, deadline),
                               "hwm_mib": proc_status(proc.pid).get("VmHWM", 0)}
        if data is not None:
            port = int(re.findall(r"listening on http://[^ ]*:(\d+)", log.read_text())[0])
            token = (data / "token").read_text().strip()
            out["first_search_ms"] = search_ms(port, token, "how do tides follow the moon")
            out["warm_search_ms"] = search_ms(port, token, "spaced repetition and memory")
            out["after_search_mib"] = proc_status(proc.pid).get("VmRSS", 0)
        return out
    finally:
        stop(proc, 60)


def measure_cold(root: Path, notes: int) -> dict[str, Any]:
    """Generate and cold-index the vault of `notes` notes under `root`; the result is kept in
    `root/cold-N.json` and reused by a later run over the same root (a 16k index takes ~35 min)."""
    vault, data = root / f"vault-{notes}", root / f"data-{notes}"
    saved = root / f"cold-{notes}.json"
    if saved.exists():
        cold: dict[str, Any] = json.loads(saved.read_text())
    else:
        generate(vault, notes, seed=1, realistic=True)
        cold = cold_index(vault, data)
        saved.write_text(json.dumps(cold))
    print(f"{notes} notes: cold {cold}", file=sys.stderr)
    return cold


def measure_size(root: Path, notes: int) -> dict[str, Any]:
    vault, data = root / f"vault-{notes}", root / f"data-{notes}"
    cold = measure_cold(root, notes)
    serve_args = ["serve", str(vault), "--data", str(data), "--port", "0"]
    watch_args = ["watch", str(vault), "--data", str(data)]
    serve = idle_rss(serve_args, "listening", root / "serve.log")
    watch = idle_rss(watch_args, "watching", root / "watch.log")
    serve_released = idle_rss(serve_args, "listening", root / "serve.log", RELEASE_S, data)
    watch_released = idle_rss(watch_args, "watching", root / "watch.log", RELEASE_S)
    print(f"{notes} notes: serve {serve}, watch {watch}, released: serve {serve_released}, "
          f"watch {watch_released}", file=sys.stderr)
    return {"notes": notes, "cold": cold, "serve": serve, "watch": watch,
            "serve_released": serve_released, "watch_released": watch_released}


@contextlib.contextmanager
def chroma_server(path: Path) -> Iterator[tuple[str, int]]:
    """A real `chroma run` on a free loopback port, persisting under `path`: (URL, pid)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(path),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("chroma run did not start") from None
                time.sleep(0.2)
        yield url, server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


def measure_server_mode(root: Path, notes: int) -> dict[str, Any]:
    """The same vault indexed with its vectors in a `chroma run` server (setting `chroma_url`):
    the sidecar's peak and idle RSS, and the server's, apart. Kept in `root/server-N.json`."""
    saved = root / f"server-{notes}.json"
    if saved.exists():
        result: dict[str, Any] = json.loads(saved.read_text())
        return result
    vault, data = root / f"vault-{notes}", root / f"server-data-{notes}"
    if not vault.exists():
        generate(vault, notes, seed=1, realistic=True)
    with chroma_server(root / f"server-chroma-{notes}") as (url, pid):
        cold = cold_index(vault, data, chroma_url=url)
        cold["server_hwm_mib"] = proc_status(pid).get("VmHWM", 0)
        args = ["serve", str(vault), "--data", str(data), "--port", "0"]
        serve = idle_rss(args, "listening", root / "serve.log", chroma_url=url)
        released = idle_rss(args, "listening", root / "serve.log", RELEASE_S, data,
                            chroma_url=url)
        released["server_rss_mib"] = proc_status(pid).get("VmRSS", 0)
    result = {"notes": notes, "cold": cold, "serve": serve, "serve_released": released}
    print(f"{notes} notes, chroma server: {result}", file=sys.stderr)
    saved.write_text(json.dumps(result))
    return result


def compare(root: Path, old: Path, notes: int, rounds: int) -> dict[str, Any]:
    """Cold-index chunks per wall and CPU second, old tree vs this one, interleaved."""
    vault = root / "compare-vault"
    generate(vault, notes, seed=2, realistic=True)
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for r in range(rounds):
        order = [("old", old), ("new", ROOT)] if r % 2 == 0 else [("new", ROOT), ("old", old)]
        for label, tree in order:
            run = cold_index(vault, root / f"compare-{label}-{r}", tree)
            print(f"compare {label} round {r}: {run}", file=sys.stderr)
            runs[label].append(run)

    def med(label: str, key: str) -> float:
        return float(statistics.median(run[key] for run in runs[label]))

    return {
        "notes": notes, "rounds": rounds, "chunks": runs["new"][0]["embedded"],
        **{f"{label}_{key}": med(label, key) for label in runs
           for key in ("per_s", "per_cpu_s", "hwm_mib")},
    }  # fmt: skip


def markdown(r: dict[str, Any]) -> str:
    rows = [
        f"| {s['notes']} | {s['cold']['files']} | {s['cold']['chunks']} "
        f"| **{s['cold']['hwm_mib']}** | {s['cold']['maxrss_mib']} | {s['cold']['wall']:.0f} s "
        f"| {s['cold']['per_s']:.1f} | {s['serve']['rss_mib']} "
        f"| **{s['serve_released']['rss_mib']}** | {s['watch']['rss_mib']} "
        f"| **{s['watch_released']['rss_mib']}** "
        f"| {s['serve_released']['first_search_ms']:.0f} / "
        f"{s['serve_released']['warm_search_ms']:.0f} |"
        for s in r["sizes"]
    ]
    first, last = r["sizes"][0]["cold"]["hwm_mib"], r["sizes"][-1]["cold"]["hwm_mib"]
    text = f"""## Index memory

`bench/bench_rss.py`, {r["date"]}, {r["machine"]}, 2 cores shared with other jobs (load average
{r["load_start"]:.1f} at the start, {r["load_end"]:.1f} at the end; RSS does not depend on it).
Vaults: `bench/gen_vault.py --realistic` (seed 1), a real vault's length mix: about half the
notes one short section, a tail of long ones up to the per-note cap of 100 chunks. Peak RSS is
VmHWM of the `ora index` process (sampled from /proc while it runs; ru_maxrss at exit beside it);
idle RSS is VmRSS of `ora serve` / `ora watch` over the indexed vault once it stopped changing,
with the models kept (`idle_release_s` 0) and released (`idle_release_s` {RELEASE_S:.0f}: measured
after the idle period); then one search reloads the embedder (its wall time, then a warm one's).
Background contradiction scans are off (`scan_delay` -1): over a fresh index the first `ora serve`
would scan every note, which is work, not idling.

{HEADER}
{chr(10).join(rows)}

Peak from the smallest to the largest vault: {first} → {last} MiB
({100 * (last - first) / first:+.0f} %). Targets: ≤ 700 MiB at 4,000 notes, at most 15 % more at 4×;
idle ≤ 400 MiB.
"""
    if r.get("server"):
        rows = [
            f"| {s['notes']} | {s['cold']['chunks']} | **{s['cold']['hwm_mib']}** "
            f"| {s['cold']['server_hwm_mib']} | {s['cold']['wall']:.0f} s "
            f"| {s['serve']['rss_mib']} | **{s['serve_released']['rss_mib']}** "
            f"| {s['serve_released']['server_rss_mib']} "
            f"| {s['serve_released']['first_search_ms']:.0f} / "
            f"{s['serve_released']['warm_search_ms']:.0f} |"
            for s in r["server"]
        ]
        text += f"""
The same vaults with Chroma as a server (`chroma_url`: a real `chroma run` on loopback, started
fresh for each size): the sidecar's RSS and the Chroma server's, apart. The vectors' memory
moves to the server: what grows with the vault grows there, and the two processes together hold
more than one embedded sidecar.

{SERVER_HEADER}
{chr(10).join(rows)}
"""
    c = r.get("compare")
    if c:
        text += f"""
Throughput, before and after bounding memory: cold `ora index` of one realistic vault of
{c["notes"]} notes ({c["chunks"]} chunks), old tree and this one run alternately (old, new, new,
old, …; the two cores are shared with other jobs, so only interleaved runs compare), medians of
{c["rounds"]} runs each.

| | chunks / wall s | chunks / CPU s | peak RSS (MiB) |
|---|---:|---:|---:|
| before | {c["old_per_s"]:.1f} | {c["old_per_cpu_s"]:.1f} | {c["old_hwm_mib"]:.0f} |
| after | {c["new_per_s"]:.1f} | {c["new_per_cpu_s"]:.1f} | {c["new_hwm_mib"]:.0f} |
"""
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 4000, 10000])
    parser.add_argument("--compare", type=Path, help="another checkout to compare throughput")
    parser.add_argument("--compare-notes", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument("--root", type=Path,
                        help="keep vaults, indexes and cold results here and reuse them")
    parser.add_argument("--cold-only", action="store_true", help="only the cold indexes")
    parser.add_argument("--server-sizes", type=int, nargs="*", default=[],
                        help="also index these sizes with Chroma as a `chroma run` server")
    args = parser.parse_args()
    if args.write and not args.sizes:
        parser.error("--write needs at least one of --sizes (the section's table)")
    results: dict[str, Any] = {"date": dt.date.today().isoformat(), "machine": cpu_name(),
                               "load_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="ora-rss-") as tmp:
        root = args.root or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        if args.cold_only:
            for n in args.sizes:
                measure_cold(root, n)
            return
        if args.compare is not None:
            results["compare"] = compare(root, args.compare, args.compare_notes, args.rounds)
        results["sizes"] = [measure_size(root, n) for n in args.sizes]
        results["server"] = [measure_server_mode(root, n) for n in args.server_sizes]
    results["load_end"] = os.getloadavg()[0]
    print(json.dumps(results, indent=2))
    if args.write:
        write_section("## Index memory", markdown(results))


if __name__ == "__main__":
    main()
