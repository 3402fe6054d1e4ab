"""Routes of grounded answers and conversation memory.

`POST /v1/ask` answers a question from the vault, citing passages as [n], using and extending a
conversation's memory when `conversation` is given. `GET /v1/conversations/{id}` lists its turns
(private-mode ones only with `?private=true`). The memory log opens with the app (`context`,
after the index, whose Chroma client holds the episodic collections). Conversations live in chat
notes: memory's caches are synced with them before each use, and a note an answer wrote goes
through the write lane so the index follows at once.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from sidecar.answers import answer, default_k
from sidecar.errors import NotFound
from sidecar.index.names import check_namespace
from sidecar.memory import (
    ChatNotes,
    ConversationMemory,
    Episodic,
    MemoryStore,
    check_conversation,
    open_store,
    restore_recall,
)
from sidecar.retrieval.search import SearchOptions
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import INDEX, LANE, MODELS
from sidecar.server.state import CONFIG

routes = web.RouteTableDef()


@dataclass
class Memory:
    store: MemoryStore
    notes: ChatNotes
    episodic: dict[str, Episodic] = field(default_factory=dict)
    # One ask at a time per conversation, so its turns stay in question/answer order.
    locks: defaultdict[str, asyncio.Lock] = field(default_factory=lambda: defaultdict(asyncio.Lock))


MEMORY = web.AppKey("memory", Memory)


async def context(app: web.Application) -> AsyncIterator[None]:
    """The conversation log."""
    store = await asyncio.to_thread(open_store, app[CONFIG].data)
    notes = ChatNotes(app[CONFIG], store, app[INDEX].chroma.client, app[MODELS].embedder)
    app[MEMORY] = Memory(store, notes)
    try:
        yield
    finally:
        store.close()


async def _episodic(app: web.Application, namespace: str) -> Episodic:
    memory = app[MEMORY]
    if namespace not in memory.episodic:
        episodic = Episodic(app[INDEX].chroma.client, namespace)
        await asyncio.to_thread(restore_recall, memory.store, episodic, app[MODELS].embedder)
        memory.episodic[namespace] = episodic
    return memory.episodic[namespace]


@routes.post("/v1/ask")
async def ask(request: web.Request) -> web.Response:
    body = await read_json(request, "AskRequest")
    app = request.app
    options = SearchOptions(
        k=body.get("k", default_k()), private=body.get("private", False),
        rerank=body.get("rerank", True),
        namespace=check_namespace(body.get("namespace", str(app[CONFIG].namespace))),
    )
    models = app[MODELS]
    conversation = body.get("conversation")
    if conversation is None:
        document = await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                                body["question"], options, reranker_reason=models.reranker_reason,
                                web=body.get("web", False))
        return web.json_response(document)
    await asyncio.to_thread(app[MEMORY].notes.sync)
    memory = ConversationMemory(
        app[CONFIG], app[MEMORY].store, await _episodic(app, options.namespace), models.embedder,
        conversation, private=options.private, notes=app[MEMORY].notes,
    )
    async with app[MEMORY].locks[f"{options.namespace}/{memory.conversation}"]:
        document = await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                                body["question"], options, reranker_reason=models.reranker_reason,
                                memory=memory, web=body.get("web", False))
    if memory.note_path is not None:
        await app[LANE].apply([{"kind": "modified", "path": memory.note_path}])
    return web.json_response(document)


@routes.get("/v1/conversations/{id}")
async def conversation_turns(request: web.Request) -> web.Response:
    namespace = check_namespace(request.query.get("namespace", str(request.app[CONFIG].namespace)))
    conversation = check_conversation(request.match_info["id"])
    private = query_flag(request, "private")
    store = request.app[MEMORY].store
    await asyncio.to_thread(request.app[MEMORY].notes.sync)
    if not await asyncio.to_thread(store.exists, namespace, conversation):
        raise NotFound(f"no conversation {conversation!r} in namespace {namespace!r}")
    turns = await asyncio.to_thread(store.turns, namespace, conversation, private=private)
    summary = await asyncio.to_thread(store.summary, namespace, conversation, private=private)
    doc: dict[str, Any] = {
        "conversation": conversation, "namespace": namespace,
        "turns": [t.as_json() for t in turns],
        "summary": {"text": summary.text, "covered": summary.covered},
        "note": request.app[MEMORY].notes.path_of(namespace, conversation),
    }
    return web.json_response(doc)
