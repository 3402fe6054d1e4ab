"""Arguments and output shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidecar.errors import BadRequest, IndexLocked
from sidecar.index import Index, open_index
from sidecar.index.scope import NoteFilter
from sidecar.models.embedder import Embedder
from sidecar.models.reranker import Reranker, build_reranker
from sidecar.retrieval.search import SearchOptions
from sidecar.server.openapi import field_max_length, field_range, too_long
from sidecar.settings import Config, make_config


def add_vault_args(parser: argparse.ArgumentParser) -> None:
    """VAULT first, `--data DIR` for an index outside VAULT/.ora, and `--json`."""
    parser.add_argument("vault", metavar="VAULT", help="the vault folder")
    parser.add_argument("--data", metavar="DIR", help="index folder (default VAULT/.ora)")
    add_json_arg(parser)


def add_json_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def k_option(request: str) -> Callable[[str], int]:
    """The argparse type of `--k`: an integer within the bounds the HTTP API gives `k` in the
    OpenAPI schema `request` (a billion asked tantivy for 32 GB, and the CLI aborted)."""
    low, high = field_range(request, "k")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {value}")
        return value

    return parse


def text_option(request: str, field: str) -> Callable[[str], str]:
    """The argparse type of a text the HTTP API limits in the OpenAPI schema `request` (the
    query of search, the question of ask): refused over its `maxLength`, as the API refuses it,
    and with the same reason."""
    limit = field_max_length(request, field)

    def parse(text: str) -> str:
        if len(text) > limit:
            raise argparse.ArgumentTypeError(too_long(len(text), limit))
        return text

    return parse


def add_retrieval_args(parser: argparse.ArgumentParser, k_default: int | None, k_help: str,
                       request: str) -> None:
    """`--k` (bounded as in the API's `request` schema), `--private`, `--no-rerank` and
    `--namespace`, which `search` and `ask` share."""
    parser.add_argument("--k", type=k_option(request), default=k_default, help=k_help)
    parser.add_argument("--private", action="store_true", help="private mode: private notes too")
    parser.add_argument("--no-rerank", action="store_true", help="skip the re-ranking stage")
    parser.add_argument("--namespace", help="retrieval namespace (default: the setting)")


def add_filter_args(parser: argparse.ArgumentParser) -> None:
    """The search filters, applied inside the stores before the top-k cut."""
    group = parser.add_argument_group(
        "filters (several types, folders, clusters or conversations: any; several tags: all)")
    group.add_argument("--type", dest="types", action="append", default=[], metavar="T",
                       help="only notes of this type (repeatable)")
    group.add_argument("--folder", dest="folders", action="append", default=[], metavar="F",
                       help="only notes under this vault folder (repeatable)")
    group.add_argument("--tag", dest="tags", action="append", default=[], metavar="T",
                       help="only notes with this tag or a tag nested under it (repeatable)")
    group.add_argument("--since", metavar="DATE",
                       help="only notes dated on or after DATE (YYYY-MM-DD): date created, "
                            "else a created/date property or a date in the file name, "
                            "else date modified, else the file's mtime")
    group.add_argument("--until", metavar="DATE", help="only notes dated on or before DATE")
    group.add_argument("--cluster", dest="clusters", action="append", default=[], metavar="NAME",
                       help="only notes of this topic cluster, declared or assigned "
                            "(repeatable; `why.cluster` of a result names it)")
    group.add_argument("--conversation", dest="conversations", action="append", default=[],
                       metavar="ID", help="only the chat note of this conversation id "
                                          "(repeatable)")


def filter_from_args(args: argparse.Namespace) -> NoteFilter:
    """The NoteFilter of `add_filter_args` (BadRequest naming a bad value)."""
    return NoteFilter.make(args.types, args.folders, args.tags, args.since, args.until,
                           args.clusters, args.conversations)


def retrieval_from_args(
    args: argparse.Namespace, k: int, include_archived: bool = False
) -> tuple[Config, SearchOptions, Reranker | None, str]:
    """Config, search options and re-ranker (or why there is none) from `add_retrieval_args`."""
    config = config_from_args(args, namespace=args.namespace)
    options = SearchOptions(
        k=k, private=args.private, include_archived=include_archived,
        rerank=not args.no_rerank, namespace=str(config.namespace),
        filters=filter_from_args(args) if hasattr(args, "types") else NoteFilter(),
        collapse=not getattr(args, "all_copies", False),
    )
    reranker, reason = build_reranker(config) if options.rerank else (None, "")
    return config, options, reranker, reason


def config_from_args(args: argparse.Namespace, **overrides: Any) -> Config:
    """The Config of the command's VAULT; BadRequest unless VAULT is a folder (a mistyped
    path would otherwise search an empty index made on the spot, and say "0 results")."""
    vault = Path(args.vault).expanduser()
    if not vault.is_dir():
        why = "it is a file" if vault.exists() else "no such folder"
        raise BadRequest(f"{vault} is not a vault folder ({why}); give the folder that holds "
                         "your notes")
    return make_config(vault, getattr(args, "data", None), **overrides)


def open_index_or_route(config: Config, *, writer: bool, embedder: Embedder,
                        instead: str) -> Index:
    """`open_index`; when `ora serve` holds the index, the error says what to do `instead`
    (e.g. "ask through its POST /v1/ask")."""
    try:
        return open_index(config, writer=writer, embedder=embedder)
    except IndexLocked as err:
        raise IndexLocked(f"{err.message}; with `ora serve` running, {instead}") from err


# DEL and C1 (U+0080-9F), which a terminal acts on; json already escapes C0 in strings.
_RAW_CONTROLS = re.compile("[\x7f-\x9f]")
# C0 but the line break and the tab, DEL, C1: what a terminal may act on rather than show.
_TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """`text` with each control character but the line break and the tab written as its escape
    (`\\x1b`): answers and proposals are a model's, web results are from outside, notes and file
    names are the user's, and a terminal acts on ESC, BEL, backspace and C1 codes (clear the
    screen, set the window's title, write the clipboard: OSC 52, hide what came before). A CRLF
    is a line break."""
    return _TERMINAL_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n"))


def emit(args: argparse.Namespace, payload: Any, human: Callable[[Any], str]) -> None:
    """Print `payload` as JSON with --json, else as the human rendering, `shown`. The JSON
    keeps other non-ASCII text as it is, but escapes every control character (`\\u007f`): one
    printed raw would reach a terminal reading the output. (Outside a string JSON holds none of
    them.) Every subcommand prints its result here, so no rendering escapes on its own."""
    if getattr(args, "json", False):
        text = json.dumps(payload, ensure_ascii=False, indent=2)
        sys.stdout.write(_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")
    else:
        text = human(payload)
        if text:
            print(shown(text))


def log(message: str) -> None:
    """Progress, logs and errors go to stderr, never stdout; `shown`, as they name files and
    quote text from outside."""
    print(shown(message), file=sys.stderr, flush=True)
