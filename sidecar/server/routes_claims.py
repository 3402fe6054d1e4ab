"""Routes of the cleaning queue and the web tier.

`GET /v1/contradictions`, `POST /v1/contradictions/scan`, `POST /v1/contradictions/{id}/resolve`,
`POST /v1/contradictions/batches/{batch}/approve` (a news batch), `POST /v1/web/classify`.
The queue and the judge open with the app (`context`, after the models and the index); edits
made by a resolution reach the index through the server's write lane at once. Pairs involving a
private note are listed, resolved and approved only in private mode (`?private=true`, or
`"private": true` in the body); the published open count leaves them out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from sidecar.cleaning import Queue, Resolution, approve_batch, build_judge, resolve, scan
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.store import STATUSES
from sidecar.cleaning.verdict import Judge
from sidecar.errors import BadRequest, ModelUnavailable
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import LANE, MODELS
from sidecar.server.state import CONFIG, STATE
from sidecar.vault.scan import vault_path
from sidecar.web import classify, load_registry

log = logging.getLogger("sidecar.server")
routes = web.RouteTableDef()


@dataclass
class Claims:
    queue: Queue
    judge: Judge
    lock: asyncio.Lock  # one scan or resolution at a time


CLAIMS = web.AppKey("claims", Claims)


async def context(app: web.Application) -> AsyncIterator[None]:
    """The queue and the judge; a judge that cannot load falls back to the rules detector."""
    config = app[CONFIG]
    queue = await asyncio.to_thread(Queue, config.data)
    try:
        judge: Judge = await asyncio.to_thread(build_judge, config)
    except ModelUnavailable as err:
        log.warning("contradiction judge unavailable, using rules: %s", err.message)
        app[STATE].last_error = f"judge: {err.message}"
        judge = RulesJudge()
    app[CLAIMS] = Claims(queue, judge, asyncio.Lock())
    app[STATE].set_contradictions_open(await asyncio.to_thread(queue.open_count))
    try:
        yield
    finally:
        queue.close()


def _pairs(queue: Queue, status: str | None, private: bool) -> dict[str, Any]:
    return {"pairs": [p.as_json() for p in queue.pairs(status, private=private)]}


@routes.get("/v1/contradictions")
async def list_pairs(request: web.Request) -> web.Response:
    status = request.query.get("status", "open")
    if status not in (*STATUSES, "all"):
        raise BadRequest(f"unknown status {status!r}: choose from {', '.join(STATUSES)}, all")
    queue, private = request.app[CLAIMS].queue, query_flag(request, "private")
    doc = await asyncio.to_thread(_pairs, queue, None if status == "all" else status, private)
    return web.json_response(doc)


@routes.post("/v1/contradictions/scan")
async def scan_pairs(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    claims, app = request.app[CLAIMS], request.app
    async with claims.lock:
        await scan(app[CONFIG], claims.queue, app[MODELS].embedder, claims.judge)
        doc = await asyncio.to_thread(_pairs, claims.queue, "open", body.get("private", False))
    app[STATE].set_contradictions_open(await asyncio.to_thread(claims.queue.open_count))
    return web.json_response(doc)


async def _after(request: web.Request, changed: Sequence[str]) -> None:
    """Index the edited notes now and publish the new open count."""
    config = request.app[CONFIG]
    events = [{"kind": "modified" if vault_path(config.vault, p).exists() else "deleted",
               "path": p} for p in changed]
    if events:
        await request.app[LANE].apply(events)
    queue = request.app[CLAIMS].queue
    request.app[STATE].set_contradictions_open(await asyncio.to_thread(queue.open_count))


@routes.post("/v1/contradictions/{id}/resolve")
async def resolve_pair(request: web.Request) -> web.Response:
    body = await read_json(request, "ResolveRequest")
    claims = request.app[CLAIMS]
    async with claims.lock:
        done: Resolution = await asyncio.to_thread(
            resolve, request.app[CONFIG], claims.queue, request.match_info["id"],
            body["action"], newer=body.get("newer"), note=body.get("note"),
            delete=bool(body.get("delete", False)), private=body.get("private", False),
        )
    await _after(request, done.changed)
    return web.json_response(done.as_json())


@routes.post("/v1/contradictions/batches/{batch}/approve")
async def approve(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    claims = request.app[CLAIMS]
    async with claims.lock:
        done = await asyncio.to_thread(approve_batch, request.app[CONFIG], claims.queue,
                                       request.match_info["batch"],
                                       private=body.get("private", False))
    changed = sorted({p for d in done for p in d.changed})
    await _after(request, changed)
    return web.json_response({"pairs": [d.pair.as_json() for d in done], "changed": changed})


@routes.post("/v1/web/classify")
async def web_classify(request: web.Request) -> web.Response:
    body = await read_json(request, "ClassifyRequest")
    config = request.app[CONFIG]
    registry = await asyncio.to_thread(load_registry, config.vault, int(config.max_file_bytes))
    doc = await asyncio.to_thread(classify, body["results"], registry,
                                  request.app[MODELS].embedder)
    return web.json_response(doc)
