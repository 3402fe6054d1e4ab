"""`ora related VAULT PATH`: the notes most related to one note, scored like search results.

As `ora search` does (no watcher keeps the index in line with the vault here), it leaves out,
as results and as names in any result's relationships, every note the index no longer holds as
it is on disk (`retrieval/on_disk.py`): one tagged `#private` since `ora index` may be private
now. How many notes were is said on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from sidecar.cli.common import (
    add_filter_args,
    add_vault_args,
    config_from_args,
    emit,
    filter_from_args,
    k_option,
    log,
)
from sidecar.cli.search import StaleNotes, render_result
from sidecar.index import open_index
from sidecar.models.choice import load_embedder
from sidecar.retrieval.related import RelatedOptions, related


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "related", help="notes related to a note", description=__doc__
    )
    add_vault_args(parser)
    parser.add_argument("path", metavar="PATH",
                        help="the note, relative to the vault (or its path from here)")
    parser.add_argument("--k", type=k_option("RelatedRequest"), default=10,
                        help="how many notes (default 10)")
    parser.add_argument("--private", action="store_true", help="private mode: private notes too")
    parser.add_argument(
        "--include-archived", action="store_true", help="also return archived notes"
    )
    parser.add_argument("--namespace", help="retrieval namespace (default: the setting)")
    add_filter_args(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, namespace=args.namespace)
    options = RelatedOptions(
        k=args.k, private=args.private, include_archived=args.include_archived,
        namespace=str(config.namespace), filters=filter_from_args(args),
    )
    embedder = load_embedder(config)
    index = open_index(config, writer=False, embedder=embedder)
    try:
        if not index.stats().get("chunks"):
            log(f"the index in {config.data} is empty: run `ora index {args.vault}` first")
        note = vault_relative(config.vault, args.path)
        on_disk = StaleNotes(index, options.namespace)
        document = asyncio.run(related(index, embedder, note,
                                       replace(options, leave_out=on_disk.stale)))
        on_disk.say_left_out(args.vault, "list")
    finally:
        index.close()
    emit(args, document, render)
    return 0


def vault_relative(vault: Path, path: str) -> str:
    """PATH as the vault-relative path `related` takes: as given when it names a vault file, else
    the vault path of the file it names from here (absolute, as a shell completes it, or
    relative to the working folder)."""
    given = Path(path).expanduser()
    if not given.is_absolute() and (vault / given).is_file():
        return path
    here = Path(os.path.abspath(given))
    for candidate in (here, here.resolve()):  # the vault's path is resolved (/tmp → /private/tmp)
        if candidate.is_relative_to(vault):
            return candidate.relative_to(vault).as_posix()
    return path


def render(document: dict[str, Any]) -> str:
    """Numbered notes, each cited at its closest chunk, marked when linked with the note."""
    lines = [f"{len(document['results'])} notes related to {document['path']}"]
    for n, result in enumerate(document["results"], start=1):
        lines += render_result(n, result, "  linked" if result["why"].get("linked") else "")
    return "\n".join(lines)
