"""Routes of grounded answers and conversation memory.

`POST /v1/ask` answers a question from the vault, citing passages as [n], using and extending a
conversation's memory when `conversation` is given. `GET /v1/conversations/{id}` lists its turns
(private-mode ones only with `?private=true`); `GET /v1/conversations` lists every conversation's
chat note. The memory log opens with the app (`context`, after the index, whose Chroma client
holds the episodic collections). Conversations live in chat
notes: memory's caches are synced with them before each use, and a note an answer wrote goes
through the write lane so the index follows at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from sidecar.answers import answer, default_k
from sidecar.errors import NotFound, OraError, error_body
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
from sidecar.models.chat import DeltaRefused, OnDelta
from sidecar.retrieval.search import SearchOptions
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import INDEX, LANE, MODELS
from sidecar.server.state import CONFIG
from sidecar.settings import Config
from sidecar.vault.note import read_note
from sidecar.vault.vault_settings import VaultSettings, is_private_path, load_vault_settings

routes = web.RouteTableDef()
log = logging.getLogger("sidecar.server")


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
    notes = ChatNotes(app[CONFIG], store, app[INDEX].chroma, app[MODELS].embedder)
    app[MEMORY] = Memory(store, notes)
    try:
        yield
    finally:
        store.close()


async def _episodic(app: web.Application, namespace: str) -> Episodic:
    memory = app[MEMORY]
    if namespace not in memory.episodic:
        episodic = Episodic(app[INDEX].chroma, namespace)
        await asyncio.to_thread(restore_recall, memory.store, episodic, app[MODELS].embedder)
        memory.episodic[namespace] = episodic
    return memory.episodic[namespace]


@routes.post("/v1/ask")
async def ask(request: web.Request) -> web.Response:
    body = await read_json(request, "AskRequest")
    return web.json_response(await _ask(request, body))


@routes.post("/v1/ask/stream")
async def ask_stream(request: web.Request) -> web.StreamResponse:
    """`/v1/ask` as server-sent events: `delta` {"text"} as the model writes, then `answer` (the
    whole document), or `error` {"error": {"code", "message"}} after the stream has begun.

    A client that hangs up cancels the ask: the model call is abandoned at the next piece, and
    a conversation's note records the question with a `no answer` line saying it was
    cancelled (never a failure of the model). A client gone after the answer was written
    changes nothing: the note holds the answer."""
    body = await read_json(request, "AskRequest")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache"})
    await response.prepare(request)

    async def send(event: str, data: Any) -> None:
        payload = json.dumps(data, ensure_ascii=False)
        try:
            await response.write(f"event: {event}\ndata: {payload}\n\n".encode())
        except ConnectionError as exc:  # aiohttp's ClientConnectionResetError too
            raise DeltaRefused(str(exc)) from exc

    try:
        try:
            document = await _ask(request, body, lambda text: send("delta", {"text": text}))
            await send("answer", document)
        except OraError as err:
            await send("error", error_body(err))
        except DeltaRefused:
            raise
        except Exception:  # the middleware cannot answer once the stream has begun
            log.exception("POST /v1/ask/stream failed")
            await send("error", error_body(OraError("internal error: see the server log",
                                                    code="internal", status=500)))
        await response.write_eof()
    except (DeltaRefused, ConnectionError):
        log.info("POST /v1/ask/stream: the client hung up")
    return response


async def _ask(
    request: web.Request, body: dict[str, Any], on_delta: OnDelta | None = None
) -> dict[str, Any]:
    """The answer document for an AskRequest body (with or without a conversation)."""
    app = request.app
    options = SearchOptions(
        k=body.get("k", default_k()), private=body.get("private", False),
        rerank=body.get("rerank", True),
        namespace=check_namespace(body.get("namespace", str(app[CONFIG].namespace))),
    )
    models = app[MODELS]
    conversation = body.get("conversation")
    if conversation is None:
        return await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                            body["question"], options, reranker_reason=models.reranker_reason,
                            web=body.get("web", False), on_delta=on_delta)
    await asyncio.to_thread(app[MEMORY].notes.sync)
    memory = ConversationMemory(
        app[CONFIG], app[MEMORY].store, await _episodic(app, options.namespace), models.embedder,
        conversation, private=options.private, notes=app[MEMORY].notes,
    )
    try:
        async with app[MEMORY].locks[f"{options.namespace}/{memory.conversation}"]:
            return await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                                body["question"], options,
                                reranker_reason=models.reranker_reason, memory=memory,
                                web=body.get("web", False), on_delta=on_delta)
    finally:  # a cancelled ask wrote its question to the note too
        if memory.note_path is not None:
            await app[LANE].apply([{"kind": "modified", "path": memory.note_path}])


@routes.get("/v1/conversations")
async def conversation_notes(request: web.Request) -> web.Response:
    """Each conversation's chat note as the log last matched it. No sync first: that would
    forget a conversation whose note was moved while no one watched, which this list is for
    (the plugin finds the note by the id in its frontmatter and reports the move)."""
    private = query_flag(request, "private")
    store = request.app[MEMORY].store
    links = await asyncio.to_thread(store.note_links)
    if not private:
        hidden = await asyncio.to_thread(store.private_conversations)
        config = request.app[CONFIG]
        settings = await asyncio.to_thread(load_vault_settings, config.vault, config.data)
        links = [k for k in links if (k.namespace, k.conversation) not in hidden
                 and not await asyncio.to_thread(_private_now, config, settings, k.path)]
    return web.json_response({"conversations": [
        {"conversation": k.conversation, "namespace": k.namespace, "note": k.path}
        for k in links]})


def _private_now(config: Config, settings: VaultSettings, rel: str) -> bool:
    """Whether the chat note at `rel` is private as it stands on disk: a user may tag it private
    by hand (or make its folder private in ora.yaml) before memory reads it again, and its path
    names it. A note that is no longer there (moved, which is what the list is for) shows as
    memory last saw it; one that cannot be read counts as private."""
    if is_private_path(settings, rel):
        return True
    try:
        return read_note(config.vault, rel, int(config.max_file_bytes)).is_private
    except FileNotFoundError:
        return False
    except (OraError, OSError):
        return True


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
    note = request.app[MEMORY].notes.path_of(namespace, conversation)
    if not private and (namespace, conversation) in await asyncio.to_thread(
            store.private_conversations):
        note = None  # a private note's path names it
    doc: dict[str, Any] = {
        "conversation": conversation, "namespace": namespace,
        "turns": [t.as_json() for t in turns],
        "summary": {"text": summary.text, "covered": summary.covered},
        "note": note,
    }
    return web.json_response(doc)
