"""`ora extract VAULT (--conversation ID | --note PATH) [--private] [--accept all|ID,…] [--json]`,
`ora extract VAULT --undo`: a conversation's claims as proposed engrams, kept only on accept.
`--note` may also name a document's resource note (`ora ingest`): its paragraphs' claims.

Without `--accept` it is a dry run: the proposals (id, title, text, ai_derived, subtype, nexus,
source lines, contradicts) and what the quality gate dropped and why (pushback, duplicate,
not-a-claim); nothing is written. `--accept all` (or some ids) writes those proposals as
`type: engram` notes, records them in the chat note's `extracted` property, queues the
contradictions they raise for triage, and indexes the new notes; `--undo` removes the engrams of
the latest extraction and restores the chat note, refusing any file edited since. A private
conversation needs `--private`. The LLM extractor runs when `llm_url` is set, the rules
otherwise. Writing opens the index as its writer: while `ora serve` runs, use its
`POST /v1/extract/accept`. See docs/extraction.md.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from sidecar.cleaning import Queue
from sidecar.cli.common import add_vault_args, config_from_args, emit, log, open_index_or_route
from sidecar.errors import BadRequest, IndexLocked
from sidecar.extraction import (
    IndexEngrams,
    accept,
    chosen,
    load_source,
    plan_extraction,
    undo_extraction,
)
from sidecar.index import open_index
from sidecar.models.choice import load_embedder


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "extract", help="propose engrams from a conversation (and keep them, or undo)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_vault_args(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--conversation", metavar="ID", help="the conversation's id")
    which.add_argument("--note", metavar="PATH",
                       help="a chat note's or a document's resource note's vault path")
    parser.add_argument("--private", action="store_true",
                        help="private mode: needed for a private conversation")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--accept", metavar="all|ID,…", help="write these proposals as engrams")
    action.add_argument("--undo", action="store_true", help="undo the latest extraction")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.undo:
        return _undo(args, config)
    if args.conversation is None and args.note is None:
        raise BadRequest("name the conversation: --conversation ID or --note PATH")
    source = load_source(config, conversation=args.conversation, note=args.note,
                         private=args.private)
    embedder = load_embedder(config)
    writing = args.accept is not None
    index = open_index_or_route(config, writer=writing, embedder=embedder,
                                instead="accept through its POST /v1/extract/accept")
    try:
        plan = asyncio.run(plan_extraction(config, source,
                                           IndexEngrams(index, embedder, private=args.private)))
        if not writing:
            emit(args, plan.as_json(), _plan_text)
            if plan.fallback:
                log(f"the language model's answer was not used: {plan.fallback}")
            log("dry run: nothing written; keep proposals with --accept all (or their ids)")
            return 0
        ids = "all" if args.accept == "all" else [i.strip() for i in args.accept.split(",")
                                                  if i.strip()]
        picked = chosen(plan, ids)
        queue = Queue(config.data, config.vault, max_bytes=int(config.max_file_bytes))
        try:
            done = accept(config.vault, int(config.max_file_bytes), plan, picked, queue,
                          data=config.data)
        finally:
            queue.close()
        if done.changed:
            index.apply_paths(done.changed)
    finally:
        index.close()
    emit(args, done.as_json(), lambda d: "\n".join(d["written"]))
    log(f"kept {len(done.written)} engram(s), {done.queued} contradiction(s) queued for triage"
        + (f"; undo with `ora extract {args.vault} --undo`" if done.journal else ""))
    return 0


def _undo(args: argparse.Namespace, config: Any) -> int:
    queue = Queue(config.data, config.vault, max_bytes=int(config.max_file_bytes))
    try:
        undone = undo_extraction(config.vault, queue, private=args.private, data=config.data)
    finally:
        queue.close()
    if undone.changed:
        try:
            with open_index(config) as index:
                index.apply_paths(undone.changed)
        except IndexLocked:
            log("the index is held by another process (`ora serve`, `ora watch`): it sees the "
                "removed notes itself")
    emit(args, undone.as_json(private=args.private), _undo_text)
    log(f"removed {len(undone.removed)} engram(s), restored {len(undone.restored)} chat "
        f"note(s), refused {len(undone.refused)}")
    return 1 if undone.refused else 0


def _plan_text(doc: dict[str, Any]) -> str:
    lines = [f"extractor: {doc['extractor']}"
             + (f" (fallback: {doc['fallback']})" if "fallback" in doc else "")]
    for p in doc["proposals"]:
        side = "ai-derived" if p["ai_derived"] else "user"
        lines.append(f"{p['id']}  [{p['subtype']}, {side}] {p['text']}")
        lines += [f"    contradicts {path}" for path in p["contradicts"]]
    for d in doc["dropped"]:
        lines.append(f"dropped ({d['reason']}{', of ' + d['of'] if 'of' in d else ''}): "
                     f"{d['text']}")
    return "\n".join(lines)


def _undo_text(doc: dict[str, Any]) -> str:
    lines = [f"removed {p}" for p in doc["removed"]] + [f"restored {p}" for p in doc["restored"]]
    return "\n".join(lines + [f"refused {r['path']}: {r['reason']}" for r in doc["refused"]])
