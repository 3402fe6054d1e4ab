"""`ora watch VAULT`: index the vault, then keep the index in step with it until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any

from sidecar.cli.common import add_vault_args, config_from_args, log
from sidecar.cli.index import add_store_args
from sidecar.index import Index, open_index
from sidecar.index.idle import release_when_idle, releasers
from sidecar.index.progress import StderrProgress
from sidecar.index.watcher import watch
from sidecar.models.build import ensure_fp32_embedder
from sidecar.models.embedder import Embedder, load_embedder


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("watch", help="index the vault and follow its changes")
    add_vault_args(parser)
    add_store_args(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, chroma_url=args.chroma_url, namespace=args.namespace)
    ensure_fp32_embedder(config, log)
    embedder = load_embedder(config)
    with open_index(config, embedder=embedder) as index:
        result = index.reconcile(StderrProgress())
        log(f"ora watch: {result['files']} files, {result['chunks']} chunks indexed")
        log(f"ora watch: watching {config.vault} (Ctrl-C stops)")
        asyncio.run(_follow(index, embedder))
    return 0


async def _follow(index: Index, embedder: Embedder) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    idle = asyncio.create_task(release_when_idle(
        releasers(embedder, index.chroma), float(index.config.idle_release_s), stop))
    try:
        await watch(index, stop, _report)
    finally:
        stop.set()
        await idle
    log("ora watch: stopped")


def _report(summary: dict[str, Any]) -> None:
    log(
        f"ora watch: {len(summary['paths'])} path(s) applied: embedded {summary['embedded']}, "
        f"removed {summary['removed']} in {summary['seconds']:.2f} s "
        f"({summary['files']} files, {summary['chunks']} chunks)"
    )
