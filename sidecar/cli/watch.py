"""`ora watch VAULT`: index the vault, then keep the index in step with it until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Callable
from typing import Any

from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.cli.index import add_store_args
from sidecar.index import Index, open_index
from sidecar.index.idle import release_when_idle, releasers
from sidecar.index.progress import StderrProgress
from sidecar.index.watcher import data_folder_deleted, deletion_check, watch
from sidecar.models.build import ensure_embedders
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "watch", help="index the vault and follow its changes",
        description="Index the vault as `ora index` does, then keep the index in step with every "
        "change to it until Ctrl-C (or SIGTERM). Progress goes to stderr; with --json one JSON "
        "document, the summary of the run, is printed on stdout when it stops.",
    )
    add_vault_args(parser)
    add_store_args(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, chroma_url=args.chroma_url, namespace=args.namespace)
    ensure_embedders(config, log)
    embedder = load_embedder(config)
    with open_index(config, embedder=embedder) as index:
        result = index.reconcile(StderrProgress())
        log(f"ora watch: {result['files']} files, {result['chunks']} chunks indexed")
        totals = _Totals()
        asyncio.run(_follow(index, embedder, totals))
    emit(args, _summary(result, totals), lambda _: "")  # the human run logged as it went
    return 0


class _Totals:
    """What the watched changes and the catch-up pass applied, for the --json summary."""

    def __init__(self) -> None:
        self.batches = 0
        self.paths = 0
        self.embedded = 0
        self.removed = 0
        self.caught_up = {"embedded": 0, "removed": 0}

    def add(self, summary: dict[str, Any]) -> None:
        self.batches += 1
        self.paths += len(summary["paths"])
        self.embedded += int(summary["embedded"])
        self.removed += int(summary["removed"])
        _report(summary)


def _summary(start: dict[str, Any], totals: _Totals) -> dict[str, Any]:
    """The one JSON document of `ora watch --json`: the start-up pass as `ora index --json`
    gives it, what the catch-up pass applied, and what the watched changes applied."""
    return {
        **{key: start[key] for key in ("files", "chunks", "embedded", "removed", "seconds")},
        "caught_up": dict(totals.caught_up),
        "watched": {"batches": totals.batches, "paths": totals.paths,
                    "embedded": totals.embedded, "removed": totals.removed},
    }


class _Stopped(Exception):
    """Raised in the catch-up reconcile's thread to stop it at a batch boundary (Ctrl-C)."""


async def _follow(index: Index, embedder: Embedder, totals: _Totals | None = None) -> None:
    totals = totals if totals is not None else _Totals()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    idle = asyncio.create_task(release_when_idle(
        releasers(embedder, index.chroma), float(index.config.idle_release_s), stop))
    deleted = deletion_check(index.config.data)
    watching = asyncio.create_task(watch(index, stop, totals.add), name="ora-watch")
    try:
        await _catch_up(index, stop, deleted, totals)
        if not stop.is_set():
            log(f"ora watch: watching {index.config.vault} (Ctrl-C stops)")
        await watching
    finally:
        stop.set()
        await asyncio.gather(watching, return_exceptions=True)  # its error is raised above
        await idle
    log("ora watch: stopped")


async def _catch_up(index: Index, stop: asyncio.Event, deleted: Callable[[], bool],
                    totals: _Totals | None = None) -> None:
    """Apply what changed during the start-up reconcile, before anything watched (a note made
    private after that reconcile read it would otherwise stay public until its next change):
    a second reconcile once the watcher runs, quick (it reads only files whose size or time
    changed), stopped at a batch boundary by Ctrl-C. A data folder deleted under it ends it
    with the watcher's error, not the failed write's."""
    for _ in range(3):  # the watcher's task opens its OS watch in its first steps
        await asyncio.sleep(0)

    def progress(_: object) -> None:
        if stop.is_set():
            raise _Stopped

    try:
        result = await asyncio.to_thread(index.reconcile, progress)
    except _Stopped:
        return
    except Exception as err:
        if deleted():
            raise data_folder_deleted(index.config.data, "watching", "ora watch") from err
        raise
    if totals is not None:
        totals.caught_up = {"embedded": int(result["embedded"]),
                            "removed": int(result["removed"])}
    if result["embedded"] or result["removed"]:
        log(f"ora watch: caught up on changes made while indexing: embedded "
            f"{result['embedded']}, removed {result['removed']}")


def _report(summary: dict[str, Any]) -> None:
    log(
        f"ora watch: {len(summary['paths'])} path(s) applied: embedded {summary['embedded']}, "
        f"removed {summary['removed']} in {summary['seconds']:.2f} s "
        f"({summary['files']} files, {summary['chunks']} chunks)"
    )
