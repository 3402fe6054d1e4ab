"""`ora contradictions VAULT [--scan] [--status S] [--judge J] [--private] [--json]`: the queue.

Lists the queued pairs (open ones by default); pairs involving a private note only with
`--private`. `--scan` first brings the queue in line with the
notes that changed since the last scan: nearest neighbours by embedding, aligned claims, judged
by the first available judge (`ora models` says which).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from sidecar.cleaning import Queue, build_judge, scan
from sidecar.cleaning.store import STATUSES
from sidecar.cleaning.survey import scanned
from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.models.choice import load_embedder


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "contradictions", help="list (and with --scan, find) contradicting notes",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_vault_args(parser)
    parser.add_argument("--scan", action="store_true", help="scan changed notes first")
    parser.add_argument("--status", choices=[*STATUSES, "all"], default="open",
                        help="which pairs to list (default: open)")
    parser.add_argument("--judge", choices=["llm", "nli", "rules"],
                        help="judge to scan with (default: the first available)")
    parser.add_argument("--private", action="store_true",
                        help="private mode: pairs involving private notes too")
    parser.set_defaults(func=run)


def _progress(phase: str, done: int, total: int) -> None:
    if phase == "judge" and total and done == 0:
        log(f"judging {total} aligned claim pairs …")


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    queue = Queue(config.data, config.vault, max_bytes=int(config.max_file_bytes))
    try:
        if args.scan:
            judge = build_judge(config, args.judge)
            log(f"scanning {config.vault} with judge {judge.name} …")
            report = asyncio.run(scan(config, queue, load_embedder(config), judge, _progress))
            log(f"{report.notes} notes, {report.changed} changed, {report.candidates} candidate "
                f"pairs, {report.found} contradictions and {report.proposals} news proposals "
                f"found, {report.open} open ({report.seconds:.1f} s)")
            for warning in report.warnings:
                log(f"warning: {warning}")
        elif not scanned(queue):
            log("the vault has not been scanned yet: run again with --scan")
        pairs = queue.pairs(None if args.status == "all" else args.status, private=args.private)
        emit(args, {"pairs": [p.as_json() for p in pairs]}, _human)
    finally:
        queue.close()
    return 0


def _human(payload: dict[str, Any]) -> str:
    lines = []
    for p in payload["pairs"]:
        lines.append(f"{p['id']}  {p['kind']}  {p['status']}  {p['judge']} {p['score']:.2f}"
                     + (f"  batch {p['batch']}" if p.get("batch") else "")
                     + ("  private" if p["private"] else ""))
        origin = p.get("provenance") or {}
        for side in ("a", "b"):
            s = p[side]
            mark = f" ({origin[side]})" if origin.get(side) else ""
            lines.append(f"  {side}{mark}: {s['path']}:{s['line_start']}  {s['text']}")
        if p.get("suggested"):
            lines.append(f"  suggested: {p['suggested']['action']} — {p['suggested']['reason']}")
    return "\n".join(lines) if lines else "no pairs"
