"""`ora search VAULT QUERY`: a cited, provenance-weighted search of the vault's index.

No watcher keeps the index in line with the vault here (unless `ora serve` or `ora watch` runs),
so, as `ora ask` does, the search leaves out every note the index no longer holds as it is on
disk (`retrieval/on_disk.py`): gone, renamed or edited since `ora index`. Its chunks would quote
text the note no longer holds, at lines that moved, and show a note tagged `#private` since as
public. They are left out before the top-k cut (deeper passes fill their places), and no
result names one (`relationships`, `superseded_by`, `--expand`: the relation graph follows the
ledger's hashes, not the files); how many notes were left out is said on stderr with the
command that brings them back.
"""

from __future__ import annotations

import argparse
import asyncio
import textwrap
from dataclasses import replace
from typing import Any

from sidecar.cli.common import (
    add_filter_args,
    add_retrieval_args,
    add_vault_args,
    emit,
    log,
    retrieval_from_args,
    text_option,
)
from sidecar.documents.formats import cited_where
from sidecar.index import Index, open_index
from sidecar.models.choice import load_embedder
from sidecar.retrieval.on_disk import OnDisk
from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import Chunk
from sidecar.vault.scan import iter_note_paths
from sidecar.vault.vault_settings import is_excluded
from sidecar.web.searxng import web_tier

_SNIPPET = 240
# Copies named by path under a result (the JSON lists them all).
_COPIES_NAMED = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "search", help="hybrid search with citations", description=__doc__
    )
    add_vault_args(parser)
    parser.add_argument("query", metavar="QUERY", type=text_option("SearchRequest", "query"),
                        help="what to look for")
    add_retrieval_args(parser, 10, "how many results (default 10)", "SearchRequest")
    parser.add_argument(
        "--include-archived", action="store_true", help="also return archived notes"
    )
    parser.add_argument(
        "--all-copies", action="store_true",
        help="every copy of a text repeated in several notes, not one result naming the others")
    parser.add_argument(
        "--expand", action="store_true",
        help="also follow supports/extends/qualifies one hop from each result")
    parser.add_argument(
        "--web", action="store_true",
        help="also search the web (searxng_url), shown below the vault results with tiers")
    add_filter_args(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config, options, reranker, reason = retrieval_from_args(args, args.k, args.include_archived)
    embedder = load_embedder(config)
    index = open_index(config, writer=False, embedder=embedder)
    try:
        if not index.stats().get("chunks"):
            log(_nothing_to_search(index, args.vault))
        on_disk = StaleNotes(index, options.namespace)
        document = asyncio.run(search_related(
            index, embedder, reranker, args.query, replace(options, leave_out=on_disk),
            reranker_reason=reason, expand=args.expand, unnamed=on_disk.stale))
        # the notes --expand adds are no top-k cut's: checked after, the same way
        document["results"] = [r for r in document["results"]
                               if "expanded_from" not in r or not on_disk.stale(r["path"])]
        on_disk.say_left_out(args.vault, "search")
        if args.web:
            document.update(asyncio.run(
                web_tier(config, embedder, args.query, int(config.web_results),
                         private=options.private)))
        indexing = index.indexing()  # another process is indexing: say how far it got
        if indexing is not None:
            document["indexing"] = indexing
    finally:
        index.close()
    emit(args, document, render)
    return 0


class StaleNotes:
    """The CLI's `leave_out` (search, related): a chunk of a note the index does not hold as
    it is on disk (`OnDisk`, each note checked once), each such note recorded in `left_out`."""

    def __init__(self, index: Index, namespace: str) -> None:
        self._on_disk = OnDisk(index.config, index.ledger, namespace)
        self.left_out: set[str] = set()

    def stale(self, path: str) -> bool:
        if self._on_disk.holds(path):
            return False
        self.left_out.add(path)
        return True

    def __call__(self, chunk: Chunk) -> bool:
        return self.stale(chunk.path)

    def say_left_out(self, vault: str, verb: str) -> None:
        """How many notes were left out, on stderr, and how to `verb` them as they are now."""
        if self.left_out:  # a count, no name: a note left out may say private now
            log(f"{_notes(len(self.left_out))} left out: changed since `ora index` last ran "
                f"(run it again to {verb} them as they are now: `ora index {vault}`)")


def _notes(n: int) -> str:
    return f"{n} note{'s' if n > 1 else ''}"


def _nothing_to_search(index: Index, vault: str) -> str:
    """Why an index holds no passage, as far as can be told: every note excluded, notes indexed
    without passages (types search never returns, files that could not be read), or none
    indexed yet."""
    notes = list(iter_note_paths(index.config.vault))
    if notes and all(is_excluded(index.vault_settings, rel) for rel in notes):
        return (f"nothing to search: the vault's exclusions (`exclude` in ora.yaml, Obsidian's "
                f"Excluded files and templates folder) leave out all {len(notes)} of its notes")
    files = index.stats().get("files", 0)
    if files:
        return (f"nothing to search: none of the {files} notes indexed has a passage search "
                f"returns (a type search never returns, or a file that could not be read: "
                f"`ora index {vault}` names those)")
    return f"the index in {index.config.data} is empty: run `ora index {vault}` first"


def _snippet(text: str) -> str:
    return textwrap.shorten(" ".join(text.split()), _SNIPPET, placeholder=" …")


def render(document: dict[str, Any]) -> str:
    """Numbered results, each cited as path:line_start-line_end with its score and flags."""
    rerank = document["rerank"]
    if "rerank_reason" in document:
        rerank = f"{rerank} ({document['rerank_reason']})"
    lines = [f"{len(document['results'])} results for {document['query']!r} · re-rank: {rerank}"]
    if "indexing" in document:
        lines.append(f"(indexing {document['indexing']['percent']} %: "
                     "results come from the notes indexed so far)")
    for n, result in enumerate(document["results"], start=1):
        lines += render_result(n, result)
    if "web" in document:
        lines += render_web(document)
    return "\n".join(lines)


def render_web(document: dict[str, Any]) -> list[str]:
    """The web tier, below the vault's results: tier, weight, URL, title, snippet."""
    if "web_reason" in document:
        return [f"web: none ({document['web_reason']})"]
    lines = [f"web: {len(document['web'])} results from outside your notes "
             f"({document.get('web_excluded', 0)} excluded by your registry)"]
    for n, r in enumerate(document["web"], start=1):
        lines.append(f"W{n}. {r['tier']} (weight {r['weight']})  {r['url']}  {r['title']}")
        if r["text"]:
            lines.append("    " + _snippet(r["text"]))
    return lines


def render_result(n: int, result: dict[str, Any], suffix: str = "") -> list[str]:
    """One numbered result: path:lines, score, type and flags, its headings, a snippet."""
    marks = [*result["flags"], *(["private"] if result["private"] else [])]
    flags = f"  [{', '.join(marks)}]" if marks else ""
    lines = [
        f"{n:>2}. {cited_where(result)}"
        f"  score {result['score']:.3f}  {result['type']}"
        f"{' (inferred)' if result.get('type_inferred') else ''}{flags}{suffix}"
    ]
    if "expanded_from" in result:
        via = result["expanded_from"]
        lines.append(f"    via {via['kind']} from {via['path']}")
    if "superseded_by" in result:
        lines.append(f"    superseded by {', '.join(result['superseded_by'])}")
    if result["heading_path"]:
        lines.append("    " + " › ".join(result["heading_path"]))
    lines.append("    " + _snippet(result["text"]))
    if result.get("duplicates"):
        lines.append("    " + _copies(result["duplicates"]))
    return lines


def _copies(paths: list[str]) -> str:
    """The other notes holding the same text: how many, the first few named."""
    named = ", ".join(paths[:_COPIES_NAMED])
    more = f" and {len(paths) - _COPIES_NAMED} more" if len(paths) > _COPIES_NAMED else ""
    return f"same text in {len(paths)} other note{'s' if len(paths) > 1 else ''}: {named}{more}"
