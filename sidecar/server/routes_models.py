"""Routes of the models: what is installed, and pulling a catalogue model from the hub.

`GET /v1/models` is `ora models --json`. `POST /v1/models/pull` is `ora models pull NAME` as
server-sent events — `progress` {"file", "done", "total"} while files arrive, then `installed`
(the model's manifest) or `error` {"error": {"code", "message"}} — so the plugin's settings can
show a progress bar; closing the stream cancels the pull within `_CLIENT_CHECK_S`, even while the
hub sends nothing (its partial files stay, so the next pull resumes; a cancelled pull installs
nothing). One pull at a time; a running sidecar loads the new model when restarted.
`POST /v1/models/switch-estimate` says what choosing another embedder would cost (every chunk
re-embedded, timed on a few of them) before the user switches; the switch itself is the
`embed_model` setting, read when the sidecar starts. `GET /v1/models/suggestion` is what
`ora index` says of the vault's languages: the multilingual embedder to offer when its notes are
mostly not in English and `embed_model = auto` chose the embedder in use (one chosen on purpose
is offered nothing: `chosen_by_auto`), with its download size and re-embedding time
(`language_offer.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from sidecar.errors import Conflict, OraError, error_body
from sidecar.index.language_offer import chosen_by_auto, language_offer
from sidecar.models.catalogue import entry, pull
from sidecar.models.choice import load_embedder
from sidecar.models.report import models_report
from sidecar.server.events import format_event
from sidecar.server.openapi import read_json
from sidecar.server.resources import INDEX
from sidecar.server.state import CONFIG

log = logging.getLogger(__name__)
routes = web.RouteTableDef()
PULLING = web.AppKey("models_pulling", asyncio.Lock)
# How often a pull checks that its client is still there: aiohttp (without handler cancellation)
# tells a handler of a closed connection only when it writes, and a stalled hub gives nothing to
# write for its whole read timeout, which held the pull (and the 409 for the next one) that long.
_CLIENT_CHECK_S = 0.25


async def context(app: web.Application) -> AsyncIterator[None]:
    app[PULLING] = asyncio.Lock()
    yield


@routes.get("/v1/models")
async def models(request: web.Request) -> web.Response:
    return web.json_response(await asyncio.to_thread(models_report, request.app[CONFIG]))


@routes.post("/v1/models/pull")
async def models_pull(request: web.Request) -> web.StreamResponse:
    body = await read_json(request, "ModelsPullRequest")
    item = entry(body["name"])  # an unknown name is a 400 before the stream begins
    lock = request.app[PULLING]
    if lock.locked():
        raise Conflict("another model is being pulled; wait for it to finish")
    async with lock:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        events: asyncio.Queue[dict[str, object]] = asyncio.Queue()
        task = asyncio.create_task(pull(request.app[CONFIG], item.name, lambda f, d, t:
                                        events.put_nowait({"file": f, "done": d, "total": t})))
        try:
            await _forward_progress(request, response, events, task)
        except ConnectionResetError:  # the client closed the stream: that cancels the pull
            log.info("POST /v1/models/pull %s cancelled by the client", item.name)
            return response
        finally:
            # Cancelled, the partial files stay in the staging folder: the next pull resumes.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        try:
            manifest = task.result()
            await response.write(format_event("installed", {**manifest, "restart": True}))
        except OraError as err:
            await response.write(format_event("error", error_body(err)))
        except Exception:  # the middleware cannot answer once the stream has begun
            log.exception("POST /v1/models/pull failed")
            await response.write(format_event("error", error_body(OraError(
                "internal error: see the server log", code="internal", status=500))))
        await response.write_eof()
        return response


async def _forward_progress(request: web.Request, response: web.StreamResponse,
                            events: asyncio.Queue[dict[str, object]],
                            task: asyncio.Task[dict[str, Any]]) -> None:
    """Write each progress event until the pull ends; ConnectionResetError once the client has
    gone, found by writing or by looking every _CLIENT_CHECK_S."""
    while not task.done() or not events.empty():
        getter = asyncio.ensure_future(events.get())
        await asyncio.wait({getter, task}, timeout=_CLIENT_CHECK_S,
                           return_when=asyncio.FIRST_COMPLETED)
        if getter.done():
            await response.write(format_event("progress", getter.result()))
        else:
            getter.cancel()
        if _gone(request):
            raise ConnectionResetError("the client closed the stream")


def _gone(request: web.Request) -> bool:
    """Whether the request's connection is closed (or closing)."""
    transport = request.transport
    return transport is None or transport.is_closing()


@routes.get("/v1/models/suggestion")
async def models_suggestion(request: web.Request) -> web.Response:
    # An embedder chosen on purpose (`embed_model` named, or `embed_url`) is the user's choice:
    # the plugin would otherwise offer to replace it on every visit to its settings.
    offer = chosen_by_auto(request.app[CONFIG])
    return web.json_response(await asyncio.to_thread(language_offer, request.app[INDEX],
                                                     offer=offer))


@routes.post("/v1/models/switch-estimate")
async def models_switch_estimate(request: web.Request) -> web.Response:
    body = await read_json(request, "ModelsSwitchEstimateRequest")
    config = request.app[CONFIG].with_values(embed_model=body["name"])
    # Loads the candidate as the restarted sidecar would (400 unknown name, 503 not pulled).
    candidate = await asyncio.to_thread(load_embedder, config)
    estimate = await asyncio.to_thread(request.app[INDEX].switch_estimate, candidate)
    return web.json_response({"name": body["name"], **estimate})
