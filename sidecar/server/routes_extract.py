"""`POST /v1/extract`, `POST /v1/extract/accept`, `POST /v1/extract/undo`: `ora extract` for the
plugin's review view (docs/extraction.md).

A plan is made by the same library as the CLI, over the server's index and embedder, and held
for the review (`Reviews`: the latest of each note and mode). An accept names the conversation
and the proposals it keeps (`"all"` or ids), with the user's own wording for any the review
edited (`edits`); the server does not extract again (a model asked twice may word a claim
otherwise, or fail, and what is written would not be what was reviewed): the held plan's
candidates go through the gate again on the note as it is now (`regated`), and only proposals
that still hold are written (an id that does not is a 409 and nothing is written). Without a
held plan (the server restarted since the review) the accept plans afresh. The new engrams and
the chat note reach the index through the write lane at once, and the contradictions they raise
are queued in the cleaning queue, whose open count follows. A private conversation is found
only in private mode, exactly as a missing one is not.

An accept and an undo take their turn (`Turns`, as adoption's) one at a time in the order their
requests came in, from reading the note through the journal: an accept may ask the model while it
plans, and an undo let in then would take back the extraction before it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from sidecar.extraction import (
    Reviews,
    Source,
    accept,
    chosen,
    edited,
    load_source,
    plan_extraction,
    regated,
    undo_extraction,
)
from sidecar.extraction.engrams import IndexEngrams
from sidecar.server.openapi import read_json
from sidecar.server.resources import INDEX, LANE, MODELS
from sidecar.server.routes_adopt import Turns
from sidecar.server.routes_claims import CLAIMS
from sidecar.server.state import CONFIG, STATE

routes = web.RouteTableDef()
REVIEWS = web.AppKey("extract_reviews", Reviews)
EXTRACT_TURNS = web.AppKey("extract_turns", Turns)


async def context(app: web.Application) -> AsyncIterator[None]:
    """The plans held for review, and the turns of accepts and undos, for as long as the server
    runs."""
    app[REVIEWS] = Reviews(data=app[CONFIG].data)
    app[EXTRACT_TURNS] = Turns()
    yield


async def _source(request: web.Request,
                  body: dict[str, Any]) -> tuple[Source, IndexEngrams, bool]:
    """The note the body names, read now, the engrams it is compared with, and the mode."""
    config, private = request.app[CONFIG], bool(body.get("private", False))
    source = await asyncio.to_thread(
        load_source, config, conversation=body.get("conversation"),
        note=body.get("note"), private=private)
    engrams = IndexEngrams(request.app[INDEX], request.app[MODELS].embedder, private=private)
    return source, engrams, private


async def _written(request: web.Request, created: list[str], modified: list[str],
                   deleted: list[str]) -> None:
    """Index what was written at once; the published open count follows the queue."""
    events = ([{"kind": "created", "path": p} for p in created]
              + [{"kind": "modified", "path": p} for p in modified]
              + [{"kind": "deleted", "path": p} for p in deleted])
    if events:
        await request.app[LANE].apply(events)
    claims = request.app[CLAIMS]
    request.app[STATE].set_contradictions_open(await asyncio.to_thread(claims.queue.open_count))


@routes.post("/v1/extract")
async def extract_plan(request: web.Request) -> web.Response:
    body = await read_json(request, "ExtractRequest")
    source, engrams, private = await _source(request, body)
    plan = await plan_extraction(request.app[CONFIG], source, engrams)
    await asyncio.to_thread(request.app[REVIEWS].keep, plan, private=private)
    return web.json_response(plan.as_json())


@routes.post("/v1/extract/accept")
async def extract_accept(request: web.Request) -> web.Response:
    turns = request.app[EXTRACT_TURNS]
    async with turns.turn():  # first, to keep the order requests came in
        body = await read_json(request, "ExtractAcceptRequest")
        config, claims = request.app[CONFIG], request.app[CLAIMS]
        source, engrams, private = await _source(request, body)
        held = request.app[REVIEWS].held(source, private=private)
        plan = await (regated(held, source, engrams) if held is not None
                      else plan_extraction(config, source, engrams))
        await turns.planned()
        picked = edited(chosen(plan, body["accept"]), body.get("edits", {}))
        async with claims.lock:  # the queue is written by one scan or resolution at a time
            done = await asyncio.to_thread(accept, config.vault, int(config.max_file_bytes),
                                           plan, picked, claims.queue, data=config.data)
        await _written(request, done.written,
                       [p for p in done.changed if p not in done.written], [])
    return web.json_response(done.as_json())


@routes.post("/v1/extract/undo")
async def extract_undo(request: web.Request) -> web.Response:
    async with request.app[EXTRACT_TURNS].turn():  # after any accept that came in before it
        body = await read_json(request, "PrivateModeRequest")
        config, claims = request.app[CONFIG], request.app[CLAIMS]
        private = bool(body.get("private", False))
        async with claims.lock:
            undone = await asyncio.to_thread(undo_extraction, config.vault, claims.queue,
                                             private=private, data=config.data)
        await _written(request, [], undone.restored, undone.removed)
    return web.json_response(undone.as_json(private=private))
