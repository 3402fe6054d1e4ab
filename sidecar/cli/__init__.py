"""`ora`: a thin command line over the sidecar library.

Each subcommand lives in its own module exposing `register(subparsers)`; the parser it adds sets
`func`, which returns the exit status. Library errors (`OraError`) become one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from sidecar import __version__
from sidecar.errors import OraError, storage_error
from sidecar.heap import limit_arenas

# Subcommand modules, in the order `ora --help` lists them.
COMMANDS: tuple[str, ...] = (
    "lint",
    "adopt",
    "index",
    "ingest",
    "watch",
    "search",
    "related",
    "ask",
    "extract",
    "contradictions",
    "resolve",
    "web",
    "eval",
    "models",
    "serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ora", description="Ora Vault: lint, index, search and triage an Obsidian vault."
    )
    parser.add_argument("--version", action="version", version=f"ora {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"sidecar.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    limit_arenas()  # before any thread starts (see heap.py)
    try:
        # Importing every subcommand takes a second or more: Ctrl-C then is as quiet as later.
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        return 130
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """The subcommand's exit status; its library and storage errors as one line, exit 2."""
    from sidecar.cli.common import log  # imported with the subcommands: not before Ctrl-C works
    try:
        status: int = args.func(args)
    except OraError as err:
        log(f"ora {args.command}: {err.message}")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        storage = storage_error(exc)  # a full or read-only disk is the user's to fix: one line
        if storage is None:
            raise
        log(f"ora {args.command}: {storage.message} ({exc})")
        return 2
    return status


if __name__ == "__main__":
    raise SystemExit(main())
