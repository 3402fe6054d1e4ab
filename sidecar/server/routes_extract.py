"""`POST /v1/extract`, `POST /v1/extract/accept`, `POST /v1/extract/undo`: `ora extract` for the
plugin's review view (docs/extraction.md).

A plan is made by the same library as the CLI, over the server's index and embedder. An accept
names the conversation and the proposals it keeps (`"all"` or ids), with the user's own wording
for any the review edited (`edits`); the server plans again and
writes only proposals the fresh plan still holds (an id it does not is a 409 and nothing is
written). The new engrams and the chat note reach the index through the write lane at once, and
the contradictions they raise are queued in the cleaning queue, whose open count follows. A
private conversation is found only in private mode, exactly as a missing one is not.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from sidecar.extraction import (
    Plan,
    accept,
    chosen,
    edited,
    load_source,
    plan_extraction,
    undo_extraction,
)
from sidecar.extraction.engrams import IndexEngrams
from sidecar.server.openapi import read_json
from sidecar.server.resources import INDEX, LANE, MODELS
from sidecar.server.routes_claims import CLAIMS
from sidecar.server.state import CONFIG, STATE

routes = web.RouteTableDef()


async def _plan(request: web.Request, body: dict[str, Any]) -> Plan:
    config, private = request.app[CONFIG], bool(body.get("private", False))
    source = await asyncio.to_thread(
        load_source, config, conversation=body.get("conversation"),
        note=body.get("note"), private=private)
    engrams = IndexEngrams(request.app[INDEX], request.app[MODELS].embedder, private=private)
    return await plan_extraction(config, source, engrams)


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
    return web.json_response((await _plan(request, body)).as_json())


@routes.post("/v1/extract/accept")
async def extract_accept(request: web.Request) -> web.Response:
    body = await read_json(request, "ExtractAcceptRequest")
    config, claims = request.app[CONFIG], request.app[CLAIMS]
    plan = await _plan(request, body)
    picked = edited(chosen(plan, body["accept"]), body.get("edits", {}))
    async with claims.lock:  # the queue is written by one scan or resolution at a time
        done = await asyncio.to_thread(accept, config.vault, int(config.max_file_bytes), plan,
                                       picked, claims.queue)
    await _written(request, done.written,
                   [p for p in done.changed if p not in done.written], [])
    return web.json_response(done.as_json())


@routes.post("/v1/extract/undo")
async def extract_undo(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    config, claims = request.app[CONFIG], request.app[CLAIMS]
    private = bool(body.get("private", False))
    async with claims.lock:
        undone = await asyncio.to_thread(undo_extraction, config.vault, claims.queue,
                                         private=private)
    await _written(request, [], undone.restored, undone.removed)
    return web.json_response(undone.as_json(private=private))
