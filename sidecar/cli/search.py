"""`ora search VAULT QUERY`: a cited, provenance-weighted search of the vault's index."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from sidecar.cli.common import add_vault_args, config_from_args, emit, log
from sidecar.index import open_index
from sidecar.models.embedder import load_embedder
from sidecar.models.reranker import build_reranker
from sidecar.retrieval.search import SearchOptions, search_sync

_SNIPPET = 240


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "search", help="hybrid search with citations", description=__doc__
    )
    add_vault_args(parser)
    parser.add_argument("query", metavar="QUERY", help="what to look for")
    parser.add_argument("--k", type=int, default=10, help="how many results (default 10)")
    parser.add_argument("--private", action="store_true", help="private mode: private notes too")
    parser.add_argument(
        "--include-archived", action="store_true", help="also return archived notes"
    )
    parser.add_argument("--no-rerank", action="store_true", help="skip the re-ranking stage")
    parser.add_argument("--namespace", help="retrieval namespace (default: the setting)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, namespace=args.namespace)
    options = SearchOptions(
        k=args.k,
        private=args.private,
        include_archived=args.include_archived,
        rerank=not args.no_rerank,
        namespace=str(config.namespace),
    )
    reranker, reason = build_reranker(config) if options.rerank else (None, "")
    embedder = load_embedder(config)
    index = open_index(config, writer=False, embedder=embedder)
    try:
        if not index.stats().get("chunks"):
            log(f"the index in {config.data} is empty: run `ora index {args.vault}` first")
        document = search_sync(
            index, embedder, reranker, args.query, options, reranker_reason=reason
        )
    finally:
        index.close()
    emit(args, document, render)
    return 0


def _snippet(text: str) -> str:
    return textwrap.shorten(" ".join(text.split()), _SNIPPET, placeholder=" …")


def render(document: dict[str, Any]) -> str:
    """Numbered results, each cited as path:line_start-line_end with its score and flags."""
    rerank = document["rerank"]
    if "rerank_reason" in document:
        rerank = f"{rerank} ({document['rerank_reason']})"
    lines = [f"{len(document['results'])} results for {document['query']!r} · re-rank: {rerank}"]
    for n, result in enumerate(document["results"], start=1):
        marks = [*result["flags"], *(["private"] if result["private"] else [])]
        flags = f"  [{', '.join(marks)}]" if marks else ""
        lines.append(
            f"{n:>2}. {result['path']}:{result['line_start']}-{result['line_end']}"
            f"  score {result['score']:.3f}  {result['type']}{flags}"
        )
        if result["heading_path"]:
            lines.append("    " + " › ".join(result["heading_path"]))
        lines.append("    " + _snippet(result["text"]))
    return "\n".join(lines)
