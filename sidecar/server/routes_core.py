"""Routes about the server itself: health, status, the event stream, the OpenAPI document."""

from __future__ import annotations

import asyncio
import os

from aiohttp import web

from sidecar import __version__
from sidecar.documents.formats import unreadable_documents
from sidecar.index import Index
from sidecar.privacy.egress import endpoints_report
from sidecar.retrieval.private_now import settings_now_of
from sidecar.server.openapi import openapi_document
from sidecar.server.resources import INDEX, MODELS
from sidecar.server.state import HUB, STATE

routes = web.RouteTableDef()


@routes.get("/v1/health")
async def health(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok", "version": __version__})


@routes.get("/v1/status")
async def status(request: web.Request) -> web.Response:
    state = request.app[STATE]
    return web.json_response(
        {
            "vault": str(state.config.vault),
            "pid": os.getpid(),
            "files": state.files,
            "chunks": state.chunks,
            "queue": state.queue,
            "indexing": state.indexing,
            "tasks": {name: task.as_json() for name, task in state.tasks.items()},
            "reconcile": state.reconcile.as_json(),
            "model": state.model,
            "model_loaded": request.app[MODELS].embedder.loaded,
            "reranker": {"name": state.reranker, "reason": state.reranker_reason},
            "contradictions_open": state.contradictions_open,
            "last_error": state.last_error,
            "cleaning": state.cleaning.as_json(),
            "endpoints": endpoints_report(state.config),
            "unreadable_documents": await asyncio.to_thread(_unreadable, request.app[INDEX]),
        }
    )


def _unreadable(index: Index) -> list[dict[str, str]]:
    # private by the settings now, not by those of the index's last reconcile: a folder made
    # private names none of its documents here meanwhile
    return unreadable_documents(index.ledger.errors(index.namespace),
                                settings_now_of(index.config).private_paths())


@routes.get("/v1/events/stream")
async def events_stream(request: web.Request) -> web.StreamResponse:
    return await request.app[HUB].stream(request, request.app[STATE].snapshot)


@routes.get("/v1/openapi.json")
async def openapi(request: web.Request) -> web.Response:
    return web.json_response(openapi_document())
