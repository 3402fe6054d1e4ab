"""`POST /v1/ingest`, `POST /v1/ingest/undo`: `ora ingest` for the plugin's "Process document
into notes" (docs/documents.md).

The same library as the CLI: without `apply` the answer is the dry run, with it the notes are
written and the document and its notes are re-indexed through the write lane, so search finds
the notes instead of the document at once. A private document (`ora.yaml` `private`) is
processed, and its ingest undone, only in private mode: its notes' names are its own. An undo
outside private mode passes over an ingest that involves a private document or note, as if it
were not there (`ingest_undo.py`), so its answer never tells that one exists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from aiohttp import web

from sidecar.documents.ingest import apply_ingest, is_private_document, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest
from sidecar.errors import BadRequest
from sidecar.server.openapi import read_json
from sidecar.server.paths import request_path
from sidecar.server.resources import LANE
from sidecar.server.state import CONFIG

routes = web.RouteTableDef()


def _refuse_private(private: bool, request: web.Request, rel: str) -> None:
    config = request.app[CONFIG]
    if not private and is_private_document(config.vault, rel, data=config.data):
        raise BadRequest("a private document: process it in private mode")


async def _reindex(request: web.Request, paths: Iterable[str]) -> None:
    events = [{"kind": "modified", "path": p} for p in dict.fromkeys(paths)]
    if events:
        await request.app[LANE].apply(events)


@routes.post("/v1/ingest")
async def ingest(request: web.Request) -> web.Response:
    body = await read_json(request, "IngestRequest")
    config = request.app[CONFIG]
    vault, rel = config.vault, request_path(body["path"])
    _refuse_private(bool(body.get("private", False)), request, rel)
    plan = await asyncio.to_thread(plan_ingest, vault, rel, data=config.data)
    if not body.get("apply", False):
        return web.json_response(plan.to_json())
    done = await asyncio.to_thread(apply_ingest, vault, plan, data=config.data)
    if done["written"] or done["trashed"]:
        await _reindex(request, [plan.document, *done["written"], *done["trashed"]])
    return web.json_response(done)


@routes.post("/v1/ingest/undo")
async def ingest_undo(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    config = request.app[CONFIG]
    # not refused when the latest ingest is private: that answer would tell one exists
    done: dict[str, Any] = await asyncio.to_thread(
        lambda: undo_ingest(config.vault, data=config.data,
                            private=bool(body.get("private", False))))
    await _reindex(request, [str(done["document"]), *done["undone"]])
    return web.json_response(done)
