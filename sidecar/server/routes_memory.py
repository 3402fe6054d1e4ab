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
from sidecar.memory.store import id_of, twin_of
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
INDEX_WAIT_S = 5.0  # how long an answer waits for its chat note to be indexed


@dataclass
class Memory:
    store: MemoryStore
    notes: ChatNotes
    episodic: dict[str, Episodic] = field(default_factory=dict)
    # One ask at a time per conversation, so its turns stay in question/answer order.
    locks: defaultdict[str, asyncio.Lock] = field(default_factory=lambda: defaultdict(asyncio.Lock))
    # chat notes still being indexed after their answer was sent (`_index_note`)
    indexing: set[asyncio.Future[Any]] = field(default_factory=set)


MEMORY = web.AppKey("memory", Memory)


async def context(app: web.Application) -> AsyncIterator[None]:
    """The conversation log."""
    store = await asyncio.to_thread(open_store, app[CONFIG].data)
    notes = ChatNotes(app[CONFIG], store, app[INDEX].chroma, app[MODELS].embedder)
    app[MEMORY] = Memory(store, notes)
    try:
        yield
    finally:
        await asyncio.gather(*app[MEMORY].indexing, return_exceptions=True)
        # turns a busy note kept out (`ChatNotes._append`), into a new note if it still refuses
        await asyncio.to_thread(notes.flush, final=True)
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
    return web.json_response(await _ask(request, body, _options(request.app, body)))


@routes.post("/v1/ask/stream")
async def ask_stream(request: web.Request) -> web.StreamResponse:
    """`/v1/ask` as server-sent events: `delta` {"text"} as the model writes, then `answer` (the
    whole document), or `error` {"error": {"code", "message"}} after the stream has begun.

    A client that hangs up cancels the ask: the model call is abandoned at the next piece, and
    a conversation's note records the question with a `no answer` line saying it was
    cancelled (never a failure of the model). A client gone after the answer was written
    changes nothing: the note holds the answer."""
    body = await read_json(request, "AskRequest")
    options = _options(request.app, body)  # a bad request is a 400, not a stream's error event
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
            document = await _ask(request, body, options,
                                  lambda text: send("delta", {"text": text}))
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


def _options(app: web.Application, body: dict[str, Any]) -> SearchOptions:
    """An AskRequest's search options; BadRequest for a namespace or conversation id that is
    not valid."""
    if body.get("conversation") is not None:
        check_conversation(body["conversation"])
    return SearchOptions(
        k=body.get("k", default_k()), private=body.get("private", False),
        rerank=body.get("rerank", True),
        namespace=check_namespace(body.get("namespace", str(app[CONFIG].namespace))),
    )


async def _ask(
    request: web.Request, body: dict[str, Any], options: SearchOptions,
    on_delta: OnDelta | None = None,
) -> dict[str, Any]:
    """The answer document for an AskRequest body (with or without a conversation)."""
    app = request.app
    models = app[MODELS]
    conversation = body.get("conversation")
    if conversation is None:
        return await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                            body["question"], options, reranker_reason=models.reranker_reason,
                            web=body.get("web", False), on_delta=on_delta)
    notes = app[MEMORY].notes
    await asyncio.to_thread(notes.sync)
    # Outside private mode an id a private conversation holds names its public twin, as an
    # unknown id names a new conversation (`ChatNotes.key_for`).
    key = await asyncio.to_thread(notes.key_for, options.namespace, conversation,
                                  private=options.private)
    if not options.private and await asyncio.to_thread(notes.hidden, options.namespace, key):
        # The twin itself made private by hand: answered from the vault alone, its note
        # neither read nor written, and named as a private note is (null, `shown_path`).
        document = await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                                body["question"], options,
                                reranker_reason=models.reranker_reason,
                                web=body.get("web", False), on_delta=on_delta)
        shown: dict[str, Any] = {}  # in the place and shape of a conversation's answer
        for key, value in document.items():
            shown[key] = value
            if key == "conversation":
                shown.update(conversation=conversation, conversation_note=None)
        return shown
    memory = ConversationMemory(
        app[CONFIG], app[MEMORY].store, await _episodic(app, options.namespace), models.embedder,
        conversation, private=options.private, notes=notes, key=key,
    )
    try:
        async with app[MEMORY].locks[f"{options.namespace}/{memory.key}"]:
            return await answer(app[CONFIG], app[INDEX], models.embedder, models.reranker,
                                body["question"], options,
                                reranker_reason=models.reranker_reason, memory=memory,
                                web=body.get("web", False), on_delta=on_delta)
    finally:  # a cancelled ask wrote its question to the note too
        if memory.note_path is not None:
            await _index_note(app, memory.note_path)


async def _index_note(app: web.Application, rel: str) -> None:
    """Index the chat note an answer wrote through the write lane, waiting `INDEX_WAIT_S` at
    most: a note an editor saves again and again keeps the index reading it, and the answer
    must not wait on that. Past the wait the indexing goes on in the background."""
    indexing = app[MEMORY].indexing
    task = asyncio.ensure_future(app[LANE].apply([{"kind": "modified", "path": rel}]))
    indexing.add(task)
    task.add_done_callback(indexing.discard)
    task.add_done_callback(_log_failure)
    await asyncio.wait({task}, timeout=INDEX_WAIT_S)


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("indexing a chat note failed", exc_info=task.exception())


@routes.get("/v1/conversations")
async def conversation_notes(request: web.Request) -> web.Response:
    """Each conversation's chat note as the log last matched it. No sync first: that would
    forget a conversation whose note was moved while no one watched, which this list is for
    (the plugin finds the note by the id in its frontmatter and reports the move)."""
    private = query_flag(request, "private")
    store = request.app[MEMORY].store
    # by the ids the user gave: a twin's key (`twin_of`) must not sort apart from an id's
    links = sorted(await asyncio.to_thread(store.note_links),
                   key=lambda k: (k.namespace, id_of(k.conversation)))
    if not private:
        hidden = await asyncio.to_thread(store.private_conversations)
        config = request.app[CONFIG]
        settings = await asyncio.to_thread(load_vault_settings, config.vault, config.data)
        links = [k for k in links if (k.namespace, k.conversation) not in hidden
                 and not await asyncio.to_thread(_private_now, config, settings, k.path)]
    return web.json_response({"conversations": [
        {"conversation": id_of(k.conversation), "namespace": k.namespace, "note": k.path}
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
    store, notes = request.app[MEMORY].store, request.app[MEMORY].notes
    await asyncio.to_thread(notes.sync)
    key = await asyncio.to_thread(_shown_key, store, notes, namespace, conversation, private)
    turns = await asyncio.to_thread(store.turns, namespace, key, private=private)
    # Outside private mode one without a public turn is as one that does not exist: a 200
    # would tell that a private conversation exists.
    exists = await asyncio.to_thread(store.exists, namespace, key)
    if not exists or not (turns or private):
        raise NotFound(f"no conversation {conversation!r} in namespace {namespace!r}")
    summary = await asyncio.to_thread(store.summary, namespace, key, private=private)
    note = await asyncio.to_thread(notes.shown_path, namespace, key, private=private)
    doc: dict[str, Any] = {
        "conversation": conversation, "namespace": namespace,
        "turns": [t.as_json() for t in turns],
        "summary": {"text": summary.text, "covered": summary.covered},
        "note": note,
    }
    return web.json_response(doc)


def _shown_key(store: MemoryStore, notes: ChatNotes, namespace: str, conversation: str,
               private: bool) -> str:
    """The log's key of the conversation `GET /v1/conversations/{id}` shows: the one an ask
    would continue (`ChatNotes.key_for`); in private mode, when the id's own conversation is
    gone, its public twin (every public conversation is seen in private mode)."""
    key = notes.key_for(namespace, conversation, private=private)
    if private and not store.exists(namespace, key) and store.exists(
            namespace, twin_of(conversation)):
        return twin_of(conversation)
    return key
