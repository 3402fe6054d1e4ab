"""`ora ask VAULT QUESTION`: a grounded answer citing the vault's passages as [n].

With `--conversation ID` the answer uses and extends that conversation's memory, kept in the
conversation's chat note (`Chats/Ora/ID.md` by default); memory's caches are first brought in
line with the chat notes, and the note is indexed so later questions can cite it. Memory writes
go to Chroma, which has one writer, so the index is then opened as the writer: while `ora serve`
or `ora watch` holds it, ask through the server's `POST /v1/ask` instead.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from sidecar.answers import answer, default_k
from sidecar.cli.common import (
    add_retrieval_args,
    add_vault_args,
    emit,
    open_index_or_route,
    retrieval_from_args,
    text_option,
)
from sidecar.cli.search import render_web
from sidecar.documents.formats import cited_where
from sidecar.memory import ChatNotes, ConversationMemory, Episodic, open_store, restore_recall
from sidecar.models.choice import load_embedder


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ask", help="a cited answer from the vault", description=__doc__)
    add_vault_args(parser)
    parser.add_argument("question", metavar="QUESTION", type=text_option("AskRequest", "question"),
                        help="what to ask")
    parser.add_argument("--conversation", metavar="ID", help="use and extend this conversation")
    parser.add_argument("--web", action="store_true",
                        help="also give the model web results (searxng_url), with their tiers")
    passages = default_k()
    add_retrieval_args(parser, None, f"passages to retrieve (default {passages})", "AskRequest")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config, options, reranker, reason = retrieval_from_args(args, args.k or default_k())
    embedder = load_embedder(config)
    remembering = args.conversation is not None
    index = open_index_or_route(config, writer=remembering, embedder=embedder,
                                instead="ask through its POST /v1/ask")
    store = open_store(config.data) if remembering else None
    try:
        memory = None
        if store is not None:
            episodic = Episodic(index.chroma, options.namespace)
            notes = ChatNotes(config, store, index.chroma, embedder)
            notes.sync()
            restore_recall(store, episodic, embedder)
            # outside private mode a private conversation's id names its public twin
            key = notes.key_for(options.namespace, args.conversation, private=args.private)
            memory = ConversationMemory(config, store, episodic, embedder, args.conversation,
                                        private=args.private, notes=notes, key=key)
        document = asyncio.run(answer(config, index, embedder, reranker, args.question, options,
                                      reranker_reason=reason, memory=memory, web=args.web))
        if memory is not None and memory.note_path is not None:
            index.apply_paths([memory.note_path])
    finally:
        if store is not None:
            store.close()
        index.close()
    emit(args, document, render)
    return 0


def render(document: dict[str, Any]) -> str:
    """The answer, then (for a generated one) its cited sources as [n] path:lines (a
    document's as [n] path#page=N); `emit` shows what a terminal would act on, never sends
    it."""
    lines = [document["answer"], "", f"generator: {document['generator']}"]
    if document["generator"] != "none":
        lines += [f"[{c['n']}] {cited_where(c)}" for c in document["citations"] if c["cited"]]
    if "web" in document:
        lines += render_web(document)
    return "\n".join(lines)
